"""The one door to project files: resolve a path once, let it be checked, open what was checked.

Read, Write, Edit, ``@path`` attachments and ``/undo``'s checkpoints all open files through
these few functions, never with ``open(path)`` of their own:

1. ``locate`` validates the name (no NUL byte, no name longer than the system takes), resolves
   it once with ``os.path.realpath`` and refuses ``/proc``, ``/dev`` and ``/sys``, as named and
   as resolved (a symlink in the project that leads into ``/proc`` is refused too).
2. The caller asks the permission broker about that ``Target``: the path as named and the real
   path, and how many names (hard links) the file has.
3. ``open_read``, ``write``, ``remove``, ``remove_folder`` and ``list_folder`` open the *real*
   path, never following a symlink at its last component (``O_NOFOLLOW``), and check that what
   they opened is still that path (Linux: ``/proc/self/fd``; elsewhere the inode and a fresh
   ``realpath``). A command
   of the same turn may swap a file or a folder for a symlink between the check and the open;
   then the call fails, saying so, and nothing is read or written. Writes go through a
   descriptor of the checked folder (``actors/atomic.py``), so the rename lands there or nowhere.

Everything here blocks: callers run it in a worker thread.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from typing import TYPE_CHECKING, Literal

import msgspec

from actors.atomic import write_in_directory
from actors.errors import InvalidToolInput, ToolFailure
from actors.places import within as within  # the executor's modules find it here

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator
    from typing import BinaryIO

# What Linux takes: a whole path of PATH_MAX bytes and a name of NAME_MAX bytes.
MAX_PATH_BYTES = 4096
MAX_NAME_BYTES = 255
# Kernel interfaces, not files: reading one can block for ever (/dev/stdin), run without end
# (/dev/zero) or hand over another process's secrets (/proc/<pid>/environ).
SYSTEM_FOLDERS = ("/proc", "/dev", "/sys")

_READ = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK  # NONBLOCK: a FIFO opens
_FOLDER = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC

Purpose = Literal["read", "written", "removed"]


def resolve_path(raw: str, root: str) -> str:
    """An absolute, normalised path; relative ones are taken from the project root."""
    return os.path.normpath(os.path.join(root, os.path.expanduser(raw)))


class Target(msgspec.Struct, frozen=True):
    """A path as it was checked: as named (absolute) and as resolved."""

    shown: str
    real: str
    links: int = 1  # names the file has (st_nlink) when it is a regular file

    def where(self) -> str:
        """The real path, and the name used when that differs: for a tool's result."""
        return self.real if self.shown == self.real else f"{self.real} through {self.shown}"


class Changed(ToolFailure):
    """What was checked is not what would be opened: something swapped it in between."""


def real_path(path: str) -> str:
    """``os.path.realpath`` of a valid absolute path; raises InvalidToolInput for a bad name."""
    check_name(path)
    real = os.path.realpath(path)
    check_name(real)
    return real


def check_name(path: str) -> None:
    if "\0" in path:
        raise InvalidToolInput(f"Invalid path {path!r}: it contains a NUL byte, which no name can.")
    size = len(os.fsencode(path))
    if size > MAX_PATH_BYTES:
        raise InvalidToolInput(
            f"Invalid path: it is {size} bytes long, and the limit is {MAX_PATH_BYTES}."
        )
    for name in path.split(os.sep):
        size = len(os.fsencode(name))
        if size > MAX_NAME_BYTES:
            raise InvalidToolInput(
                f"Invalid path: the name {name[:40]!r}… is {size} bytes long, and the limit is "
                f"{MAX_NAME_BYTES}."
            )


def locate(raw: str, root: str) -> Target:
    """The path ``raw`` names (relative ones from ``root``), resolved once, ready to check."""
    shown = resolve_path(raw, root)
    real = real_path(shown)
    for path in dict.fromkeys((shown, real)):
        if any(within(path, top) for top in SYSTEM_FOLDERS):
            raise ToolFailure(
                f"Legato's file tools do not read or write /proc, /dev or /sys ({path}). "
                "Use Bash to look at system files."
            )
    try:
        st = os.lstat(real)
    except OSError:  # absent, or not reachable: opening it says which
        return Target(shown, real)
    return Target(shown, real, st.st_nlink if stat.S_ISREG(st.st_mode) else 1)


def open_read(target: Target, purpose: Purpose = "read") -> BinaryIO:
    """The checked file, open for reading (a pipe or device too: callers look at ``fstat``).

    Raises FileNotFoundError when it does not exist, IsADirectoryError for a folder, Changed
    when it is no longer what was checked; ``purpose`` says what the failed call would have
    done ("nothing was written").
    """
    try:
        fd = os.open(target.real, _READ)
    except OSError as error:
        if error.errno == errno.ELOOP:  # the name itself became a symlink
            raise _changed(target, target.real, purpose) from None
        raise
    try:
        if not _still(fd, target.real):
            raise _changed(target, target.real, purpose)
        st = os.fstat(fd)
        if stat.S_ISDIR(st.st_mode):
            raise IsADirectoryError(errno.EISDIR, "Is a directory", target.shown)
        if stat.S_ISREG(st.st_mode) and st.st_nlink > target.links:
            # The broker was told of fewer names: another may be a blocked file's.
            raise Changed(
                f"{target.shown} changed while it was being checked (it has {st.st_nlink} names "
                f"now, hard links); nothing was {purpose}."
            )
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def write(target: Target, data: bytes, *, mode: int | None = None) -> os.stat_result:
    """Replace the checked file with ``data`` atomically, in its checked folder (made if
    missing); the new file's ``stat``."""
    parent, name = os.path.split(target.real)
    with _folder_of(target, parent, "written", create=True) as folder:
        try:
            now = os.stat(name, dir_fd=folder, follow_symlinks=False)
        except FileNotFoundError:
            pass
        else:
            if stat.S_ISLNK(now.st_mode):
                raise _changed(target, target.real, "written")
        write_in_directory(folder, name, data, mode=mode)
        return os.stat(name, dir_fd=folder, follow_symlinks=False)


