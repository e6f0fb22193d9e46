"""What a command runs on its arguments' behalf: wrappers, find's actions, xargs, runners.

``sudo -u bob make`` runs ``make``; ``find . -exec rm {} ;`` runs ``rm``; ``xargs grep x``
runs ``grep x`` with more arguments read from its input; ``uv run pytest`` runs ``pytest``;
``watch 'make test'`` and ``su -c 'make'`` run a shell script. The rules judge each such inner
command as a command in its own right: an allowed ``find`` does not allow what it executes.

Only the command words are read here (no shell syntax); ``shell.py`` parses the scripts.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING

from actors.permission_broker.options import (
    OptionSpec,
    UnknownOption,
    global_options,
    read_options,
    spec,
)
from actors.permission_broker.write_options import option_writes

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

Words = tuple[str | None, ...]

_ASSIGNMENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*=")


@dataclass(frozen=True, slots=True)
class Inner:
    """A command taken from the outer command's own words."""

    offset: int  # where its name is among the outer command's words
    words: Words  # None where the value only exists at run time (find's {}, xargs' input)
    shown: str  # as written, for messages
    assignments: tuple[str, ...] = ()  # variables set for it alone (env A=1 cmd, sudo A=1 cmd)


@dataclass(frozen=True, slots=True)
class Script:
    """A string the outer command runs as shell code; None when only known at run time."""

    text: str | None


@dataclass(frozen=True, slots=True)
class Unclear:
    """What it runs cannot be told before it runs; the reason completes "because ..."."""

    reason: str


@dataclass(frozen=True, slots=True)
class Writes:
    """A file the outer command writes because an option names it (find -fprint FILE)."""

    target: str | None
    shown: str


Runs = Inner | Script | Unclear | Writes


def what_it_runs(words: Words) -> list[Runs]:
    """What the command with these words runs or writes besides itself."""
    name = words[0] if words else None
    if name is None:
        return []
    base = os.path.basename(name)
    try:
        if base in _WRAPPERS:
            return _WRAPPERS[base](words)
        runner = _runner(words)
        if runner is not None:
            return runner
    except UnknownOption as error:
        return [Unclear(str(error))]
    return [Writes(target, shown) for target, shown in option_writes(words)]


def _inner(words: Words, start: int, assignments: tuple[str, ...] = ()) -> list[Runs]:
    if start >= len(words):
        return []  # no command: sudo -s, nice, env print what they would
    return [Inner(start, words[start:], _shown(words[start:]), assignments)]


def _shown(words: Sequence[str | None]) -> str:
    return " ".join("…" if word is None else word for word in words)


def _joined(words: Sequence[str | None]) -> Script:
    """watch, parallel: their words joined with spaces and run by a shell."""
    return Script(None if None in words else " ".join(w for w in words if w is not None))


# ── wrappers: options, maybe some operands, then the command ───────────────────────────────


@dataclass(frozen=True, slots=True)
class _Simple:
    options: OptionSpec
    operands: int = 0  # words before the command: timeout's duration, chroot's folder
    no_command: frozenset[str] = frozenset()  # options that mean no command runs: command -v
    assignments: bool = False  # NAME=VALUE words before the command (env, sudo)

    def __call__(self, words: Words) -> list[Runs]:
        options = self.options
        listed = options.flags | (self.no_command - options.valued)
        spec_ = OptionSpec(options.valued, listed, options.optional, options.numeric)
        read = read_options(words, 1, spec_)
        if any(option in self.no_command for option, _ in read.seen):
            return []
        start = read.end + self.operands
        if None in words[read.end : start]:
            raise UnknownOption("a word before its command is only known when it runs")
        if not self.assignments:
            return _inner(words, start)
        start, assigned = _assignments(words, start)
        return _inner(words, start, assigned)


def _assignments(words: Words, start: int) -> tuple[int, tuple[str, ...]]:
    """NAME=VALUE words from ``start`` (env, sudo): where the command starts, and the names."""
    names: list[str] = []
    while start < len(words):
        word = words[start]
        if word is None or not _ASSIGNMENT.match(word):
            break
        names.append(word.partition("=")[0])
        start += 1
    return start, tuple(names)


