"""git's files in the sandbox: what git reads to configure itself or find the repository is
read-only, and ``.git`` cannot be swapped; what a commit writes stays writable.

``git add``, ``commit`` and ``checkout`` write objects, refs, the index, logs and lock files
directly in ``.git/`` (``index.lock`` renamed over ``index``), so ``.git`` as a whole cannot be
read-only. What runs programs or moves the repository elsewhere is (``actors/git_files.py``):
each such file or folder that exists is bound read-only over itself, and ``.git`` itself, the
folders of nested repositories (``modules/``, ``worktrees/``) and the folders on the way are
bound over themselves writable: a mount point cannot be renamed nor removed, so ``mv .git x``
and ``rm -rf .git`` leave ``.git`` where it is, and no copy can take its place.

What is missing must not be created either. ``hooks/``, ``info/`` and ``config.worktree`` are
sealed like ``.legato/``: an empty folder or file stays behind, which git reads as nothing
(``config.worktree`` only counts where the config turns it on). ``commondir`` is different: the
empty file bubblewrap would leave behind makes every git command fail ("failed to read
.git/commondir"). So before each bubblewrap command the session writes one that says ``.``,
the repository's own folder, which is where git looks when there is none, and binds it
read-only; it removes it when the session ends (``unpin``). sandbox-exec refuses to create a
path without a mount, so it needs no such file.
"""

from __future__ import annotations

import contextlib
import os

from actors.git_files import CONTROLS, configured_places, hook_folders, read_small, repositories
from actors.places import within
from actors.run_files import files_git_hooks_name

PINNED = b".\n"  # commondir: the repository's folder itself
MAX_REPOSITORIES = 256  # of modules/ and worktrees/: past this, nested ones are not looked at


def git_protected(
    project: str, home: str, notes: list[str]
) -> tuple[list[tuple[str, bool]], list[str]]:
    """What must be read-only for git's sake in ``project`` (existing, or sealed where
    missing, with whether it is a folder), and the folders to fix in place: ``.git``'s own
    files (``git_controls``), and what git's config and hooks name in the project: in the
    working tree, or in ``.git`` under a name of its own (``core.hooksPath = .git/my-hooks``,
    an ``include.path`` beside the config), which ``git_controls`` does not know."""
    git = os.path.join(project, ".git")
    if os.path.islink(git):
        notes.append(
            ".git is a symlink: a command can replace the link, and git would follow the "
            "new one; make it a real folder to keep git's files read-only"
        )
        return [], []
    if not os.path.isdir(git):
        return [], []
    wanted, fixed = git_controls(git)
    places = configured_places(git, home)
    wanted += [(path, is_folder) for path, is_folder, _ in places if within(path, project)]
    named = files_git_hooks_name(project, home, hook_folders(git, places))
    wanted += [(path, False) for path in named]
    return wanted, fixed


def git_controls(git: str) -> tuple[list[tuple[str, bool]], list[str]]:
    """(what must be read-only, existing or sealed where missing, with whether it is a folder),
    and the folders to fix in place, for the repository in ``git`` and those nested in it."""
    wanted: list[tuple[str, bool]] = []
    fixed: list[str] = [git]
    for count, repo in enumerate(repositories(git)):
        if count > MAX_REPOSITORIES:
            break
        worktree = repo.startswith(os.path.join(git, "worktrees") + os.sep)
        folder = repo
        while folder != git:  # the folders on the way: renaming one moves the repository
            fixed.append(folder)
            folder = os.path.dirname(folder)
        for name, is_folder in CONTROLS:
            path = os.path.join(repo, name)
            if os.path.lexists(path) or _sealed_when_missing(
                name, main=repo == git, worktree=worktree
            ):
                wanted.append((path, is_folder))
    return wanted, sorted(set(fixed))


def _sealed_when_missing(name: str, *, main: bool, worktree: bool) -> bool:
    if name in ("hooks", "info"):  # a linked worktree uses its main repository's
        return not worktree
    if name == "config":  # a linked worktree's config is its main repository's
        return main
    if name == "config.worktree":  # an empty one stays behind: git reads it as no settings
        return True
    # A linked worktree always has one; missing from a main repository, see the module's words.
    return name == "commondir" and not worktree


def pin(git: str) -> list[str]:
    """Write the missing ``commondir`` of ``git`` and of its submodules' repositories, saying
    ``.``: the paths written (the caller ``unpin``s them)."""
    written: list[str] = []
    if not os.path.isdir(git) or os.path.islink(git):
        return written
    for count, repo in enumerate(repositories(git)):
        if count > MAX_REPOSITORIES:
            break
        if repo.startswith(os.path.join(git, "worktrees") + os.sep):
            continue
        path = os.path.join(repo, "commondir")
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC
        try:
            fd = os.open(path, flags, 0o644)
        except OSError:
            continue  # there already, or cannot be written: the layout binds or seals it
        try:
            os.write(fd, PINNED)
        finally:
            os.close(fd)
        written.append(path)
    return written


def unpin(paths: list[str]) -> None:
    """Remove the ``commondir`` files ``pin`` wrote, where they still say what it wrote."""
    for path in paths:
        # Not through a link nor from a FIFO put there meanwhile: the session's end must not wait.
        if read_small(path, len(PINNED) + 1, follow=False) != PINNED:
            continue
        with contextlib.suppress(OSError):
            os.unlink(path)
