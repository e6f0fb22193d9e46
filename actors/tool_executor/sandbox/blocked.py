"""The project's files that ``blockedPaths`` block, found before each confined command.

The permission broker owns the rules, so it is asked (``FindBlocked``) about every file and
folder of the project; a confined command then finds each blocked one unreadable. Asking about
a whole project for every command would cost too much, so what is learnt is kept for the
session, folder by folder: each folder's listing and which of its entries are blocked, until
the folder's mtime changes (a file added, removed or renamed in it), and the broker's verdict
on each path, since the rules do not change during a session. A command then costs one
``stat`` per folder, and a question only about new names.

Not entered: ``.git`` folders (git's own objects), symlinks to folders (their targets are
judged where they are) and what lies past ``LIMIT`` entries, which ``legato doctor`` reports.
"""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING

import anyio
import msgspec

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    AskBlocked = Callable[[tuple[str, ...]], Awaitable[tuple[bool, ...]]]

LIMIT = 200_000  # files and folders looked at, at most
_BATCH = 5_000  # paths in one question to the broker
# A folder's mtime ticks coarsely (a few ms): a listing taken within this long of its last
# change may miss a name added in the same tick, so it is not reused (git's "racily clean").
_SETTLED_NS = 1_000_000_000


class _Folder(msgspec.Struct):
    mtime: int  # -1: taken too soon after a change to be trusted next time
    entries: tuple[tuple[str, bool], ...]  # (path, is a folder)
    blocked: tuple[tuple[str, bool], ...] | None = None  # None: not judged yet


class ProjectFiles:
    def __init__(self, root: str) -> None:
        self._root = root
        self._folders: dict[str, _Folder] = {}
        self._verdicts: dict[str, bool] = {}
        self._lock = anyio.Lock()  # commands started together share one walk's findings
        self.capped = False

    async def blocked(self, ask: AskBlocked) -> list[tuple[str, bool]]:
        """Every blocked file and folder in the project now, as (path, is a folder)."""
        async with self._lock:
            walked = await anyio.to_thread.run_sync(self._walk)
            fresh = [folder for folder in walked if folder.blocked is None]
            unknown = tuple(
                path for folder in fresh for path, _ in folder.entries if path not in self._verdicts
            )
            for start in range(0, len(unknown), _BATCH):
                batch = unknown[start : start + _BATCH]
                self._verdicts.update(zip(batch, await ask(batch), strict=True))
            for folder in fresh:
                verdicts = self._verdicts
                folder.blocked = tuple(entry for entry in folder.entries if verdicts[entry[0]])
            return [entry for folder in walked for entry in folder.blocked or ()]

    def _walk(self) -> list[_Folder]:
        """The project's folders as they are now, up to ``LIMIT`` entries in all; a folder cut
        short by the limit is returned as a part of itself, judged afresh."""
        walked: list[_Folder] = []
        seen: set[str] = set()
        pending = [self._root]
        count = 0
        self.capped = False
        while pending:
            path = pending.pop()
            seen.add(path)
            folder = self._listing(path)
            if count + len(folder.entries) > LIMIT:
                self.capped = True
                walked.append(_Folder(-1, folder.entries[: LIMIT - count]))
                break
            count += len(folder.entries)
            walked.append(folder)
            pending += [
                entry
                for entry, is_folder in folder.entries
                if is_folder and os.path.basename(entry) != ".git"
            ]
        if not self.capped:
            for gone in self._folders.keys() - seen:  # folders removed since: forget them
                del self._folders[gone]
        return walked

    def _listing(self, path: str) -> _Folder:
        try:
            mtime = os.stat(path).st_mtime_ns
        except OSError:
            return _Folder(-1, ())
        kept = self._folders.get(path)
        if kept is not None and kept.mtime == mtime:
            return kept
        entries: list[tuple[str, bool]] = []
        try:
            with os.scandir(path) as listing:
                for entry in listing:
                    try:
                        entries.append((entry.path, entry.is_dir(follow_symlinks=False)))
                    except OSError:
                        continue
        except OSError:
            return _Folder(-1, ())
        settled = time.time_ns() - mtime > _SETTLED_NS
        folder = _Folder(mtime if settled else -1, tuple(entries))
        self._folders[path] = folder
        return folder
