"""Walking a project tree for Glob, Grep and ``@path`` completion.

A walk yields files in depth-first name order. It skips SKIP_DIRS and what git would ignore:
each folder's ``.gitignore`` and the project's ``.git/info/exclude`` are read with the one path
matcher (``actors.path_patterns``), and for each entry the deepest ``.gitignore`` with a
matching pattern decides, the last match within it winning, as in git. A matched folder is not
entered. Symlinked folders are not followed; a symlinked file is yielded as met, and where it
leads is for the permission broker to judge.

``walk_files`` is blocking and runs in a worker thread; ``stop`` is checked between folders so
that an abandoned search ends soon instead of scanning on in the background. ``walk_readable``
is the async half a tool uses: it sends what the walk meets to the permission broker in
batches and hands on only the files a tool may read. ``readable_files`` is the same walk of the
whole project for ``@path`` completion (``ListFiles``).
"""

from __future__ import annotations

import itertools
import os
import re
import threading
import unicodedata
from dataclasses import dataclass
from typing import TYPE_CHECKING

import anyio
import anyio.to_thread

from actors.path_patterns import PatternList, parse_gitignore

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Iterator

    # Which of these paths, met on a walk of the folder, may be read: one flag each (the
    # broker's ``FilterReadable``).
    Readable = Callable[[str, tuple[str, ...]], Awaitable[tuple[bool, ...]]]

# Folders that are never the answer and can be huge. A pattern that names one still enters it.
SKIP_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        ".venv",
        "venv",
        "node_modules",
        "__pycache__",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        ".tox",
    }
)

# Files per FilterReadable message: large enough that the broker's round trip is noise, small
# enough that a stopped search does not wait on a big batch.
BATCH = 512


# Glob's pattern and Grep's ``glob`` filter: ``*`` and ``?`` stay within a name, ``**`` spans
# folders, ``[...]`` classes and ``{a,b}`` alternatives, as in ripgrep's globs. Names starting
# with a dot match like any other (ripgrep's --hidden): dotfiles are project files too.


def glob_matcher(pattern: str, *, by_name: bool = False) -> Callable[[str], bool]:
    """A test of ``/``-separated relative paths against a glob. With ``by_name``, a pattern
    without a slash is matched against the file's name alone (``*.py`` finds ``a/b.py``)."""
    from wcmatch import glob as wcglob  # here, not at import: see actors/path_patterns.py

    flags = wcglob.GLOBSTAR | wcglob.DOTGLOB | wcglob.BRACE | wcglob.FORCEUNIX
    flags |= wcglob.MATCHBASE if by_name else 0
    # One regex for all brace alternatives, each anchored at both ends by wcmatch: matching it
    # directly skips WcRegexp's per-call work, which a walk pays on every file.
    included, _ = wcglob.translate(pattern, flags=flags)
    regex = re.compile("|".join(included))
    return lambda rel: regex.match(rel) is not None


def named_dirs(pattern: str) -> frozenset[str]:
    """The skipped folders a pattern names outright (``node_modules/**``): those are entered."""
    return frozenset(part for part in re.split(r"[/{},]", pattern) if part in SKIP_DIRS)


@dataclass(frozen=True, slots=True)
class Found:
    path: str  # absolute, as met on the walk (a symlink is not resolved)
    rel: str  # from the walk root, "/"-separated
    mtime: float
    size: int
    real: str  # where it is: the path of the walk root resolved, or a symlink's target
    links: int  # names the file has (hard links)

    def names(self) -> tuple[str, ...]:
        """The paths to put to the broker: as met and, where it differs, where it is."""
        return (self.path,) if self.path == self.real else (self.path, self.real)


# ── the walk ────────────────────────────────────────────────────────────────────────────────


@dataclass(frozen=True, slots=True)
class _Ignore:
    """One ignore file's patterns and the folder they are relative to (from the project root)."""

    base: str  # "" for the project root
    patterns: PatternList


