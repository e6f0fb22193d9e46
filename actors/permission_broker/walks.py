"""Which files met on a walk of an allowed folder a tool may read, asking nobody; and which a
confined command finds unreadable.
"""

from __future__ import annotations

import os
import stat
from typing import TYPE_CHECKING

from actors.path_entries import within
from actors.permission_broker.answers import remembered
from actors.permission_broker.path_checks import PathChecks
from actors.permission_broker.questions import Question
from actors.protocol import Decision, PermissionRequest

if TYPE_CHECKING:
    from collections.abc import Sequence


class Walks(PathChecks):
    """The files a walk of an allowed folder may read, judged one by one."""

    def hidden(self, path: str) -> bool:
        """Whether a blockedPaths entry or a deny rule for reading covers ``path`` (absolute):
        what a confined command finds unreadable and a checkpoint leaves out."""
        paths = self.rules.paths
        if paths.blocked_by(path) is not None:
            return True
        reference = self.rules.reference
        return bool(reference) and (
            reference.path("deny", "read", paths.written(path), paths.resolve(path)) is not None
        )

    def filter_readable(
        self, folder: str, paths: Sequence[str], *, search: bool = False
    ) -> tuple[bool, ...]:
        """Which of ``paths``, met on a walk of ``folder`` (already allowed), a tool may read,
        asking nobody: one flag each.

        Blocked entries hold for every file; a file that leads out of the folder (a symlink)
        is judged as a read of its own, and one that would need a person is left out: so is a
        file with several names (hard links) when there are blockedPaths. A ``search`` (Grep,
        Glob) of a folder custom mode let through only narrowed judges every file so.
        """
        real_folder = self.rules.paths.resolve(folder)
        # A folder searched only because custom mode narrows searches (``_narrowed_search``):
        # each file in it needs the rules' own yes, as a Read of it would.
        narrowed = (
            search
            and self.mode == "custom"
            and self.rules.judge_paths((folder,)).verdict != "allowed"
            and remembered(self._answers, (("read", "inside"),)) is None
        )
        real_parents: dict[str, str] = {}  # the folders met, resolved once for all their files
        blocked_folders: dict[str, bool] = {}
        return tuple(
            self._readable(path, real_folder, real_parents, blocked_folders, narrowed=narrowed)
            for path in paths
        )

    def readable_in_walk(self, folder: str, path: str) -> bool:
        """``filter_readable`` for one path."""
        return self.filter_readable(folder, (path,))[0]

    def _readable(
        self,
        path: str,
        real_folder: str,
        real_parents: dict[str, str],
        blocked_folders: dict[str, bool],
        *,
        narrowed: bool = False,
    ) -> bool:
        rules = self.rules.paths
        written = rules.written(path)
        try:
            st = os.lstat(written) if written == path else None
            if st is None or stat.S_ISLNK(st.st_mode):
                # A symlink, or a path not as a walk gives it (relative, or with ..): in full.
                resolved = rules.resolve(path)
                st = os.stat(resolved)
            else:
                parent, name = os.path.split(written)
                resolved = os.path.join(_real_folder(parent, real_parents), name)
        except OSError:
            return False  # gone, or a symlink that leads nowhere: nothing to read
        is_dir = stat.S_ISDIR(st.st_mode)
        if rules.blocked_in_walk(resolved, written, is_dir, blocked_folders):
            return False
        reference = self.rules.reference
        if reference and any(
            reference.path(behavior, "read", written, resolved) for behavior in ("deny", "ask")
        ):
            return False  # denied, or a person's to decide: a walk asks nobody
        if stat.S_ISREG(st.st_mode) and st.st_nlink > 1 and self._blocks_paths:
            return False  # another of its names may be blocked: a person's question, see above
        if within(resolved, real_folder) and not narrowed:
            return True
        request = PermissionRequest(tool="Walk", kind="read", paths=(path,))
        outcome = self._assess_paths(request)
        if isinstance(outcome, Question):
            outcome = self._unasked(request, outcome)  # what the mode settles; nobody is asked
        return isinstance(outcome, Decision) and outcome.allowed


def _real_folder(folder: str, known: dict[str, str]) -> str:
    """``os.path.realpath(folder)`` for a normalised absolute path, built from the real path of
    the folder above it when ``folder`` is not a symlink: a walk's files share their folders,
    and each is looked at once (one lstat) instead of once per file and per level."""
    real = known.get(folder)
    if real is None:
        above, name = os.path.split(folder)
        if not name or os.path.islink(folder):
            real = os.path.realpath(folder)
        else:
            real = os.path.join(_real_folder(above, known), name)
        known[folder] = real
    return real
