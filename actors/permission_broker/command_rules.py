"""Command rules: ``allowedCommands`` / ``blockedCommands`` entries.

An allowed entry matches a simple command when the command's words begin with the entry's
words: ``git status`` matches ``git status -s`` but not ``git statusx`` nor ``git push``. The
global options of a multi-command program are left out first, so ``git --no-pager log``
matches ``git log`` too (``options.py`` lists them).

A blocked entry matches every spelling that runs what it names: the program whatever folder
it is called from (``/usr/bin/git``), and the entry's other words found in order, past options
and their values (``git -C . -c k=v push`` is ``git push``). An entry word that is an option
may stand anywhere after those before it (``git push --force`` matches
``git push origin --force``). This errs on the side of blocking: in ``git -C push status``
the folder 'push' reads as a subcommand.

A ``*`` in an entry matches within one word (``npm run *`` matches ``npm run test``). Entries
are split into words the way a shell would (``grep "a b"`` is two words).
"""

from __future__ import annotations

import fnmatch
import itertools
import os
import re
import shlex
from dataclasses import dataclass
from typing import TYPE_CHECKING

from actors.permission_broker.options import global_options

if TYPE_CHECKING:
    from collections.abc import Iterator, Sequence

    from actors.permission_broker.shell import SimpleCommand

Words = tuple[str | None, ...]
_GLOB = frozenset("*?[")


@dataclass(frozen=True, slots=True)
class CommandEntry:
    text: str  # as the user wrote it, for messages
    words: tuple[re.Pattern[str], ...]
    literal: tuple[str, ...]  # the words as written

    @classmethod
    def parse(cls, text: str) -> CommandEntry:
        try:
            words = shlex.split(text)
        except ValueError:  # the memory store rejects these; split plainly to be safe anyway
            words = text.split()
        return cls(text, tuple(_word_pattern(word) for word in words), tuple(words))

    def matches(self, words: Sequence[str | None]) -> bool:
        """The command's words begin with this entry's; an unknown word matches nothing."""
        if not self.words or len(words) < len(self.words):
            return False  # an empty entry matches nothing rather than everything
        return all(
            word is not None and bool(pattern.fullmatch(word))
            for pattern, word in zip(self.words, words, strict=False)
        )

    def reaches(self, offset: int) -> bool:
        """Whether this entry, matching a command, names the word at ``offset`` as well.

        ``xargs rm`` names the command that xargs runs; ``xargs`` does not, and then rm must
        be allowed in its own right. A last word ``*`` names whatever follows it.
        """
        return len(self.words) > offset or self.literal[-1:] == ("*",)

    def blocks(self, words: Sequence[str | None]) -> bool:
        """Whether the command runs what this entry names (see the module docstring)."""
        return self._blocks(words, unknown=False)

    def could_block(self, words: Sequence[str | None]) -> bool:
        """Whether it would, if the words only known at run time took suitable values."""
        return self._blocks(words, unknown=True)

    def _blocks(self, words: Sequence[str | None], *, unknown: bool) -> bool:
        if not self.words or not words:
            return False
        name = words[0]
        if name is None:
            return unknown
        first = self.words[0]
        if not (first.fullmatch(name) or first.fullmatch(os.path.basename(name))):
            return False
        return self._rest(1, words, 1, unknown)

    def _rest(self, k: int, words: Sequence[str | None], start: int, unknown: bool) -> bool:
        """Entry words from ``k`` on, found in ``words[start:]``."""
        if k == len(self.words):
            return True
        pattern = self.words[k]
        if self.literal[k].startswith("-"):
            found = any(_fits(pattern, word, unknown) for word in words[start:])
            return found and self._rest(k + 1, words, start, unknown)
        for at in range(start, len(words)):
            if _fits(pattern, words[at], unknown) and self._rest(k + 1, words, at + 1, unknown):
                return True
            if not _skippable(words, at, start, unknown):
                return False
        return False


def _fits(pattern: re.Pattern[str], word: str | None, unknown: bool) -> bool:
    return unknown if word is None else bool(pattern.fullmatch(word))


def _skippable(words: Sequence[str | None], at: int, start: int, unknown: bool) -> bool:
    """An option, or what may be an option's value, between the words an entry names."""
    word = words[at]
    if word is None:
        return unknown
    if _is_option(word):
        return True
    before = words[at - 1] if at > start else None
    return before is not None and _is_option(before) and "=" not in before


def _is_option(word: str) -> bool:
    return word.startswith("-") and word != "-"


def _word_pattern(word: str) -> re.Pattern[str]:
    return re.compile(".*".join(re.escape(part) for part in word.split("*")), re.DOTALL)


def allowable_forms(words: Words) -> Iterator[tuple[Words, int]]:
    """The word sequences an allowed entry is matched against, each with how many words
    before the subcommand it leaves out: as written, and without global options."""
    yield words, 0
    subcommand = global_options(words)
    if subcommand is not None and subcommand.removed:
        yield subcommand.words, subcommand.removed


def blockable_forms(command: SimpleCommand) -> Iterator[Words]:
    """The word sequences a blocked entry is checked against.

    The command as written and, behind a wrapper, every tail of its arguments ('sudo -u x
    rm -rf y' has the tail 'rm -rf y'). The commands a wrapper runs are judged in their own
    right as well; the tails are a net for what its options hide, and err on the side of
    blocking.
    """
    # Imported here, with the command that needs it (the shell parser imports it too).
    from actors.permission_broker.wrappers import WRAPPERS

    for words in dict.fromkeys((command.words, braces_expanded(command))):
        yield words
        name = words[0] if words else None
        if name is not None and os.path.basename(name) in WRAPPERS:
            yield from (words[start:] for start in range(1, len(words)))