# The ignore files that apply in a folder, the deepest last; None: the walk is inside an
# ignored folder it was asked to look in, and nothing is ignored there.
_Chain = tuple[_Ignore, ...] | None


@dataclass(frozen=True, slots=True)
class _Folder:
    path: str
    real: str  # resolved: the walk never enters a symlinked folder, so only the root needs it
    rel: str  # from the walk root, for glob patterns
    key: str  # from the project root, for ignore patterns
    chain: _Chain


def walk_files(
    root: str,
    stop: threading.Event,
    *,
    top: str | None = None,
    enter: frozenset[str] = frozenset(),
) -> Iterator[Found]:
    """Every file under ``root``, in name order, less SKIP_DIRS (except those in ``enter``) and
    what git would ignore, ``top`` being the project root whose ignore files (those above
    ``root`` included) apply.

    A walk asked to look inside an ignored folder (``.venv/lib``, ``build``) looks: there the
    ignore files are not applied at all.
    """
    key, chain = _start(root, top)
    # A stack of files to yield and folders to open, so the order is a depth-first name order.
    pending: list[Found | _Folder] = [_Folder(root, os.path.realpath(root), "", key, chain)]
    while pending and not stop.is_set():
        item = pending.pop()
        if isinstance(item, Found):
            yield item
        else:
            pending.extend(reversed(list(_open(item, enter))))


def _open(folder: _Folder, enter: frozenset[str]) -> Iterator[Found | _Folder]:
    """A folder's files and subfolders, by name, less the skipped and the ignored."""
    chain = folder.chain
    if chain is not None:
        own = _read_ignore(os.path.join(folder.path, ".gitignore"), folder.key)
        if own is not None:
            chain = (*chain, own)
    try:
        with os.scandir(folder.path) as scan:
            entries = sorted(scan, key=lambda entry: entry.name)
    except OSError:
        return  # unreadable or vanished: nothing to report from it
    for entry in entries:
        rel = f"{folder.rel}/{entry.name}" if folder.rel else entry.name
        key = f"{folder.key}/{entry.name}" if folder.key else entry.name
        try:
            if entry.is_dir(follow_symlinks=False):
                skipped = entry.name in SKIP_DIRS and entry.name not in enter
                if not skipped and not _ignored(chain, key, True):
                    yield _Folder(entry.path, _join(folder.real, entry.name), rel, key, chain)
            elif entry.is_file() and not _ignored(chain, key, False):
                st = entry.stat()
                if entry.is_symlink():
                    real = os.path.realpath(entry.path)
                else:
                    real = _join(folder.real, entry.name)
                yield Found(entry.path, rel, st.st_mtime, st.st_size, real, st.st_nlink)
        except OSError:
            continue


def _join(folder: str, name: str) -> str:
    return f"{folder}{name}" if folder.endswith(os.sep) else f"{folder}{os.sep}{name}"


def _ignored(chain: _Chain, key: str, is_dir: bool) -> bool:
    """Whether git would ignore ``key``, whose folder the walk has entered: the deepest ignore
    file with a pattern naming it decides (git's order of precedence)."""
    if not chain:
        return False
    if not key.isascii():
        key = unicodedata.normalize("NFC", key)  # as the patterns are
    for ignore in reversed(chain):
        rel = key[len(ignore.base) + 1 :] if ignore.base else key
        found = ignore.patterns.last_match(rel, is_dir)
        if found is not None:
            return not found.negated
    return False


def _read_ignore(path: str, base: str) -> _Ignore | None:
    try:
        with open(path, encoding="utf-8", errors="surrogateescape") as file:
            patterns = parse_gitignore(file.read().split("\n"))
    except (OSError, ValueError):
        return None
    return _Ignore(base, PatternList(patterns)) if patterns else None