def remove(target: Target) -> None:
    """Remove the checked file (``/undo`` of a file a prompt created)."""
    parent, name = os.path.split(target.real)
    with _folder_of(target, parent, "removed", create=False) as folder:
        os.unlink(name, dir_fd=folder)


def remove_folder(target: Target) -> None:
    """Remove the checked folder if it is empty (``/undo`` of a folder a command created);
    OSError if it is not."""
    parent, name = os.path.split(target.real)
    with _folder_of(target, parent, "removed", create=False) as folder:
        os.rmdir(name, dir_fd=folder)


def list_folder(target: Target) -> list[str]:
    """The checked folder's entries, sorted, folders marked with a trailing ``/``."""
    with (
        _folder_of(target, target.real, "read", create=False) as folder,
        os.scandir(folder) as entries,
    ):
        names = [entry.name + ("/" if entry.is_dir() else "") for entry in entries]
    return sorted(names)


@contextlib.contextmanager
def _folder_of(target: Target, path: str, purpose: Purpose, *, create: bool) -> Iterator[int]:
    try:
        folder = _open_folder(path, create=create)
    except _Swapped as swapped:
        raise _changed(target, swapped.path, purpose) from None
    try:
        yield folder
    finally:
        os.close(folder)


class _Swapped(Exception):
    def __init__(self, path: str) -> None:
        super().__init__(path)
        self.path = path


def _open_folder(path: str, *, create: bool) -> int:
    """A descriptor of the folder ``path`` names, checked to be that folder; missing folders
    are made one by one, each inside the checked one above it."""
    try:
        fd = os.open(path, _FOLDER)
    except FileNotFoundError:
        parent, name = os.path.split(path)
        if not create or not name:
            raise
        above = _open_folder(parent, create=True)
        try:
            with contextlib.suppress(FileExistsError):
                os.mkdir(name, dir_fd=above)
            # Opened by name inside a checked folder, without following: checked too.
            return _no_symlink(path, lambda: os.open(name, _FOLDER, dir_fd=above))
        finally:
            os.close(above)
    except OSError as error:
        raise _swapped_or(error, path) from None
    if not _still(fd, path):
        os.close(fd)
        raise _Swapped(path)
    return fd


def _no_symlink(path: str, opening: Callable[[], int]) -> int:
    try:
        return opening()
    except OSError as error:
        raise _swapped_or(error, path) from None


def _swapped_or(error: OSError, path: str) -> Exception:
    """``_Swapped`` if ``error`` came from a symlink where a folder was, else ``error``."""
    # O_NOFOLLOW|O_DIRECTORY on a symlink fails with ENOTDIR (Linux) or ELOOP (BSD, macOS).
    if error.errno in (errno.ENOTDIR, errno.ELOOP) and os.path.islink(path):
        return _Swapped(path)
    return error


def _still(fd: int, path: str) -> bool:
    """Whether the open ``fd`` is the file ``path`` names, reached without a symlink."""
    where = _opened(fd)
    if where is not None:
        return where == path
    # No /proc (macOS, BSD): the path must still resolve to itself, and to this very file.
    try:
        now = os.stat(path, follow_symlinks=False)
    except OSError:
        return False
    opened = os.fstat(fd)
    same = (opened.st_dev, opened.st_ino) == (now.st_dev, now.st_ino)
    return same and os.path.realpath(path) == path


def _opened(fd: int) -> str | None:
    """The path the kernel has for an open file (Linux), None where it cannot say."""
    try:
        return os.readlink(f"/proc/self/fd/{fd}")
    except OSError:
        return None


def _changed(target: Target, path: str, purpose: Purpose) -> Changed:
    """The failure for a swap found at ``path`` (the target or a folder above it)."""
    link = _first_link(path)
    if link is None:
        how = f"it now leads to {os.path.realpath(path)}"
    else:
        what = "it" if link == target.real else f"the folder {link}"
        how = f"{what} is now a symlink to {os.readlink(link)}"
    return Changed(
        f"{target.shown} changed while it was being checked ({how}); nothing was {purpose}."
    )


def _first_link(path: str) -> str | None:
    """The first folder on ``path``, or ``path`` itself, that is a symlink now."""
    parts = path.split(os.sep)
    for end in range(2, len(parts) + 1):
        prefix = os.sep.join(parts[:end])
        if os.path.islink(prefix):
            return prefix
    return None
