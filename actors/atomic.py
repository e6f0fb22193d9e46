"""Writing a file so that no reader, and no crash, ever sees half of it.

Every write Legato makes to a user's files goes through here: the tool executor's Write and
Edit, ``/undo`` restoring a checkpoint, the pattern counts. The bytes go to a temporary file in
the same directory (``os.replace`` is atomic only within one file system), are flushed to disk,
and are renamed over the target.

Only SIGKILL (or a power cut) can leave the temporary file behind: it is named
``.NAME.PID-RANDOM.legato-tmp`` after its writer, and the next write of ``NAME`` removes those
whose writer is gone (issue 3).
"""

from __future__ import annotations

import contextlib
import os
import secrets

# What a temporary file's name ends with (for .gitignore: ``*.legato-tmp``).
TEMP_SUFFIX = "legato-tmp"


def write_atomically(path: str, data: bytes, *, mode: int | None = None) -> None:
    """Replace ``path`` with ``data``, creating missing folders.

    ``mode`` sets the permissions; without it an existing file keeps its own and a new file gets
    0o666 minus the umask, as ``open`` would give it.
    """
    parent, name = os.path.split(path)
    os.makedirs(parent, exist_ok=True)
    if mode is None:
        with contextlib.suppress(FileNotFoundError):
            mode = os.stat(path).st_mode & 0o7777
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
        os.replace(temp, path)
        replaced = True
    finally:
        if not replaced:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temp)
    _sync_directory(parent)


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
