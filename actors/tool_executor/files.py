"""Files as the tools see them: resolved paths, what the session has read, atomic writes, diffs.

Everything here is blocking and runs in a worker thread (``anyio.to_thread.run_sync``); the
ledger itself is touched only from the event loop.
"""

from __future__ import annotations

import contextlib
import difflib
import hashlib
import os
import secrets
import stat
from dataclasses import dataclass

from actors.errors import ToolFailure

# Bytes sniffed for a NUL to call a file binary (git and ripgrep look at the start the same way).
SNIFF_BYTES = 8192
# Diffing is quadratic at worst; past this many characters the preview is left out.
DIFF_LIMIT = 1_000_000
# What a temporary file's name ends with (for .gitignore: ``*.legato-tmp``).
TEMP_SUFFIX = "legato-tmp"


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
    """Replace ``real`` with ``data`` so that no reader ever sees a partial file.

    The bytes go to a temporary file in the same directory (``os.replace`` is atomic only within
    one file system), are flushed to disk, and then renamed over the target. ``mode`` keeps an
    existing file's permissions; a new file gets 0o666 minus the umask, as ``open`` would give it.

    Only SIGKILL (or a power cut) can leave the temporary file behind: it is named
    ``.NAME.PID-RANDOM.legato-tmp`` after its writer, and the next write of ``NAME`` removes
    those whose writer is gone (issue 3).
    """
    parent, name = os.path.split(real)
    os.makedirs(parent, exist_ok=True)
    _remove_orphans(parent, name)
    temp = os.path.join(parent, f".{name}.{os.getpid()}-{secrets.token_hex(4)}.{TEMP_SUFFIX}")
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o666)
    replaced = False
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
            file.flush()
            if mode is not None:
                os.fchmod(file.fileno(), mode)
            os.fsync(file.fileno())
        os.replace(temp, real)
        replaced = True
    finally:
        if not replaced:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temp)
    _sync_directory(parent)
    return FileStamp.of(os.stat(real), data)


def _remove_orphans(parent: str, name: str) -> None:
    """Remove temporary files for ``name`` left by a writer that was killed outright."""
    prefix = f".{name}."
    with contextlib.suppress(OSError), os.scandir(parent) as entries:
        for entry in entries:
            if not (entry.name.startswith(prefix) and entry.name.endswith(f".{TEMP_SUFFIX}")):
                continue
            writer = entry.name[len(prefix) :].split("-", 1)[0]
            if writer.isdigit() and not _alive(int(writer)):
                with contextlib.suppress(OSError):
                    os.unlink(entry.path)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process: maybe another user's Legato, leave its file be
    return True


def _sync_directory(path: str) -> None:
    """Make the rename itself durable; best effort, as not every file system allows it."""
    with contextlib.suppress(OSError):
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(fd)
        finally:
            os.close(fd)


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
