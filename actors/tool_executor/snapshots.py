"""What a batch's shell commands changed in the project, for ``/undo``.

A command can change any file, and what it holds before has to be known before it runs. So,
before a batch that runs a command, the executor records the project as it is
(``open_watch``): the files the project walk lists (``ripgrep.files``: the walk Glob and
``@path`` completion make, less ``.git``, the tool folders and what ``.gitignore`` leaves out),
each with its ``stat`` and, for text files up to ``MAX_COPY`` bytes, a copy of its bytes. Once
the batch is done (``settle``) a second walk is compared with the first: the files created,
deleted and modified, each with its content before, become entries of the prompt's checkpoint.

Reading a whole project before every command would cost too much, so the copies are kept for
the session (``Store``): a file is read again only when its ``stat`` changed (device, inode,
size, modification and change times), and the copies held stay under ``MAX_STORE`` bytes. A
file too large, binary or past that cap is recorded by its ``stat`` alone: a change to it is
seen and named by ``/undo``, not undone. A file the permission rules block is never read, and
a change to it is counted, never named: what ``/undo`` says goes to the model too. A project of
more than ``MAX_FILES`` files is not walked at all, and the checkpoint says so.

A file whose times fall within the file system's clock step of the walk could change again
without its ``stat`` changing; as git does with such "racy" files, ``settle`` compares the
content of those it holds a copy of.
"""

from __future__ import annotations

import contextlib
import os
import stat
import threading
import time
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import anyio
import anyio.to_thread
import msgspec

from actors import door
from actors.errors import ToolFailure
from actors.protocol import FileBefore, NotKept, Settled

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Iterable

    # Which of these absolute paths the permission rules block, one flag each.
    Blocked = Callable[[tuple[str, ...]], Awaitable[tuple[bool, ...]]]

MAX_COPY = 2 * 2**20  # a file larger than this is named, not copied
MAX_STORE = 64 * 2**20  # the copies a session holds in memory, in all
MAX_FILES = 20_000  # a project with more files is not walked before commands
# A file modified this close to the walk may change again within the same clock step.
RACY_NS = 1_000_000_000
SNIFF = 8000  # bytes looked at for a NUL, as git does, to tell a binary file
OPEN_WATCHES = 16  # batches whose record is kept until settled (more: the oldest is dropped)
_BLOCKED_BATCH = 4096  # paths per FindBlocked message


def size_text(size: int) -> str:
    return f"{size / 2**20:g} MB" if size >= 2**20 else f"{size // 1024} KB"


TOO_LARGE = f"it is larger than {size_text(MAX_COPY)}"
BINARY = "it is binary"
BLOCKED = "the permission rules block it"
STORE_FULL = f"the copies kept for this session reached {size_text(MAX_STORE)}"
CHANGING = "it was changing while it was read"


def room_full(room: int) -> str:
    return f"the copies kept for that prompt reached their limit ({size_text(room)} left)"


@dataclass(frozen=True, slots=True)
class Seen:
    """A file as a walk met it: its ``stat`` and, where one was kept, a copy of its bytes."""

    key: tuple[int, int, int, int, int]  # device, inode, size, mtime_ns, ctime_ns
    real: str
    mode: int
    content: bytes | None = None  # None: no copy, for ``why``
    why: str = ""


@dataclass(slots=True)
class Watch:
    """The project as it was before one batch."""

    order: int
    commands: tuple[str, ...]
    files: dict[str, Seen]
    started_ns: int  # the clock when the walk began, for racy files

    @property
    def by(self) -> str:
        if len(self.commands) == 1:
            return self.commands[0]
        return "; ".join(_first_line(command) for command in self.commands)


@dataclass(slots=True)
class Store:
    """The session's copies, from the latest walk, and the records of unsettled batches."""

    root: str
    files: dict[str, Seen] = field(default_factory=dict)
    held: int = 0  # bytes of the copies in ``files``
    watches: dict[int, Watch] = field(default_factory=dict)
    # One walk at a time updates the copies (a subagent's batch may come with the session's).
    lock: anyio.Lock = field(default_factory=anyio.Lock)
    # A walk went past MAX_FILES: later batches do not pay for finding that out again.
    too_large: bool = False


# ── the walk ────────────────────────────────────────────────────────────────────────────────