def _env(words: Words) -> list[Runs]:
    read = read_options(
        words,
        1,
        spec(
            "-u --unset -C --chdir -S --split-string -a --argv0",
            "-i --ignore-environment -0 --null -v --debug --block-signal --default-signal "
            "--ignore-signal --list-signal-handling",
        ),
    )
    for option, value in read.seen:
        if option in ("-S", "--split-string"):
            # -S splits a string into the command and its arguments, much as a shell would.
            return [_joined((value, *words[read.end :]))]
    start = read.end
    if start < len(words) and words[start] == "-":
        start += 1  # 'env -' is 'env -i'
    start, assigned = _assignments(words, start)
    return _inner(words, start, assigned)


def _watch(words: Words) -> list[Runs]:
    read = read_options(
        words,
        1,
        spec(
            "-n --interval -q --equexit",
            "-d --differences -t --no-title -b --beep -e --errexit -g --chgexit -c --color "
            "-C --no-color -x --exec -p --precise -w --no-wrap -r --no-rerun",
        ),
    )
    if read.end >= len(words):
        return []
    if any(option in ("-x", "--exec") for option, _ in read.seen):
        return _inner(words, read.end)
    return [_joined(words[read.end :])]  # watch runs its words with 'sh -c'


def _flock(words: Words) -> list[Runs]:
    # flock [options] FILE COMMAND..., flock [options] FILE -c SCRIPT, or flock [options] FD.
    read = read_options(
        words,
        1,
        spec(
            "-w --wait --timeout -E --conflict-exit-code",
            "-s --shared -x -e --exclusive -u --unlock -n --nb --nonblock -o --close "
            "-F --no-fork --verbose",
        ),
    )
    start = read.end + 1
    if start < len(words) and words[start] in ("-c", "--command"):
        return [Script(words[start + 1] if start + 1 < len(words) else None)]
    return _inner(words, start)


def _su(words: Words) -> list[Runs]:
    """su and 'runuser USER': only '-c SCRIPT' runs a command; otherwise a login shell."""
    for index, word in enumerate(words[1:], start=1):
        if word is None:
            continue
        if word in ("-c", "--command", "--session-command"):
            return [Script(words[index + 1] if index + 1 < len(words) else None)]
        for prefix in ("--command=", "--session-command="):
            if word.startswith(prefix):
                return [Script(word[len(prefix) :])]
    return []


def _runuser(words: Words) -> list[Runs]:
    if not any(word in ("-u", "--user") or (word or "").startswith("--user=") for word in words):
        return _su(words)
    read = read_options(
        words,
        1,
        spec("-u --user -g --group -G --supp-group -w --whitelist-environment -s --shell", "-m -p"),
    )
    return _inner(words, read.end)


def _xargs(words: Words) -> list[Runs]:
    read = read_options(
        words,
        1,
        spec(
            "-a --arg-file -d --delimiter -E --eof -I -L --max-lines -n --max-args -P "
            "--max-procs -s --max-chars --process-slot-var",
            "-0 --null -p --interactive -r --no-run-if-empty -t --verbose -x --exit -o "
            "--open-tty --show-limits --replace",
            "-e -i -l",
        ),
    )
    replace: str | None = None
    for option, value in read.seen:
        if option == "-I":
            replace = value
        elif option in ("-i", "--replace"):
            replace = value or "{}"
    runs = _inner(words, read.end)
    if not runs or not isinstance(runs[0], Inner):
        return runs  # no command: xargs runs echo
    inner = runs[0]
    if replace is None:
        # The items read from its input are added as more arguments, unknown until then.
        return [Inner(inner.offset, (*inner.words, None), inner.shown)]
    filled = tuple(None if word is None or replace in word else word for word in inner.words)
    return [Inner(inner.offset, filled, inner.shown)]


def _parallel(words: Words) -> list[Runs]:
    read = read_options(
        words,
        1,
        spec(
            "-j --jobs -P --max-procs -S --sshlogin -a --arg-file --colsep -d --delimiter -E "
            "-I --joblog --results --res --tmpdir -n --max-args -N -L --max-lines -l --timeout "
            "--halt --retries --delay --memfree --load --tagstring --workdir --wd -W "
            "--basefile --bf --sshloginfile --slf -s --max-chars --block --blocksize --header "
            "--env --nice",
            "-k --keep-order -v --verbose -q --quote -0 --null --tag -X -m --xargs -u "
            "--ungroup --line-buffer --lb --group --dry-run --dryrun --progress --bar --eta "
            "--no-notice --will-cite --pipe --pipepart -r --no-run-if-empty -t --shuf "
            "--citation",
        ),
    )
    end = read.end
    while end < len(words) and words[end] not in (":::", "::::", ":::+", "::::+"):
        end += 1
    if end == read.end:
        raise UnknownOption("it reads the commands it runs from its input")
    command = words[read.end : end]
    if any(option in ("-q", "--quote") for option, _ in read.seen):
        return [Inner(read.end, command, _shown(command))]
    return [_joined(command)]  # GNU parallel runs the command through a shell


