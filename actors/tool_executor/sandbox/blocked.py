"""The project's files that ``blockedPaths`` block, found before each confined command.

The permission broker owns the rules, so it is asked (``FindBlocked``) about every file and
folder of the project; a confined command then finds each blocked one unreadable. Asking about
a whole project for every command would cost too much, so what is learnt is kept for the
session: the listing of each folder, until the folder's mtime changes (a file added, removed
or renamed in it), and the broker's verdict on each path, since the rules do not change during
a session. A command then costs one ``stat`` per folder, and a question only about new names.

Not entered: ``.git`` folders (git's own objects), symlinks to folders (their targets are
judged where they are) and what lies past ``LIMIT`` entries, which ``legato doctor`` reports.
"""

from __future__ import annotations

import os
import time
from typing import TYPE_CHECKING

import anyio

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    AskBlocked = Callable[[tuple[str, ...]], Awaitable[tuple[bool, ...]]]

LIMIT = 200_000  # files and folders looked at, at most
_BATCH = 5_000  # paths in one question to the broker
# A folder's mtime ticks coarsely (a few ms): a listing taken within this long of its last
# change may miss a name added in the same tick, so it is not reused (git's "racily clean").
_SETTLED_NS = 1_000_000_000


class ProjectFiles:
    def __init__(self, root: str) -> None:
        self._root = root
        # folder -> (its mtime, its entries as (path, is a folder))
        self._listings: dict[str, tuple[int, tuple[tuple[str, bool], ...]]] = {}
        self._verdicts: dict[str, bool] = {}
        self._lock = anyio.Lock()  # commands started together share one walk's findings
        self.capped = False

    async def blocked(self, ask: AskBlocked) -> list[tuple[str, bool]]:
        """Every blocked file and folder in the project now, as (path, is a folder)."""
        async with self._lock:
            entries = await anyio.to_thread.run_sync(self._walk)
            unknown = tuple(path for path, _ in entries if path not in self._verdicts)
            for start in range(0, len(unknown), _BATCH):
                batch = unknown[start : start + _BATCH]
                self._verdicts.update(zip(batch, await ask(batch), strict=True))
            return [(path, is_folder) for path, is_folder in entries if self._verdicts[path]]

    def _walk(self) -> list[tuple[str, bool]]:
        found: list[tuple[str, bool]] = []
        seen: set[str] = set()
        folders = [self._root]
        self.capped = False
        while folders:
            folder = folders.pop()
            seen.add(folder)
            for path, is_folder in self._listing(folder):
                if len(found) >= LIMIT:
                    self.capped = True
                    return found
                found.append((path, is_folder))
                if is_folder and os.path.basename(path) != ".git":
                    folders.append(path)
        for gone in self._listings.keys() - seen:  # folders removed since: forget them
            del self._listings[gone]
        return found

    def _listing(self, folder: str) -> tuple[tuple[str, bool], ...]:
        try:
            mtime = os.stat(folder).st_mtime_ns
        except OSError:
            return ()
        kept = self._listings.get(folder)
        if kept is not None and kept[0] == mtime:
            return kept[1]
        entries: list[tuple[str, bool]] = []
        try:
            with os.scandir(folder) as listing:
                for entry in listing:
                    try:
                        entries.append((entry.path, entry.is_dir(follow_symlinks=False)))
                    except OSError:
                        continue
        except OSError:
            return ()
        listed = tuple(entries)
        settled = time.time_ns() - mtime > _SETTLED_NS
        self._listings[folder] = (mtime if settled else -1, listed)
        return listed
