"""The files in a ``.git`` folder that decide what git runs or where the repository lies.

git takes programs to run by itself from ``config`` and ``config.worktree`` (``core.fsmonitor``,
``core.hooksPath``, aliases, filters, the pager) and from ``hooks/``; it finds the rest of the
repository through ``commondir`` (a linked worktree's, or one a command plants to point git at a
config of its own), ``gitdir`` and ``objects/info/alternates``; ``info/`` holds attributes (which
pick a filter or a diff driver), excludes and the sparse-checkout list. A submodule's repository
(``modules/<name>/``, whose name may hold slashes) and a linked worktree's (``worktrees/<name>/``)
have the same files. Everything else in ``.git`` (objects, refs, the index, logs, lock files) is
what ``git add``, ``commit`` and ``checkout`` write, and stays writable.

One definition for the broker (which writes ask) and the sandbox (what commands may not write).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator

# (path inside a git folder, is a folder)
CONTROLS = (
    ("config", False),
    ("config.worktree", False),
    ("commondir", False),
    ("gitdir", False),
    ("info", True),
    ("hooks", True),
    ("objects/info/alternates", False),
)
NESTED = ("modules", "worktrees")
# A submodule's name is a path; past this depth nothing is looked for.
MAX_DEPTH = 8


def is_control(path: str, git: str, *, whole: bool = False) -> bool:
    """Whether ``path`` is, or is inside, one of ``CONTROLS`` of the repository in ``git`` or of
    one nested in it. ``whole``: the word names ``path`` itself, to move or remove it, so the
    folders that hold nested repositories (``.git/modules/x``) count too.

    A submodule's name cannot be told from the folders inside it, so any ``config``, ``hooks``...
    under ``modules/`` counts: asking once too often is the safe side."""
    relative = os.path.relpath(path, git)
    if relative == "." or relative.startswith(".." + os.sep) or relative == "..":
        return relative == "." and whole
    parts = relative.split(os.sep)
    nested = parts[0] in NESTED
    if nested and whole:
        return True
    for start in range(len(parts) if nested else 1):
        rest = parts[start:]
        for name, _ in CONTROLS:
            wanted = name.split("/")
            if rest[: len(wanted)] == wanted:
                return True
    return False


def repositories(git: str) -> Iterator[str]:
    """``git`` and the repositories nested in it (submodules' and linked worktrees'), as
    folders that exist: each holds a ``HEAD``."""
    yield git
    for nested in NESTED:
        yield from _holding_head(os.path.join(git, nested), MAX_DEPTH)


def _holding_head(folder: str, depth: int) -> Iterator[str]:
    if depth == 0:
        return
    try:
        entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
    except OSError:
        return
    for entry in entries:
        if not entry.is_dir(follow_symlinks=False):
            continue
        if os.path.lexists(os.path.join(entry.path, "HEAD")):
            yield entry.path
            # A submodule's own submodules.
            yield from _holding_head(os.path.join(entry.path, "modules"), depth - 1)
        else:
            yield from _holding_head(entry.path, depth - 1)
