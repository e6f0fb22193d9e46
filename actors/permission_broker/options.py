"""Reading a program's options the way it does, to find the words that come after them.

``git -C src --no-pager push`` runs ``git push``; ``timeout -s KILL 10 make`` runs ``make``.
To know that, the rules must know which options take a value (``-C src``) and which do not
(``--no-pager``). An option a spec does not list makes the answer unknown: guessing would let a
line such as ``sudo --unknown-valued ls rm`` pass as ``ls``.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence

_NUMBER = re.compile(r"-\d+")


@dataclass(frozen=True, slots=True)
class OptionSpec:
    valued: frozenset[str] = frozenset()  # take the next word, or a value after '=' / attached
    flags: frozenset[str] = frozenset()
    # Short options whose value, if any, is attached (xargs -i{}, -l5); never the next word.
    optional: frozenset[str] = frozenset()
    numeric: bool = False  # '-10' is an option (nice)


def spec(
    valued: str = "", flags: str = "", optional: str = "", *, numeric: bool = False
) -> OptionSpec:
    """An OptionSpec from space-separated option names."""
    return OptionSpec(
        frozenset(valued.split()), frozenset(flags.split()), frozenset(optional.split()), numeric
    )


@dataclass(frozen=True, slots=True)
class Options:
    """The options read from ``start``: ``end`` is the first word after them."""

    end: int
    seen: tuple[tuple[str, str | None], ...]  # (option, its value) in order


class UnknownOption(Exception):
    """The options cannot be read statically; the message completes "because ..."."""


def read_options(words: Sequence[str | None], start: int, options: OptionSpec) -> Options:
    """Read options from ``words[start:]`` until the first word that is not one.

    Stops at the first operand, as the programs here do (they parse with a leading '+' in their
    getopt string, or by hand), and after '--'. A word only known at run time ends the
    options: what it expands to, and so what comes after, is unknown. Raises UnknownOption for
    an option the spec does not list.
    """
    seen: list[tuple[str, str | None]] = []
    index = start
    while index < len(words):
        word = words[index]
        if word == "--":
            return Options(index + 1, tuple(seen))
        # A word only known at run time may be an option or the first operand; what follows
        # it is unknown either way.
        if word is None or not word.startswith("-") or word == "-":
            break
        index += 1
        if word.startswith("--"):
            name, equals, value = word.partition("=")
            if equals:
                # An attached value cannot be mistaken for the next word, known option or not.
                seen.append((name, value))
            elif name in options.valued:
                seen.append((name, _next(words, index)))
                index += 1
            elif name in options.flags:
                seen.append((name, None))
            else:
                raise UnknownOption(f"its option '{word}' is not one Legato knows")
            continue
        if options.numeric and _NUMBER.fullmatch(word):
            seen.append((word, None))
            continue
        index = _short_cluster(word, words, index, options, seen)
    return Options(index, tuple(seen))


def _short_cluster(
    word: str,
    words: Sequence[str | None],
    index: int,
    options: OptionSpec,
    seen: list[tuple[str, str | None]],
) -> int:
    """``-xvf file``: each letter is an option; a valued one takes the rest or the next word."""
    for position in range(1, len(word)):
        name = "-" + word[position]
        rest = word[position + 1 :]
        if name in options.optional:
            seen.append((name, rest))
            return index
        if name in options.valued:
            if rest:
                seen.append((name, rest))
                return index
            seen.append((name, _next(words, index)))
            return index + 1
        if name not in options.flags:
            raise UnknownOption(f"its option '{name}' is not one Legato knows")
        seen.append((name, None))
    return index


def _next(words: Sequence[str | None], index: int) -> str | None:
    return words[index] if index < len(words) else None


# Options that multi-command programs take before their subcommand: 'git -C src push' is
# 'git push' run in src. Only options listed here are skipped; any other keeps the words as
# written, so an entry still has to match them literally.
GLOBAL_OPTIONS: dict[str, OptionSpec] = {
    "git": spec(
        "-C -c --git-dir --work-tree --namespace --config-env --super-prefix --attr-source "
        "--list-cmds",
        "-p --paginate -P --no-pager --bare --no-replace-objects --no-lazy-fetch "
        "--no-optional-locks --no-advice --literal-pathspecs --glob-pathspecs "
        "--noglob-pathspecs --icase-pathspecs",
    ),
    "docker": spec(
        "--config -c --context -H --host -l --log-level --tlscacert --tlscert --tlskey",
        "-D --debug --tls --tlsverify",
    ),
    "kubectl": spec(
        "-n --namespace --context --cluster --user --kubeconfig -s --server --token --as "
        "--as-group --as-uid --certificate-authority --client-certificate --client-key "
        "--request-timeout --tls-server-name --cache-dir -v --v --vmodule",
        "--insecure-skip-tls-verify --match-server-version --warnings-as-errors",
    ),
    "helm": spec(
        "-n --namespace --kube-context --kubeconfig --kube-apiserver --kube-token "
        "--registry-config --repository-config --repository-cache --burst-limit",
        "--debug",
    ),
    "npm": spec(
        "--prefix -w --workspace --loglevel --userconfig --registry --cache",
        "-g --global -s --silent -q --quiet -d --verbose --workspaces "
        "--include-workspace-root --no-color --json --offline --prefer-offline -y --yes -f "
        "--force --legacy-peer-deps",
    ),
    "pnpm": spec(
        "-C --dir --filter -F --reporter", "-r --recursive -w --workspace-root -s --silent"
    ),
    "yarn": spec("--cwd", "-s --silent --verbose --offline"),
    "cargo": spec("-C -Z --color --config", "-q --quiet -v --verbose --locked --offline --frozen"),
    "pip": spec(
        "--python --cache-dir --log --proxy --retries --timeout --exists-action --trusted-host "
        "--cert --client-cert",
        "-q --quiet -v --verbose --isolated --no-cache-dir --disable-pip-version-check "
        "--no-color --no-input --require-virtualenv --no-python-version-warning --debug",
    ),
    "uv": spec(
        "--directory --project --cache-dir --color --config-file",
        "-q --quiet -v --verbose --offline --no-cache -n --native-tls --no-config --no-progress "
        "--preview --no-python-downloads --managed-python --no-managed-python",
    ),
    "poetry": spec(
        "-C --directory -P --project",
        "-q --quiet -v -n --no-interaction --no-ansi --ansi --no-plugins --no-cache",
    ),
    "systemctl": spec(
        "-H --host -M --machine -t --type -p --property --state -n --lines -o --output --root "
        "--job-mode --kill-whom -s --signal",
        "--user --system -q --quiet --now --no-pager --no-block --no-ask-password -a --all -l "
        "--full -f --force --runtime --global -r --recursive --no-reload --no-wall --no-legend "
        "-i --ignore-inhibitors --dry-run",
    ),
    "apt": spec(
        "-o --option -c --config-file -t --target-release",
        "-y --yes --assume-yes -q --quiet -s --simulate --dry-run --no-install-recommends "
        "--install-suggests -f --fix-broken -m --reinstall --purge -d --download-only "
        "--allow-downgrades --allow-unauthenticated",
    ),
}
GLOBAL_OPTIONS["pip3"] = GLOBAL_OPTIONS["pip"]
GLOBAL_OPTIONS["apt-get"] = GLOBAL_OPTIONS["apt"]


@dataclass(frozen=True, slots=True)
class Subcommand:
    """A multi-command program's words with its global options left out."""

    words: tuple[str | None, ...]  # the program, then the subcommand and what follows
    removed: int  # how many words were left out, all before the subcommand
    options: tuple[tuple[str, str | None], ...]  # the global options, as read


def global_options(words: Sequence[str | None]) -> Subcommand | None:
    """``git -C src push -f`` -> ``git push -f``; None for a program not listed above, or
    options that cannot be read."""
    name = words[0] if words else None
    if name is None:
        return None
    program = name.rsplit("/", 1)[-1]
    options = GLOBAL_OPTIONS.get(program)
    if options is None:
        return None
    start = 1
    if program == "cargo" and len(words) > 1 and (words[1] or "").startswith("+"):
        start = 2  # cargo +nightly build
    try:
        read = read_options(words, start, options)
    except UnknownOption:
        return None
    removed = read.end - 1
    return Subcommand((words[0], *words[read.end :]), removed, read.seen)