def braces_expanded(command: SimpleCommand) -> Words:
    """The words as bash's brace expansion makes them: ``git {push,}`` is ``git push``, and
    ``git p{u,x}sh`` is ``git push pxsh`` (an empty result is no word)."""
    from actors.permission_broker.arguments import MAX_BRACES, expand_braces

    words: list[str | None] = []
    for word in command.words:
        if word is not None and "{" in word and word in command.patterns:
            words += [w for w in itertools.islice(expand_braces(word), MAX_BRACES) if w]
        else:
            words.append(word)
    return tuple(words)


def globs_as_unknown(command: SimpleCommand, literals: Sequence[str]) -> Words:
    """The words, each file pattern that could expand to one of ``literals`` taken as only
    known when it runs: ``git pus?`` is ``git push`` once the project holds a file ``push``."""
    globs = {word for word in command.patterns if _GLOB & set(word)}
    return tuple(
        None
        if word in globs and any(fnmatch.fnmatchcase(literal, word) for literal in literals)
        else word
        for word in command.words
    )


# ── options that run a program the line names ──────────────────────────────────────────────

# git subcommands' options that run a program given in the line ('git rebase -x CMD').
_GIT_RUNS: dict[str, frozenset[str]] = {
    "archive": frozenset({"--exec"}),
    "bisect": frozenset({"run"}),
    "clone": frozenset({"-u", "--upload-pack", "-c", "--config", "--template"}),
    "difftool": frozenset({"-x", "--extcmd"}),
    "fetch": frozenset({"--upload-pack"}),
    "fetch-pack": frozenset({"--upload-pack", "--exec"}),
    "grep": frozenset({"-O", "--open-files-in-pager"}),
    "init": frozenset({"--template"}),
    "ls-remote": frozenset({"--upload-pack"}),
    "pull": frozenset({"--upload-pack"}),
    "push": frozenset({"--receive-pack", "--exec"}),
    "rebase": frozenset({"-x", "--exec"}),
    "send-email": frozenset(
        {"--smtp-server", "--to-cmd", "--cc-cmd", "--header-cmd", "--sendmail-cmd"}
    ),
    "send-pack": frozenset({"--receive-pack", "--exec"}),
    "submodule": frozenset({"foreach"}),
}


def runs_chosen_program(words: Words) -> str | None:
    """How the command can be made to run a program that the line itself chooses, or None.

    ``git -c core.fsmonitor='sh x' status`` runs 'sh x' although it reads as 'git status'; an
    allowed entry never covers such a command, since the entry cannot say which program is
    meant. The answer completes "through ...".
    """
    name = words[0] if words else None
    if name is None:
        return None
    program = os.path.basename(name)
    if program == "git":
        return _git_runs(words)
    if program == "cargo":
        # cargo reads --config anywhere on its line; its keys name programs (build.rustc-wrapper).
        return _option_in(words[1:], frozenset({"--config"}))
    if program in ("make", "gmake"):
        return _make_runs(words[1:])
    if program in ("apt", "apt-get"):
        # -o APT::Update::Pre-Invoke::=CMD, or a config file that says the same.
        return _option_in(words[1:], frozenset({"-o", "--option", "-c", "--config-file"}))
    return None


# make's options whose value is makefile text ('$(shell CMD)' runs CMD), its variables that name
# the program recipes run with, and the makefiles it reads from its input.
_MAKE_TEXT = frozenset({"-E", "--eval"})
_MAKE_SHELL = ("SHELL=", ".SHELLFLAGS=", "MAKESHELL=")
_MAKE_FILE = frozenset({"-f", "--file", "--makefile"})
_STANDARD_INPUT = frozenset({"-", "/dev/stdin", "/dev/fd/0", "/proc/self/fd/0"})


def _make_runs(words: Sequence[str | None]) -> str | None:
    text = _option_in(words, _MAKE_TEXT)
    if text is not None:
        return text
    for at, word in enumerate(words):
        if word is None:
            continue
        if word.startswith(_MAKE_SHELL):
            return f"its variable '{word.partition('=')[0]}'"
        option, equals, value = word.partition("=")
        if option in _MAKE_FILE:
            named = value if equals else (words[at + 1] if at + 1 < len(words) else None)
            if named in _STANDARD_INPUT:
                return f"its option '{option}', reading a makefile from its input"
    return None


def _git_runs(words: Words) -> str | None:
    subcommand = global_options(words)
    if subcommand is None:
        return None  # git refuses an option it does not know
    for option, value in subcommand.options:
        # --git-dir points git at a config file of the line's choosing, as GIT_DIR does.
        if option in ("-c", "--config-env", "--git-dir") or (
            option == "--exec-path" and value is not None
        ):
            return f"its option '{option}'"
    rest = subcommand.words[1:]
    if not rest or rest[0] is None:
        return None
    if rest[0] == "filter-branch":
        return "'filter-branch', whose filters are commands"
    return _option_in(rest[1:], _GIT_RUNS.get(rest[0], frozenset()))


def _option_in(words: Sequence[str | None], options: frozenset[str]) -> str | None:
    for word in words:
        if word is None:
            continue
        for option in options:
            attached = len(option) == 2 and option.startswith("-") and word.startswith(option)
            if word == option or word.startswith(option + "=") or attached:
                return f"its option '{option}'" if option.startswith("-") else f"'{option}'"
    return None
