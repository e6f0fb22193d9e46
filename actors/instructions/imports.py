"""``@path`` imports in an instruction file: where they are, and what each names.

The syntax is the reference assistant's (its memory docs): ``@`` at the start of a word, then
a path, relative to the importing file, ``~/`` for the home folder, or absolute. Nothing in a
fenced code block, a code span or an HTML comment is an import: that is how a file mentions a
path without importing it. A word without a ``/`` or a ``.`` (``@alice``, ``@property``) that
names no file is a mention, not a broken import.
"""

from __future__ import annotations

import os
import re

from actors.places import within
from actors.settings import DEFAULT_DENY_READ

# An ``@`` that starts a word (not ``a@b.com``), then the path, up to whitespace.
_REF = re.compile(r"(?:(?<=\s)|(?<=^)|(?<=[(\[]))@(\S+)")
_SPAN = re.compile(r"(`+).*?\1")
_FENCE = re.compile(r"^\s{0,3}(```+|~~~+)")
_COMMENT = re.compile(r"<!--.*?(-->|$)")
# Prose around a path: "see @docs/style.md." or "(@notes.md)".
_TRAILING = ".,;:!?)]'\""


def references(text: str) -> list[tuple[int, str]]:
    """Each import as (line number, path as written), in the file's order."""
    found: list[tuple[int, str]] = []
    fence: str | None = None
    in_comment = False
    for number, line in enumerate(text.split("\n"), start=1):
        opening = _FENCE.match(line)
        if fence is not None:
            if opening and opening.group(1)[0] == fence[0] and len(opening.group(1)) >= len(fence):
                fence = None
            continue
        if opening:
            fence = opening.group(1)
            continue
        if in_comment:
            end = line.find("-->")
            if end < 0:
                continue
            line, in_comment = line[end + 3 :], False
        line = _SPAN.sub(lambda span: " " * len(span.group(0)), line)
        line, in_comment = _without_comments(line)
        for match in _REF.finditer(line):
            path = match.group(1).rstrip(_TRAILING)
            if path:
                found.append((number, path))
    return found


def _without_comments(line: str) -> tuple[str, bool]:
    """The line without its HTML comments; whether one is still open at its end."""
    still_open = False

    def blank(comment: re.Match[str]) -> str:
        nonlocal still_open
        still_open = comment.group(1) == ""
        return " "

    return _COMMENT.sub(blank, line), still_open


def looks_like_path(ref: str) -> bool:
    """Whether a reference that names no file is worth a warning: a path, not a mention."""
    return "/" in ref or "." in ref


def named_path(ref: str, importer: str, home: str) -> str:
    """The absolute path an import names, before links are followed."""
    if ref == "~" or ref.startswith("~/"):
        path = os.path.join(home, ref[2:])
    elif ref.startswith("/"):
        path = ref
    else:
        path = os.path.join(os.path.dirname(importer), ref)
    return os.path.normpath(path)


def secret_place(paths: tuple[str, ...], home: str) -> str | None:
    """The credentials' place (``~/.ssh``, Legato's own folders...) any of ``paths`` lies in.

    Never imported, approved or not: an instruction file has no need of a key, and a question
    a person answers in a hurry must not be all that stands between a cloned repository and
    ``~/.ssh/id_rsa`` in every request.
    """
    for entry in DEFAULT_DENY_READ:
        place = os.path.join(home, entry[2:])
        for folder in dict.fromkeys((place, os.path.realpath(place))):
            inside = [path for path in paths if within(path, folder)]
            if entry == _NOTES_PLACE and inside and all(_notes(p, folder) for p in inside):
                continue
            if inside:
                return entry
    return None


# The reference's docs share personal instructions across worktrees with an import of
# ~/.claude/<name>.md. That folder holds its credentials file and its transcripts (under
# projects/), so only a markdown file at its top is let through, and from a project's file
# only with the person's approval, as any import from outside the project.
_NOTES_PLACE = "~/.claude"


def _notes(path: str, folder: str) -> bool:
    name = os.path.basename(path)
    return os.path.dirname(path) == folder and name.endswith(".md") and not name.startswith(".")