async def listing(root: str) -> dict[str, tuple[os.stat_result, str]] | None:
    """Every regular file the project walk lists, by path: its ``stat`` and real path; None
    past MAX_FILES. Each batch is looked at while the walk goes on."""
    from actors.tool_executor.ripgrep import files

    found: dict[str, tuple[os.stat_result, str]] = {}
    stop = threading.Event()
    try:
        async with contextlib.aclosing(files(root, root, stop)) as walked:
            async for batch in walked:
                pairs = [(hit.path, hit.real) for hit in batch]
                found.update(await anyio.to_thread.run_sync(look, pairs, abandon_on_cancel=True))
                if len(found) > MAX_FILES:
                    return None
    finally:
        stop.set()  # an abandoned walk stops at its next folder
    return found


def look(listed: Iterable[tuple[str, str]]) -> dict[str, tuple[os.stat_result, str]]:
    """The ``stat`` of each listed file that is a regular file still."""
    seen: dict[str, tuple[os.stat_result, str]] = {}
    for path, real in listed:
        try:
            st = os.stat(real, follow_symlinks=False)
        except OSError:
            continue  # gone since it was listed
        if stat.S_ISREG(st.st_mode):
            seen[path] = (st, real)
    return seen


def _key(st: os.stat_result) -> tuple[int, int, int, int, int]:
    return (st.st_dev, st.st_ino, st.st_size, st.st_mtime_ns, st.st_ctime_ns)


# ── before a batch ──────────────────────────────────────────────────────────────────────────


async def open_watch(
    store: Store, order: int, commands: tuple[str, ...], blocked: Blocked
) -> tuple[str, ...]:
    """Record the project before a batch that runs ``commands``; what could not be recorded
    (empty when all was)."""
    async with store.lock:
        return await _open_watch(store, order, commands, blocked)


async def _open_watch(
    store: Store, order: int, commands: tuple[str, ...], blocked: Blocked
) -> tuple[str, ...]:
    started = time.time_ns()
    if store.too_large:
        return (not_recorded(),)
    seen = await listing(store.root)
    if seen is None:
        store.too_large = True
        return (not_recorded(),)
    fresh = await anyio.to_thread.run_sync(_fresh, store, seen)
    # Every fresh file, large ones too: a blocked file is neither copied nor named.
    refused = await _blocked(blocked, fresh)
    files = await anyio.to_thread.run_sync(
        _record, store, seen, set(fresh), refused, abandon_on_cancel=True
    )
    store.files = files
    if len(store.watches) >= OPEN_WATCHES:
        del store.watches[min(store.watches)]
    store.watches[order] = Watch(order, commands, files, started)
    return ()


def _fresh(store: Store, seen: dict[str, tuple[os.stat_result, str]]) -> list[str]:
    """The files to read again: new, changed since, or not copied for a reason that may
    have passed."""
    return [
        path
        for path, (st, _) in seen.items()
        if (old := store.files.get(path)) is None
        or old.key != _key(st)
        or old.why in (CHANGING, STORE_FULL)
    ]


def not_recorded() -> str:
    return (
        f"What shell commands changed was not recorded: the project has more than "
        f"{MAX_FILES:,} files to look at."
    )


async def _blocked(blocked: Blocked, paths: list[str]) -> set[str]:
    refused: set[str] = set()
    for start in range(0, len(paths), _BLOCKED_BATCH):
        part = tuple(paths[start : start + _BLOCKED_BATCH])
        flags = await blocked(part)
        refused.update(path for path, no in zip(part, flags, strict=True) if no)
    return refused


def _record(
    store: Store,
    seen: dict[str, tuple[os.stat_result, str]],
    fresh: set[str],
    refused: set[str],
) -> dict[str, Seen]:
    """Each file as now, the copies of unchanged ones carried over and changed ones read."""
    files: dict[str, Seen] = {}
    held = 0  # the copies' bytes, kept under MAX_STORE
    for path in seen:
        old = store.files.get(path)
        if path not in fresh and old is not None:
            files[path] = old
            held += len(old.content) if old.content is not None else 0
    for path in fresh:
        st, real = seen[path]
        mode = stat.S_IMODE(st.st_mode)
        if path in refused:
            why = BLOCKED
        elif st.st_size > MAX_COPY:
            why = TOO_LARGE
        elif held + st.st_size > MAX_STORE:
            why = STORE_FULL
        else:
            try:
                content, st = _read(path, real, st)
            except (OSError, ToolFailure):
                continue  # gone, or swapped for something else: the next walk sees it as it is
            if content is None:
                why = CHANGING
            elif b"\0" in content[:SNIFF]:
                why = BINARY
            else:
                files[path] = Seen(_key(st), real, mode, content)
                held += len(content)
                continue
        files[path] = Seen(_key(st), real, mode, why=why)
    store.held = held
    return files


