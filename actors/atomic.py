"""Writing a file so that no reader, and no crash, ever sees half of it.

Every write Legato makes to a user's files goes through here: the tool executor's Write and
Edit, ``/undo`` restoring a checkpoint (both through the executor's door, which hands over a
directory it has checked), the pattern counts. The bytes go to a temporary file in the same
directory (``os.replace`` is atomic only within one file system), are flushed to disk, and are
renamed over the target.

Everything happens relative to one open directory (``dir_fd``): the temporary file, the rename
and the clean-up all name the directory that was opened, so a folder swapped for a symlink
after it was opened cannot send the bytes elsewhere.

Only SIGKILL (or a power cut) can leave the temporary file behind: it is named
``.NAME.PID-RANDOM.legato-tmp`` after its writer, and the next write of ``NAME`` removes those
whose writer is gone.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat

# What a temporary file's name ends with (for .gitignore: ``*.legato-tmp``).
TEMP_SUFFIX = "legato-tmp"

_DIRECTORY = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC


def write_atomically(path: str, data: bytes, *, mode: int | None = None) -> None:
    """Replace ``path`` with ``data``, creating missing folders (Legato's own files).

    ``mode`` sets the permissions; without it an existing file keeps its own and a new file gets
    0o666 minus the umask, as ``open`` would give it.
    """
    parent, name = os.path.split(path)
    os.makedirs(parent, exist_ok=True)
    folder = os.open(parent, _DIRECTORY)
    try:
        write_in_directory(folder, name, data, mode=mode)
    finally:
        os.close(folder)


def write_in_directory(folder: int, name: str, data: bytes, *, mode: int | None = None) -> None:
    """Replace ``name`` in the open directory ``folder`` with ``data``; ``mode`` as above."""
    if mode is None:
        with contextlib.suppress(FileNotFoundError):
            current = os.stat(name, dir_fd=folder, follow_symlinks=False)
            if stat.S_ISREG(current.st_mode):
                mode = stat.S_IMODE(current.st_mode)
    _remove_orphans(folder, name)
    temp = f".{name}.{os.getpid()}-{secrets.token_hex(4)}.{TEMP_SUFFIX}"
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
    fd = os.open(temp, flags, 0o666, dir_fd=folder)
    replaced = False
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(data)
            file.flush()
            if mode is not None:
                os.fchmod(file.fileno(), mode)
            os.fsync(file.fileno())
        os.replace(temp, name, src_dir_fd=folder, dst_dir_fd=folder)
        replaced = True
    finally:
        if not replaced:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temp, dir_fd=folder)
    # Makes the rename itself durable; best effort, as not every file system allows it.
    with contextlib.suppress(OSError):
        os.fsync(folder)


def _remove_orphans(folder: int, name: str) -> None:
    """Remove temporary files for ``name`` left by a writer that was killed outright."""
    prefix = f".{name}."
    with contextlib.suppress(OSError), os.scandir(folder) as entries:
        for entry in entries:
            if not (entry.name.startswith(prefix) and entry.name.endswith(f".{TEMP_SUFFIX}")):
                continue
            writer = entry.name[len(prefix) :].split("-", 1)[0]
            if writer.isdigit() and not _alive(int(writer)):
                with contextlib.suppress(OSError):
                    os.unlink(entry.name, dir_fd=folder)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's process: maybe another user's Legato, leave its file be
    return True