# find's actions that run a command, up to ';' or '{} +'.
_FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})
_FIND_WRITES = frozenset({"-fprint", "-fprint0", "-fprintf", "-fls"})


def _find(words: Words) -> list[Runs]:
    runs: list[Runs] = []
    index = 1
    while index < len(words):
        word = words[index]
        if word in _FIND_EXEC:
            start = index + 1
            end = start
            while end < len(words) and not (
                words[end] == ";" or (words[end] == "+" and end > start and words[end - 1] == "{}")
            ):
                end += 1
            command = words[start:end]
            # '{}' is replaced by each file found: its value exists only at run time.
            filled = tuple(None if w is None or "{}" in w else w for w in command)
            if filled:
                runs.append(Inner(start, filled, _shown(command)))
            index = end + 1
            continue
        if word == "-delete":
            runs.append(Inner(index, ("rm",), "-delete, which deletes like rm"))
        elif word in _FIND_WRITES:
            target = words[index + 1] if index + 1 < len(words) else None
            runs.append(Writes(target, _shown(words[index : index + 2])))
            index += 1
        index += 1
    return runs


_WRAPPERS: dict[str, Callable[[Words], list[Runs]]] = {
    "sudo": _Simple(
        spec(
            "-u --user -g --group -h --host -p --prompt -C --close-from -D --chdir -r --role "
            "-t --type -U --other-user -T --command-timeout -R --chroot",
            "-A --askpass -b --background -E --preserve-env -H --set-home -i --login -k "
            "--reset-timestamp -K --remove-timestamp -n --non-interactive -P --preserve-groups "
            "-S --stdin -s --shell -B --bell -N --no-update",
        ),
        no_command=frozenset(
            {"-l", "--list", "-v", "--validate", "-V", "--version", "-e", "--edit"}
        ),
        assignments=True,
    ),
    "doas": _Simple(spec("-u -C", "-n -s -L"), no_command=frozenset({"-L", "-C"})),
    "env": _env,
    "command": _Simple(spec("", "-p -v -V"), no_command=frozenset({"-v", "-V"})),
    # 'coproc NAME { ...; }' the grammar reads as words; the blocked net below looks through it.
    "coproc": _Simple(spec()),
    "builtin": _Simple(spec()),
    "exec": _Simple(spec("-a", "-c -l")),
    "nohup": _Simple(spec()),
    # 'busybox rm x' is rm: one program holding many, picked by its first word.
    "busybox": _Simple(spec(), no_command=frozenset({"--list", "--list-full", "--help"})),
    "toybox": _Simple(spec(), no_command=frozenset({"--help", "--version"})),
    "setsid": _Simple(spec("", "-c --ctty -f --fork -w --wait")),
    "stdbuf": _Simple(spec("-i --input -o --output -e --error")),
    "time": _Simple(
        spec("-f --format -o --output", "-p --portability -v --verbose -a --append -q --quiet")
    ),
    "unbuffer": _Simple(spec("", "-p")),
    "nice": _Simple(spec("-n --adjustment", numeric=True)),
    "ionice": _Simple(
        spec("-c --class -n --classdata", "-t --ignore"),
        no_command=frozenset({"-p", "--pid", "-P", "--pgid", "-u", "--uid"}),
    ),
    "timeout": _Simple(
        spec("-s --signal -k --kill-after", "-v --verbose --preserve-status --foreground"),
        operands=1,
    ),
    "chroot": _Simple(spec("--userspec --groups", "--skip-chdir"), operands=1),
    "strace": _Simple(
        spec(
            "-e -o -p -s -u -E -a -b -I -O -P -S -X -U --output --attach --string-limit --user "
            "--env --trace --signal --status --abbrev --verbose --raw --read --write",
            "-f -F -c -C -d -D -h -i -k -q -r -t -T -v -V -w -x -y -z -Z -n --follow-forks "
            "--summary-only --summary --daemonize",
        )
    ),
    "ltrace": _Simple(
        spec(
            "-e -o -p -s -u -a -A -D -F -l -n -x -L --output", "-b -c -C -f -h -i -r -S -t -T -V -w"
        )
    ),
    "watch": _watch,
    "flock": _flock,
    "su": _su,
    "runuser": _runuser,
    "xargs": _xargs,
    "parallel": _parallel,
    "find": _find,
}

