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
import stat
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable, Iterator

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
# What ``configured_places`` calls the folder ``core.hooksPath`` names.
HOOKS_PATH = "git's hooks (core.hooksPath)"


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
    # A link (``.git/modules`` made one to the home folder by a command) leads to repositories
    # that are not this one's: naming them would have Legato write their ``commondir`` and
    # bind them, and search wherever the link leads.
    if depth == 0 or os.path.islink(folder):
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


def configured_places(git: str, home: str) -> list[tuple[str, bool, str]]:
    """(real path, is a folder, what it is) of the files and folders besides ``CONTROLS`` that git
    takes programs from, as the repository's config and the user's global ones say: the files
    ``include.path`` and ``includeIf.*.path`` name (config of the same power as
    ``.git/config``), and the hooks folder ``core.hooksPath`` names. Husky's hooks folder
    (``.husky/_``) runs the scripts beside it, so its parent counts as well.

    Read as git reads the simple cases: one level of includes, the last ``hooksPath`` wins."""
    places: list[tuple[str, bool, str]] = []
    work_tree = os.path.dirname(git)
    hooks: str | None = None
    xdg = os.environ.get("XDG_CONFIG_HOME") or os.path.join(home, ".config")
    configs = [
        os.path.join(home, ".gitconfig"),
        os.path.join(xdg, "git", "config"),
        os.path.join(git, "config"),
    ]
    for config in configs:
        for section, key, value in _entries(config):
            if key == "path" and section in ("include", "includeif"):
                base = os.path.dirname(config)
                included = os.path.realpath(os.path.join(base, _expand(value, home)))
                places.append((included, False, f"git's config (included by {config})"))
                for inner_section, inner_key, inner_value in _entries(included):
                    if inner_section == "core" and inner_key == "hookspath":
                        hooks = inner_value
            elif section == "core" and key == "hookspath":
                hooks = value
    if hooks:
        folder = os.path.realpath(os.path.join(work_tree, _expand(hooks, home)))
        places.append((folder, True, HOOKS_PATH))
        if os.path.basename(folder) == "_" and os.path.basename(os.path.dirname(folder)) == (
            ".husky"
        ):
            places.append((os.path.dirname(folder), True, "git's hooks (husky's scripts)"))
    return places


def _expand(value: str, home: str) -> str:
    return os.path.join(home, value[2:]) if value.startswith("~/") else value


def read_small(path: str, limit: int, *, follow: bool = True) -> bytes | None:
    """At most ``limit`` bytes of a regular file, or None. A repository's files are read at
    start before any question: never a FIFO or a device (which could block or run on for
    ever), nor anything in /proc, /dev or /sys (a kernel log blocks a reader too); with
    ``follow`` false, never through a symlink."""
    real = os.path.realpath(path) if follow else path
    if real.startswith(("/proc/", "/dev/", "/sys/")):
        return None
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | (0 if follow else os.O_NOFOLLOW)
    try:
        fd = os.open(real, flags)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        with os.fdopen(fd, "rb", closefd=False) as file:
            return file.read(limit)
    except OSError:
        return None
    finally:
        os.close(fd)


def _entries(path: str) -> Iterator[tuple[str, str, str]]:
    """(section, key, value) of a git config file, both names lowercased; nothing when it
    cannot be read. Enough for ``path`` and ``hooksPath``: no continuation lines."""
    data = read_small(path, 1 << 20)
    if data is None:
        return
    text = data.decode("utf-8", "replace")
    section = ""
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("["):
            name = line[1 : line.find("]") if "]" in line else len(line)].strip()
            section = name.split(None, 1)[0].split(".", 1)[0].lower() if name else ""
            continue
        key, equals, value = line.partition("=")
        if not equals or line.startswith(("#", ";")):
            continue
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] == '"':
            value = value[1:-1]
        yield section, key.strip().lower(), value


def hook_folders(git: str, places: Iterable[tuple[str, bool, str]]) -> list[str]:
    """Where git takes the repository's hooks from: ``.git/hooks``, and the folder
    ``core.hooksPath`` names among ``places`` (``configured_places``, read once by the caller)."""
    return [os.path.join(git, "hooks"), *(path for path, _, what in places if what == HOOKS_PATH)]
