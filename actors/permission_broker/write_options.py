"""Files a program writes because an option names them: ``git diff --output=FILE``.

An allowed ``git diff`` only shows a diff, unless ``--output`` sends it to a file: then it is
a write like ``git diff > FILE``, and is judged as one (``.git/commondir`` asks every time, as
``> .git/commondir`` does). The same for git's other commands that take ``--output`` (the log
and diff family, ``archive -o``, ``format-patch -o DIR``) and ``sort -o``. git accepts a long
option by any unambiguous start (``--outp``), so every start of these is read as the option.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from actors.permission_broker.options import global_options

if TYPE_CHECKING:
    from collections.abc import Sequence

Words = tuple[str | None, ...]

# git's commands that write their output to the file --output names.
_GIT_OUTPUT = frozenset(
    {
        "diff", "diff-files", "diff-index", "diff-tree", "log", "show", "whatchanged",
        "range-diff", "format-patch", "archive", "reflog",
    }
)  # fmt: skip
_LONG = ("--output", "--output-directory")
_SHORT = {"archive": "-o", "format-patch": "-o", "sort": "-o"}


def option_writes(words: Words) -> list[tuple[str | None, str]]:
    """(target, shown) for each file the command's options say it writes; target None when
    it is only known at run time (or relative to a folder ``git -C`` names)."""
    name = words[0] if words else None
    if name is None:
        return []
    base = os.path.basename(name)
    if base == "sort":
        return _outputs(words, 1, "sort", moved=False)
    if base != "git":
        return []
    subcommand = global_options(words)
    if subcommand is None or len(subcommand.words) < 2:
        return []
    command = subcommand.words[1]
    if command not in _GIT_OUTPUT:
        return []
    # Options that move where a relative path leads: git -C src diff --output=x writes src/x.
    moved = any(option in ("-C", "--work-tree", "--git-dir") for option, _ in subcommand.options)
    return _outputs(subcommand.words, 2, command, moved=moved)


def _outputs(
    words: Sequence[str | None], start: int, command: str, *, moved: bool
) -> list[tuple[str | None, str]]:
    found: list[tuple[str | None, str]] = []
    short = _SHORT.get(command)
    index = start
    while index < len(words):
        word = words[index]
        index += 1
        if word is None:
            continue
        if word == "--":
            break
        option, equals, value = word.partition("=")
        target: str | None
        if _is_long(option):
            if equals:
                target = value
            else:
                target = words[index] if index < len(words) else None
                index += 1
        elif short is not None and word.startswith(short):
            if word != short:
                target = word[len(short) :]
            else:
                target = words[index] if index < len(words) else None
                index += 1
        else:
            continue
        shown = word if equals or (word != short and not _is_long(word)) else f"{word} {target}"
        if moved and target is not None and not target.startswith(("/", "~")):
            target = None
        found.append((target, shown))
    return found


def _is_long(option: str) -> bool:
    return len(option) >= len("--ou") and any(long.startswith(option) for long in _LONG)