# Package runners: 'uv run pytest' runs pytest, 'npx eslint' runs eslint.
_RUNNERS: dict[tuple[str, ...], OptionSpec] = {
    ("uv", "run"): spec(
        "--with --with-editable --with-requirements --python -p --package --extra --no-extra "
        "--group --no-group --only-group --env-file --directory --project --index "
        "--default-index --index-url -i --extra-index-url --find-links -f --index-strategy "
        "--keyring-provider --resolution --prerelease --exclude-newer --link-mode --cache-dir "
        "--config-file --color --refresh-package --reinstall-package --upgrade-package -P "
        "--no-build-package --no-binary-package --python-preference --config-setting -C "
        "--allow-insecure-host",
        "--frozen --locked --no-sync --isolated --all-extras --no-dev --dev --only-dev "
        "--no-project --no-editable --inexact --exact --active --no-active --offline "
        "--no-cache -n -q --quiet -v --verbose --native-tls --no-config --no-progress "
        "--refresh --reinstall --upgrade -U --no-build --no-binary --no-build-isolation "
        "--compile-bytecode --all-packages --no-env-file --managed-python --no-managed-python "
        "--no-python-downloads --script -s --module -m --gui-script --all-groups "
        "--no-default-groups --preview --no-preview",
    ),
    ("uvx",): spec(
        "--from --with --with-editable --with-requirements --python -p --index "
        "--default-index --index-url -i --extra-index-url --cache-dir --color --config-file",
        "--isolated --offline --no-cache -n -q --quiet -v --verbose --native-tls --no-config "
        "--refresh --reinstall --upgrade -U --no-progress",
    ),
    ("npx",): spec("-p --package -w --workspace", "-y --yes --no -q --quiet --no-install"),
    ("bunx",): spec("-p --package", "--bun --silent"),
    ("npm", "exec"): spec("-p --package -w --workspace", "-y --yes --no -q --quiet"),
    ("pnpm", "exec"): spec("", "-r --recursive --parallel -c --shell-mode"),
    ("pnpm", "dlx"): spec("-p --package", "-s --silent"),
    ("yarn", "dlx"): spec("-p --package", "-q --quiet"),
    ("poetry", "run"): spec("-C --directory -P --project", "-q --quiet -v -n --no-interaction"),
    ("pipenv", "run"): spec(),
    ("pipx", "run"): spec(
        "--spec --python --index-url --pip-args", "--no-cache -v --verbose -q --quiet --path"
    ),
    ("conda", "run"): spec("-n --name -p --prefix --cwd", "--live-stream --no-capture-output -v"),
    ("bundle", "exec"): spec("--gemfile", "--keep-file-descriptors"),
}
# Options of the runners whose value is a shell script: 'npx -c "rm -rf x"'.
_RUNNER_SCRIPTS = frozenset({"-c", "--call"})


def _runner(words: Words) -> list[Runs] | None:
    subcommand = global_options(words)  # uv -q run pytest
    form, removed = (subcommand.words, subcommand.removed) if subcommand else (words, 0)
    name = form[0]
    if name is None:
        return None
    base = os.path.basename(name)
    for prefix, options in _RUNNERS.items():
        if base != prefix[0] or tuple(form[1 : len(prefix)]) != prefix[1:]:
            continue
        scripts = prefix in (("npx",), ("npm", "exec"))
        if scripts:
            options = OptionSpec(
                options.valued | _RUNNER_SCRIPTS, options.flags, options.optional, options.numeric
            )
        read = read_options(form, len(prefix), options)
        for option, value in read.seen:
            if scripts and option in _RUNNER_SCRIPTS:
                return [Script(value)]
        # The words left out all came before the subcommand: past it, form and words align.
        return _inner(words, read.end + removed)
    return None


# Programs whose arguments hold a command; when the command cannot be located exactly, a
# blocked entry is still checked against every tail of their words ('sudo -Z x rm' holds rm).
WRAPPERS = frozenset(
    {
        "builtin", "busybox", "chroot", "command", "coproc", "doas", "env", "exec", "flock",
        "ionice", "toybox",
        "ltrace", "nice", "nohup", "parallel", "runuser", "setsid", "stdbuf", "strace", "su",
        "sudo", "time", "timeout", "unbuffer", "watch", "xargs",
    }
)  # fmt: skip