def _read(path: str, real: str, st: os.stat_result) -> tuple[bytes | None, os.stat_result]:
    """The file's bytes through the door, None if it changed while being read."""
    with door.open_read(door.Target(path, real, st.st_nlink)) as file:
        before = os.fstat(file.fileno())
        if not stat.S_ISREG(before.st_mode):
            raise ToolFailure("not a regular file")
        content = file.read(MAX_COPY + 1)
        after = os.fstat(file.fileno())
    if _key(before) != _key(after) or len(content) != after.st_size:
        return None, after
    return content, after


# ── after it ────────────────────────────────────────────────────────────────────────────────


async def settle(
    store: Store,
    order: int,
    taken: frozenset[str],
    room: int | None,
    *,
    background: bool,
    blocked: Blocked,
) -> Settled:
    """What changed since the batch ``order`` was recorded; its record is dropped."""
    watch = store.watches.pop(order, None)
    if watch is None:
        return Settled()
    now = await listing(store.root)
    if now is None:
        return Settled(notes=(f"{not_recorded()[:-1]} after `{_first_line(watch.by)}` ran.",))
    created = [path for path in now if path not in watch.files and path not in taken]
    refused = await _blocked(blocked, created)
    settled = await anyio.to_thread.run_sync(
        _compare, store.root, watch, now, taken, room, refused, abandon_on_cancel=True
    )
    if background:
        note = (
            "A background command was still running when that batch ended: what it changed "
            "afterwards was not recorded."
        )
        settled = msgspec.structs.replace(settled, notes=(*settled.notes, note))
    return settled


def _compare(
    root: str,
    watch: Watch,
    now: dict[str, tuple[os.stat_result, str]],
    taken: frozenset[str],
    room: int | None,
    refused: set[str],
) -> Settled:
    by, order = watch.by, watch.order
    files: list[FileBefore] = []
    missed: list[NotKept] = []
    hidden = 0  # blocked files changed: counted, never named (the model reads /undo's words)
    left = room
    for path, before in watch.files.items():
        if path in taken:
            continue
        current = now.get(path)
        if current is not None and not _changed(before, current[0], watch.started_ns, path):
            continue
        if before.why == BLOCKED:
            hidden += 1
        elif before.content is None:
            missed.append(NotKept(path, before.why, by))
        elif left is not None and len(before.content) > left:
            missed.append(NotKept(path, room_full(room or 0), by))
        else:
            left = None if left is None else left - len(before.content)
            files.append(FileBefore(path, before.content, before.real, by, before.mode, order))
    # Folders by their real paths: /undo removes one only where its path still leads.
    top = os.path.realpath(root)
    had = _folders(top, (seen.real for seen in watch.files.values()))
    made: dict[str, None] = {}
    for path, (_, real) in now.items():
        if path in watch.files or path in taken:
            continue
        if path in refused:
            hidden += 1  # left as it is: checkpoints never touch a blocked file
            continue
        files.append(FileBefore(path, None, real, by, None, order))
        folder = os.path.dirname(real)
        while folder not in had and door.within(folder, top):
            made[folder] = None
            folder = os.path.dirname(folder)
    # In path order, which a person reads more easily than the walk's.
    files.sort(key=lambda before: before.path)
    missed.sort(key=lambda named: named.path)
    notes = (blocked_note(hidden),) if hidden else ()
    return Settled(files=tuple(files), missed=tuple(missed), folders=tuple(made), notes=notes)


def blocked_note(count: int) -> str:
    """What /undo says of blocked files a command changed: how many, never which."""
    if count == 1:
        return (
            "1 file the permission rules block was changed or made by the commands: /undo "
            "leaves it as it is, unnamed."
        )
    return (
        f"{count} files the permission rules block were changed or made by the commands: "
        "/undo leaves them as they are, unnamed."
    )


def _changed(before: Seen, st: os.stat_result, started_ns: int, path: str) -> bool:
    if before.key != _key(st):
        return True
    if before.content is None or st.st_mtime_ns < started_ns - RACY_NS:
        return False
    try:
        content, _ = _read(path, before.real, st)
    except (OSError, ToolFailure):
        return True
    return content != before.content


def _folders(root: str, files: Iterable[str]) -> set[str]:
    """The folders that held the walked files (an empty folder is not among them: one a
    command fills and ``/undo`` empties is removed with the files)."""
    had = {root}
    for path in files:
        folder = os.path.dirname(path)
        while folder not in had:
            had.add(folder)
            folder = os.path.dirname(folder)
    return had


def _first_line(command: str) -> str:
    lines = command.strip().splitlines()
    return lines[0] if lines else command
