"""Under Landlock, what must stay read-only inside the project is put back after each command.

Landlock cannot make a path inside the writable project read-only (a right on a folder holds
for everything in it), so ``.legato/``, git's config-bearing files and the files hooks and MCP
servers run are writable to a command there. What the sandbox would have kept is therefore
read before the command and, when the command has changed it (written, created, removed,
replaced by a link), written back as it was once the command's group has ended: a planted
``.git/commondir`` or hook does not wait for the user's next ``git status``. The command's
result says what was put back.

Not a wall: a program the user runs while the command still runs sees the change, a process
that left the command's group (``setsid``) can write after the check, and a change the user
makes by hand during a command is put back with the command's. A folder past ``MAX_ENTRIES``
entries or ``MAX_BYTES`` is not watched.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import stat
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

import anyio

from actors.git_files import read_small
from actors.visible import escape_controls

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Sequence

MAX_ENTRIES = 2000  # files, links and folders under one watched path
MAX_BYTES = 16 << 20  # their contents, together

# What a path held: ("file", mode, bytes), ("link", target), ("folder", mode), or None (none).
Entry = tuple[str, int, bytes] | tuple[str, str] | tuple[str, int] | None
Tree = dict[str, Entry]  # relative name ("" for the path itself) -> what it held


class _TooBig(Exception):
    pass


@asynccontextmanager
async def putting_back(paths: Sequence[str], project: str) -> AsyncIterator[list[str]]:
    """Read ``paths`` now, and when the block ends (cancelled too) put back the ones that
    changed; the list the block gets holds their names, relative to ``project``, by then."""
    changed: list[str] = []
    if not paths:
        yield changed
        return
    kept = await anyio.to_thread.run_sync(take, paths)
    try:
        yield changed
    finally:
        with anyio.CancelScope(shield=True), anyio.move_on_after(5):
            changed += await anyio.to_thread.run_sync(put_back, kept, project)


def put_back_line(names: Sequence[str]) -> str:
    """What the command's result says about what was put back."""
    shown = ", ".join(f"'{escape_controls(name)}'" for name in names)
    return (
        f"Legato put back {shown} as before the command: commands may not change it "
        "(Landlock cannot keep it read-only, so changes are undone after the command)."
    )


def take(paths: Sequence[str]) -> dict[str, Tree]:
    """What each path holds now; a path too big to watch is left out."""
    kept: dict[str, Tree] = {}
    for path in paths:
        with contextlib.suppress(_TooBig, OSError):
            kept[path] = _tree(path)
    return kept


def put_back(kept: dict[str, Tree], project: str) -> list[str]:
    """Make each path hold what ``kept`` says it held; the names of those that had changed."""
    changed: list[str] = []
    for path, before in kept.items():
        try:
            now = _tree(path)
        except _TooBig:
            now = {}
        except OSError:
            continue
        if now == before:
            continue
        with contextlib.suppress(OSError):
            _remove(path)
            for name, entry in sorted(before.items()):
                _make(os.path.join(path, name) if name else path, entry)
            changed.append(os.path.relpath(path, project))
    return changed


def _tree(path: str) -> Tree:
    tree: Tree = {}
    budget = [MAX_ENTRIES, MAX_BYTES]
    tree[""] = _entry(path, budget)
    if tree[""] is not None and tree[""][0] == "folder":
        for folder, folders, files in os.walk(path):
            for name in (*folders, *files):
                full = os.path.join(folder, name)
                tree[os.path.relpath(full, path)] = _entry(full, budget)
    return tree


def _entry(path: str, budget: list[int]) -> Entry:
    budget[0] -= 1
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return None
    if stat.S_ISLNK(info.st_mode):
        return ("link", os.readlink(path))
    if stat.S_ISDIR(info.st_mode):
        return ("folder", stat.S_IMODE(info.st_mode))
    budget[1] -= info.st_size
    if budget[0] < 0 or budget[1] < 0 or not stat.S_ISREG(info.st_mode):
        raise _TooBig(path)  # a FIFO or a device here is not ours to copy either
    # Read as git's files are, never through a link nor from a FIFO: a process that left the
    # command's group may have swapped either in since the look above.
    data = read_small(path, MAX_BYTES + 1, follow=False)
    if data is None or len(data) > MAX_BYTES:
        raise _TooBig(path)
    return ("file", stat.S_IMODE(info.st_mode), data)


def _remove(path: str) -> None:
    if os.path.isdir(path) and not os.path.islink(path):
        shutil.rmtree(path)
    elif os.path.lexists(path):
        os.unlink(path)


def _make(path: str, entry: Entry) -> None:
    if entry is None:
        return
    if entry[0] == "link":
        os.symlink(str(entry[1]), path)
    elif entry[0] == "folder":
        os.makedirs(path, exist_ok=True)
        os.chmod(path, int(entry[1]))
    elif len(entry) == 3:
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        fd = os.open(path, flags, int(entry[1]))
        with open(fd, "wb") as file:
            file.write(entry[2])
        os.chmod(path, int(entry[1]))