def _start(root: str, top: str | None) -> tuple[str, _Chain]:
    """``root``'s path from the project root ``top``, and the ignore files that apply above it;
    ``None`` when ``root`` is in an ignored folder.

    A folder whose own .gitignore ignores that very file (``*``, as uv and virtualenv write)
    counts as ignored too, unless it is the project root.
    """
    inside = top is not None and (root == top or root.startswith(top.rstrip(os.sep) + os.sep))
    if top is None or not inside:
        top, key = root, ""
    else:
        key = os.path.relpath(root, top).replace(os.sep, "/") if root != top else ""
    chain: tuple[_Ignore, ...] = ()
    if inside:
        # Below every .gitignore in git's order of precedence; core.excludesFile is personal
        # and stays out of it.
        exclude = _read_ignore(os.path.join(top, ".git", "info", "exclude"), "")
        if exclude is not None:
            chain = (exclude,)
    parts = key.split("/") if key else []
    for depth in range(len(parts) + 1):
        folder = "/".join(parts[:depth])
        own = _read_ignore(os.path.join(top, *parts[:depth], ".gitignore"), folder)
        itself = own.patterns.last_match(".gitignore", False) if own is not None else None
        if itself is not None and not itself.negated and (depth or not inside):
            return key, None
        if depth == len(parts):
            break  # the walk root's own file is read as the walk opens it
        if own is not None:
            chain = (*chain, own)
        child = f"{folder}/{parts[depth]}" if folder else parts[depth]
        if _ignored(chain, child, True):
            return key, None
    return key, chain


# ── the permission check ────────────────────────────────────────────────────────────────────


async def walk_readable(
    readable: Readable,
    folder: str,
    files: Iterator[Found],
    take: Callable[[list[Found]], bool],
    stop: threading.Event,
) -> int:
    """Give ``take`` the files of ``files`` (a walk of ``folder``, which the tool was allowed
    to read) that the permission rules let it read (``readable`` asks the broker), a batch at
    a time; ``take`` returns True when it wants no more. Returns how many files the rules left
    out.

    Walking and ``take`` run in worker threads; a cancelled call leaves them behind, and the
    caller's ``stop`` ends them at their next file or folder.
    """
    left_out = 0
    while not stop.is_set():
        batch = await anyio.to_thread.run_sync(_next_batch, files, abandon_on_cancel=True)
        if not batch:
            break
        # A file's real path goes too: it is what will be opened, and the broker must have
        # judged that very path, whatever a symlink leads to by the time it looks.
        owners = [index for index, found in enumerate(batch) for _ in found.names()]
        names = tuple(name for found in batch for name in found.names())
        allowed = await readable(folder, names)
        refused = {owner for owner, ok in zip(owners, allowed, strict=True) if not ok}
        kept = [found for index, found in enumerate(batch) if index not in refused]
        left_out += len(batch) - len(kept)
        if not kept:
            continue
        if await anyio.to_thread.run_sync(take, kept, abandon_on_cancel=True):
            break
    return left_out


def _next_batch(files: Iterator[Found]) -> list[Found]:
    return list(itertools.islice(files, BATCH))


async def readable_files(root: str, readable: Readable, limit: int) -> tuple[str, ...]:
    """The project's files, relative to ``root``, that the permission rules let tools read,
    in walk order, at most ``limit``: what ``@path`` completion offers."""
    found: list[str] = []

    def take(batch: list[Found]) -> bool:
        found.extend(hit.rel for hit in batch)
        return len(found) >= limit

    stop = threading.Event()
    try:
        await walk_readable(readable, root, walk_files(root, stop, top=root), take, stop)
    finally:
        stop.set()  # an abandoned listing stops at its next folder
    return tuple(found[:limit])


def left_out_note(count: int, verb: str) -> str:
    """What the model is told of files the rules kept from it: how many, never which."""
    if count == 1:
        return f"(1 file was not {verb}: the permission rules do not let tools read it.)"
    return f"({count} files were not {verb}: the permission rules do not let tools read them.)"
