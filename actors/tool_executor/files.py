"""Files as the tools see them: resolved paths, what the session has read, atomic writes, diffs.

Everything here is blocking and runs in a worker thread (``anyio.to_thread.run_sync``); the
ledger itself is touched only from the event loop.
"""

from __future__ import annotations

import difflib
import hashlib
import os
import stat
from dataclasses import dataclass

from actors.atomic import write_atomically
from actors.errors import ToolFailure

# Bytes sniffed for a NUL to call a file binary (git and ripgrep look at the start the same way).
SNIFF_BYTES = 8192
# Diffing is quadratic at worst; past this many characters the preview is left out.
DIFF_LIMIT = 1_000_000


def resolve_path(raw: str, root: str) -> str:
    """An absolute, normalised path; relative ones are taken from the project root."""
    return os.path.normpath(os.path.join(root, os.path.expanduser(raw)))


@dataclass(frozen=True, slots=True)
class FileStamp:
    """What a file was when the session last read or wrote it."""

    mtime_ns: int
    size: int
    digest: bytes

    @classmethod
    def of(cls, st: os.stat_result, data: bytes) -> FileStamp:
        return cls(st.st_mtime_ns, st.st_size, hashlib.sha256(data).digest())


class ReadLedger:
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


def read_checked(real: str, shown: str, stamp: FileStamp | None, verb: str) -> tuple[bytes, int]:
    """The current bytes and mode of a file the session may change, else a ToolFailure.

    The content decides freshness: a file whose mtime moved but whose bytes are the same (a
    ``touch``, a formatter that changed nothing) is still what the model saw.
    """
    if stamp is None:
        raise ToolFailure(
            f"{shown} has not been read in this session. Read it first, then {verb} it."
        )
    with open(real, "rb") as file:
        st = os.fstat(file.fileno())
        data = file.read()
    if st.st_size != stamp.size or hashlib.sha256(data).digest() != stamp.digest:
        raise ToolFailure(
            f"{shown} has changed on disk since it was last read (by the user or another "
            f"program). Read it again, then {verb} it."
        )
    return data, stat.S_IMODE(st.st_mode)


def write_if_unchanged(
    real: str, shown: str, expected: bytes | None, data: bytes, *, mode: int | None
) -> FileStamp:
    """``atomic_write``, if the file is still what the call planned on (``None``: absent).

    Checked again just before writing, because the user may take a while to allow the change.
    """
    try:
        with open(real, "rb") as file:
            unchanged = file.read() == expected
    except FileNotFoundError:
        unchanged = expected is None
    if not unchanged:
        raise ToolFailure(
            f"{shown} changed on disk while the change waited for permission. "
            "Read it again, then retry."
        )
    return atomic_write(real, data, mode=mode)


def atomic_write(real: str, data: bytes, *, mode: int | None) -> FileStamp:
    """Replace ``real`` with ``data`` atomically (``actors/atomic.py``); the new file's stamp."""
    write_atomically(real, data, mode=mode)
    return FileStamp.of(os.stat(real), data)


def unified_diff(old: str | None, new: str, path: str) -> str | None:
    """A unified diff from ``old`` (``None``: the file is new) to ``new``; ``None`` if too big."""
    if len(old or "") + len(new) > DIFF_LIMIT:
        return None
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
