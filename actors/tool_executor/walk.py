"""Walking a project tree for Glob, Grep and ``@path`` completion.

A walk yields files in depth-first name order. It skips SKIP_DIRS and what git would ignore:
each folder's ``.gitignore`` and the project's ``.git/info/exclude`` are read with the one path
matcher (``actors.path_patterns``), and for each entry the deepest ``.gitignore`` with a
matching pattern decides, the last match within it winning, as in git. A matched folder is not
entered. Symlinks are not followed, neither to folders nor to files, as ripgrep does: a walk
lists the files that are in the tree (naming a symlink as a tool's path still reads it).

Two engines walk for the tools, and this one is the reference: its results define the right
answer, and it is itself tested against ``git ls-files`` (``test_walk_gitignore.py``). ripgrep
(``actors.tool_executor.ripgrep``) makes the same walk faster and runs whenever it can: when its
binary is there and runs, and when the ignore rules can be put to it exactly. Otherwise, and
when it fails before listing anything, this walk answers. The differential tests
(``test_differential_*`` in ``tests/tool_executor/``) run both on the same cases.

``walk_files`` is blocking and runs in a worker thread; ``stop`` is checked between folders so
that an abandoned search ends soon instead of scanning on in the background. ``walk_readable``
is the async half a tool uses: it sends what a walk meets to the permission broker in batches
and hands on only the files a tool may read.
"""

from __future__ import annotations

import contextlib
import itertools
import os
import re
import stat
import unicodedata
from typing import TYPE_CHECKING

import anyio
import anyio.to_thread
import msgspec

from actors.path_patterns import PatternList, parse_gitignore

if TYPE_CHECKING:
    import threading
    from collections.abc import AsyncGenerator, Awaitable, Callable, Iterator

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


class Found(msgspec.Struct, frozen=True):
    path: str  # absolute, as met on the walk (a symlink is not resolved)
    rel: str  # from the walk root, "/"-separated
    mtime: float
    size: int
    real: str  # where it is: the walk root's path resolved, and the rest of the path
    links: int  # names the file has (hard links)

    def names(self) -> tuple[str, ...]:
        """The paths to put to the broker: as met and, where it differs, where it is."""
        return (self.path,) if self.path == self.real else (self.path, self.real)


# ── the walk ────────────────────────────────────────────────────────────────────────────────


class _Ignore(msgspec.Struct, frozen=True):
    """One ignore file's patterns and the folder they are relative to (from the project root)."""

    base: str  # "" for the project root
    patterns: PatternList


# The ignore files that apply in a folder, the deepest last; None: the walk is inside an
# ignored folder it was asked to look in, and nothing is ignored there.
_Chain = tuple[_Ignore, ...] | None


class _Folder(msgspec.Struct, frozen=True):
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
    key, chain = start(root, top)
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
            elif entry.is_file(follow_symlinks=False) and not _ignored(chain, key, False):
                st = entry.stat(follow_symlinks=False)
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
    data = read_ignore_file(path)
    if data is None:
        return None
    try:
        patterns = parse_gitignore(data.decode("utf-8", "surrogateescape").split("\n"))
    except ValueError:
        return None
    return _Ignore(base, PatternList(patterns)) if patterns else None


# Larger than any real ignore file: a repository's must not make a walk read without end.
MAX_IGNORE_BYTES = 1 << 20


def read_ignore_file(path: str) -> bytes | None:
    """An ignore file's bytes, or None where there is none to read: missing, a symlink (git
    does not follow those either; one leading to /dev/zero would be read forever), not a
    regular file (a FIFO would never end), or over MAX_IGNORE_BYTES."""
    try:
        descriptor = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return None
    with os.fdopen(descriptor, "rb") as file:
        st = os.fstat(descriptor)
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_IGNORE_BYTES:
            return None
        return file.read(MAX_IGNORE_BYTES + 1)[:MAX_IGNORE_BYTES]


def start(root: str, top: str | None) -> tuple[str, _Chain]:
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


async def batches(files: Iterator[Found]) -> AsyncGenerator[list[Found]]:
    """A blocking walk's files a batch at a time, each batch taken in a worker thread."""
    while batch := await anyio.to_thread.run_sync(_next_batch, files, abandon_on_cancel=True):
        yield batch


def _next_batch(files: Iterator[Found]) -> list[Found]:
    return list(itertools.islice(files, BATCH))


async def walk_readable(
    readable: Readable,
    folder: str,
    files: AsyncGenerator[list[Found]],
    take: Callable[[list[Found]], bool],
    stop: threading.Event,
) -> int:
    """Give ``take`` the files of ``files`` (batches of a walk of ``folder``, which the tool
    was allowed to read) that the permission rules let it read (``readable`` asks the broker);
    ``take`` returns True when it wants no more. Returns how many files the rules left out.

    ``take`` runs in a worker thread; a cancelled call leaves it behind, and the caller's
    ``stop`` ends it (and a Python walk) at its next file or folder.
    """
    left_out = 0
    # Closed on the way out, so that a listing stopped early ends (rg is killed) at once.
    async with contextlib.aclosing(files):
        async for batch in files:
            if stop.is_set():
                break
            kept = await allowed(readable, folder, batch)
            left_out += len(batch) - len(kept)
            if not kept:
                continue
            if await anyio.to_thread.run_sync(take, kept, abandon_on_cancel=True):
                break
    return left_out


async def allowed(readable: Readable, folder: str, batch: list[Found]) -> list[Found]:
    """The files of ``batch`` the permission rules let tools read."""
    # A file's real path goes too: it is what will be opened, and the broker must have
    # judged that very path.
    owners = [index for index, found in enumerate(batch) for _ in found.names()]
    names = tuple(name for found in batch for name in found.names())
    answers = await readable(folder, names)
    refused = {owner for owner, ok in zip(owners, answers, strict=True) if not ok}
    return [found for index, found in enumerate(batch) if index not in refused]


def left_out_note(count: int, verb: str) -> str:
    """What the model is told of files the rules kept from it: how many, never which."""
    if count == 1:
        return f"(1 file was not {verb}: the permission rules do not let tools read it.)"
    return f"({count} files were not {verb}: the permission rules do not let tools read them.)"
