"""Files as the tools see them: paths as named, what the session has read, diffs.

Opening files is ``door.py``'s; changing one the session has read is ``edits.py``'s. What the
session has read (``FilesRead``) is touched only from the event loop.
"""

from __future__ import annotations

import hashlib
import os

import msgspec

from actors.door import resolve_path as resolve_path  # the tools find it here

# Bytes sniffed for a NUL to call a file binary (git and ripgrep look at the start the same way).
SNIFF_BYTES = 8192
# Diffing is quadratic at worst; past this many characters the preview is left out.
DIFF_LIMIT = 1_000_000


def shown_path(raw: str, root: str) -> str:
    """A path as tool lines show it: relative to the project inside it, absolute outside it.

    The project's own folder says nothing the person does not know, and a long temporary or
    home path would push the file's name off the line.
    """
    path = resolve_path(raw, root)
    inside = os.path.relpath(path, root)
    return path if inside == os.pardir or inside.startswith(os.pardir + os.sep) else inside


class FileStamp(msgspec.Struct, frozen=True):
    """What a file was when the session last read or wrote it."""

    mtime_ns: int
    size: int
    digest: bytes

    @classmethod
    def of(cls, st: os.stat_result, data: bytes) -> FileStamp:
        return cls(st.st_mtime_ns, st.st_size, hashlib.sha256(data).digest())


class FilesRead:
    """The files this session has read or written, by real path, for the staleness check.

    Claude Code's rule: a file is changed only after the model has seen its current content.
    """

    def __init__(self) -> None:
        self._stamps: dict[str, FileStamp] = {}

    def record(self, real_path: str, stamp: FileStamp) -> None:
        self._stamps[real_path] = stamp

    def get(self, real_path: str) -> FileStamp | None:
        return self._stamps.get(real_path)


def is_binary(head: bytes) -> bool:
    return b"\0" in head[:SNIFF_BYTES]


def unified_diff(old: str | None, new: str, path: str) -> str | None:
    """A unified diff from ``old`` (``None``: the file is new) to ``new``; ``None`` if too big."""
    if len(old or "") + len(new) > DIFF_LIMIT:
        return None
    import difflib  # with the first edit, not with the tools' list

    lines = difflib.unified_diff(
        _diff_lines(old or ""),
        _diff_lines(new),
        fromfile="/dev/null" if old is None else path,
        tofile=path,
    )
    return "".join(lines)


def _diff_lines(text: str) -> list[str]:
    # Split on "\n" only: str.splitlines would also break at form feeds and U+2028.
    *whole, last = text.split("\n")
    lines = [line + "\n" for line in whole]
    if last:
        lines.append(last + "\n\\ No newline at end of file\n")
    return lines


def count_lines(text: str) -> int:
    return text.count("\n") + (1 if text and not text.endswith("\n") else 0)
