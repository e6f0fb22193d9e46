"""The paths a command line's arguments may name, for the blocked-path check on commands.

An allowed program reads and writes whatever its arguments tell it to: ``cat .env`` reads a
blocked file, and ``tee .legato/settings.json`` rewrites the rules, although neither shows a
redirection. Which argument is a path only the program knows, so every literal word is taken
as one: as written (``secrets/key``), the value after ``=`` (``dd of=FILE``,
``--output=FILE``), and a pattern's matches in the project as it is now (``.en*``). Relative
words are taken from the project root and from each folder that a ``cd`` in the line names.

Words only known at run time (``$X``) are not followed: the rules cannot see what a program
does with them, which is why the policy says that path rules cannot bind an allowed program.
Two variables are known before the line runs, though: ``$HOME`` and ``$PWD`` (the project
root, where commands start), so ``cat $PWD/.env`` names ``.env`` like ``cat .env`` does.
"""

from __future__ import annotations

import glob
import itertools
import os
import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator

    from actors.permission_broker.shell import CommandLine, SimpleCommand

# Enough to find a blocked file among a pattern's matches without walking a whole tree.
MAX_MATCHES = 1000
MAX_BRACES = 64
# glob recurses once per folder of a pattern; a real path is not 200 folders deep.
MAX_PATTERN_FOLDERS = 200
_BRACES = re.compile(r"\{([^{}]*)\}")
# $PWD/x, ${HOME}/x, "$PWD/x": a known variable at the start of a path, up to the word's end.
_KNOWN_VARIABLE = re.compile(r"\$(?:\{(PWD|HOME)\}|(PWD|HOME)\b)(/[^\s'\"`;|&<>()$]*)?")
# A number range's ends up to 18 digits (a 64-bit integer, as bash reads them); a longer one is
# left as written, since Python reads no integer past 4300 digits.
_RANGE = re.compile(r"(-?\d{1,18})\.\.(-?\d{1,18})|([A-Za-z])\.\.([A-Za-z])")


def named_paths(line: CommandLine, root: str) -> Iterator[tuple[SimpleCommand, str, bool]]:
    """(command, absolute path, whole word) for every path a command's words may name.

    ``whole word`` is False for a value after '=' or a pattern's match.
    """
    folders = _folders(line, root)
    commands = [command for command, _ in line.every_command()]
    if commands:
        # The whole line's text, since a command's own text is shortened for messages.
        for known in _KNOWN_VARIABLE.finditer(line.text):
            base = root if (known[1] or known[2]) == "PWD" else os.path.expanduser("~")
            yield commands[0], os.path.normpath(base + (known[3] or "")), True
    for command in commands:
        if command.launches:
            continue  # its script is a word, not a path; the script's commands come in turn
        for word, whole in _words(command):
            for folder in folders if _relative(word) else [root]:
                yield command, os.path.join(folder, _expand(word, folder)), whole
        for pattern in command.patterns:
            for folder in folders if _relative(pattern) else [root]:
                for match in _matches(pattern, folder):
                    yield command, match, False


def _words(command: SimpleCommand) -> Iterator[tuple[str, bool]]:
    first = command.name
    if first is not None and "/" in first:
        yield first, True  # ./secrets/run.sh
    for word in command.words[1:]:
        if not word:
            continue
        _, equals, value = word.partition("=")
        if not word.startswith("-"):
            yield word, True
        if equals and value:
            yield value, False


def _expand(word: str, root: str) -> str:
    """A word's tilde as bash expands it: ``~+`` is the working folder ($PWD, the root where
    commands start), ``~/`` the home folder."""
    if word == "~+" or word.startswith("~+/"):
        return root + word[2:]
    return os.path.expanduser(word)


def _relative(word: str) -> bool:
    # '~+' is the working folder: relative to each folder a 'cd' names, as a plain word is.
    return not word.startswith(("/", "~")) or word == "~+" or word.startswith("~+/")


def _folders(line: CommandLine, root: str) -> list[str]:
    """The root, and each folder a literal 'cd' names, from the root and one after another."""
    folders = [root]
    current = root
    for target in line.directories:
        expanded = os.path.expanduser(target)
        current = os.path.normpath(os.path.join(current, expanded))
        folders += [current, os.path.normpath(os.path.join(root, expanded))]
    return list(dict.fromkeys(folders))


def _matches(pattern: str, folder: str) -> Iterator[str]:
    """The files a pattern names in ``folder`` now, as the shell would expand it."""
    expanded = _expand(pattern, folder) if pattern.startswith(("~/", "~+")) else pattern
    for alternative in itertools.islice(expand_braces(expanded), MAX_BRACES):
        if not glob.has_magic(alternative) or alternative.count("/") > MAX_PATTERN_FOLDERS:
            # No real file lies that deep, and glob would recurse once a folder past the stack.
            yield os.path.join(folder, alternative)
            continue
        found = glob.iglob(alternative, root_dir=None if os.path.isabs(alternative) else folder)
        for match in itertools.islice(found, MAX_MATCHES):
            yield os.path.join(folder, match)


def expand_braces(word: str) -> Iterator[str]:
    """``a{b,c}d`` -> ``abd``, ``acd``; ``x{1..3}`` -> ``x1``, ``x2``, ``x3`` (innermost first)."""
    for match in _BRACES.finditer(word):
        body = match[1]
        sequence = _RANGE.fullmatch(body)
        parts = _range(sequence) if sequence else body.split(",")
        if len(parts) < 2:
            continue  # '{}' and '{a}' stay as they are
        for part in parts:
            yield from expand_braces(word[: match.start()] + part + word[match.end() :])
        return
    yield word


def _range(match: re.Match[str]) -> list[str]:
    if match[1] is not None:
        start, end = int(match[1]), int(match[2])
        step = 1 if end >= start else -1
        # Only the first MAX_BRACES are made: {1..99999999999} listed whole took all memory.
        return [str(n) for n in itertools.islice(range(start, end + step, step), MAX_BRACES)]
    first, last = ord(match[3]), ord(match[4])
    step = 1 if last >= first else -1
    return [chr(c) for c in range(first, last + step, step)][:MAX_BRACES]
