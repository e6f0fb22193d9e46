"""ripgrep (``rg``), the fast walker and matcher behind Glob, Grep and ``@path`` completion.

It is the fast engine, not the reference: the Python walk (``walk.py``) and matcher
(``search.py``) define the right answer, and rg runs only where it gives that same answer (the
differential tests, ``test_differential_*``, run both). Where it cannot run (``Unavailable``),
cannot be told the project's ignore rules exactly (``walk_args``), or refuses the pattern
(``Rejected``), the Python engine answers.

The binary comes with Legato (the ``ripgrep`` wheel puts it beside the Python that runs Legato);
one on PATH serves otherwise. It runs as a process of its own group, with no configuration
file and an empty environment, so that nothing a repository or the user's shell sets changes
what it reads. Its output is read as it comes; whoever stops reading (a full output, a
cancelled call) kills the whole group at once.

What the project walk leaves out, rg is told to leave out too: SKIP_DIRS by negated globs
(which whitelist nothing), ``.gitignore`` files and ``.git/info/exclude`` as git reads them,
and nothing else (no ``.ignore``/``.rgignore``, no global gitignore, no ignore files above the
project). Where those rules cannot be put to rg exactly, ``walk_args`` says so and the Python
walk does the work. rg does not follow symlinks, neither to folders nor to files.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import sys
import threading
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Literal

import anyio
import anyio.to_thread

from actors import process_groups
from actors.tool_executor.walk import (
    SKIP_DIRS,
    Found,
    batches,
    read_ignore_file,
    start,
    walk_files,
    walk_readable,
)

if TYPE_CHECKING:
    from collections.abc import AsyncGenerator, AsyncIterator, Callable, Iterator, Sequence

    from anyio.abc import Process

    from actors.tool_executor.walk import Readable

    # Whether a file, by its path from the walk root, is wanted.
    Keep = Callable[[str], bool]

# The options every run gets: the project's view of a tree, and rg's own configuration off.
BASE = (
    "--no-config",
    "--hidden",
    "--no-ignore-dot",  # .ignore and .rgignore are rg's, not git's
    "--no-ignore-global",  # the user's core.excludesFile is personal
    "--no-require-git",  # a project need not be a repository for its .gitignore to count
    "--no-messages",  # unreadable files are passed over, as the walk passes over them
)
_READ = 65536
_FS_ENCODING, _FS_ERRORS = sys.getfilesystemencoding(), sys.getfilesystemencodeerrors()
Order = Literal["any", "path", "newest"]
_ORDERS: dict[Order, list[str]] = {
    "any": [],
    "path": ["--sort=path"],
    "newest": ["--sortr=modified"],
}
# rg's exit status on an error, which may come with partial results (1: nothing found).
ERROR = 2
# The most memory rg may take (see ``_limit_memory``).
MAX_MEMORY = 512 * 2**20


class Unavailable(Exception):
    """rg is missing here or cannot run (another platform's binary): use the Python walk."""


class Rejected(Exception):
    """rg refused the pattern (its regex syntax is not Python's), or its answer has a record
    too long to hold (a long line, in JSON with every match in it): use the Python matcher."""


def locate() -> str | None:
    """The rg beside this Python (where the ``ripgrep`` wheel installs it), else on PATH."""
    beside = os.path.join(os.path.dirname(sys.executable), "rg")
    if os.access(beside, os.X_OK):
        return beside
    return shutil.which("rg")


def walk_args(root: str, top: str, enter: frozenset[str] = frozenset()) -> list[str] | None:
    """rg's options for the walk ``walk.walk_files(root, top=top, enter=enter)`` makes, or None
    where rg would read ignore files the walk does not (above the project) and cannot be told
    to read only some of them."""
    args = [f"--glob=!{name}/" for name in sorted(SKIP_DIRS - enter)]
    _, chain = start(root, top)
    inside = root == top or root.startswith(top.rstrip(os.sep) + os.sep)
    if chain is None:
        args.append("--no-ignore")  # a walk asked into an ignored folder ignores nothing there
        return args
    if root == top or not inside:
        args.append("--no-ignore-parent")  # the walk root's own ignore files, and those below
    elif _ignores_above(top):
        return None
    # Else rg reads the ignore files from ``root`` up, and there are none above ``top``.
    if not inside or not _has_excludes(top):
        # The walk reads no .git/info/exclude (it reads the project's only): rg, which looks
        # for one in every folder it enters (a stat each, 3% of a search), reads none either.
        args.append("--no-ignore-exclude")
    return args


def _ignores_above(top: str) -> bool:
    """Whether rg, looking for ignore files above a folder inside ``top``, would find some above
    ``top``: it looks up to the root of the file system, past repositories too."""
    folder = os.path.dirname(top)
    while True:
        if os.path.lexists(os.path.join(folder, ".gitignore")) or _has_excludes(folder):
            return True
        parent = os.path.dirname(folder)
        if parent == folder:
            return False
        folder = parent


def _has_excludes(folder: str) -> bool:
    data = read_ignore_file(os.path.join(folder, ".git", "info", "exclude"))
    lines = data.splitlines() if data is not None else []
    return any(line.strip() and not line.startswith(b"#") for line in lines)


def name_filter(globs: Sequence[str]) -> list[str]:
    """Options that keep files whose name matches one of ``globs``, ignore files still applying
    (``--glob`` would override them)."""
    if not globs:
        return []
    return [*(f"--type-add=legato:{glob}" for glob in globs), "--type=legato"]


class Run:
    """A running rg: its output as it comes, then how it ended."""

    def __init__(self, process: Process) -> None:
        self.process = process
        self.output = False  # whether rg wrote anything yet

    async def records(self, sep: bytes, longest: int | None = None) -> AsyncGenerator[list[bytes]]:
        """rg's output split at ``sep``, the records each read completes, as they come; a
        record longer than ``longest`` raises Rejected."""
        stdout = self.process.stdout
        assert stdout is not None  # opened with stdout=PIPE
        pending = bytearray()
        while True:
            try:
                data = await stdout.receive(_READ)
            except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
                break
            self.output = True
            pending += data
            # Looked for in what came only: a long line read in many pieces is scanned once.
            end = data.rfind(sep)
            if end < 0:
                if longest is not None and len(pending) > longest:
                    raise Rejected(f"a record of rg's output is longer than {longest} bytes")
                continue
            end += len(pending) - len(data)
            records = bytes(pending[:end]).split(sep)
            del pending[: end + len(sep)]
            yield records
        if pending:
            yield [bytes(pending)]

    async def ended(self) -> int:
        """rg's exit status once it has ended by itself, its output read to the end. An error
        with no output at all raises Rejected: rg could not read the pattern (or, rarely, no
        file, which the Python search then finds out for itself)."""
        code = await self.process.wait()
        if code == ERROR and not self.output:
            raise Rejected("rg ended with an error and no output")
        if code in (126, 127) or code < 0:
            raise Unavailable(f"rg ended with status {code}")
        return code


@asynccontextmanager
async def running(rg: str, args: Sequence[str], cwd: str) -> AsyncIterator[Run]:
    """rg with ``args`` in ``cwd``, killed with its group when the block ends before it does."""
    try:
        process = await process_groups.start(
            [rg, *BASE, *args],
            cwd=cwd,
            env={},
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            # Not read: an error quoting a long pattern could fill a pipe and stall rg.
            stderr=subprocess.DEVNULL,
        )
    except OSError as exc:  # missing, not executable, another platform's binary
        raise Unavailable(str(exc)) from None
    _limit_memory(process.pid)
    try:
        yield Run(process)
    finally:
        # Shielded: a cancelled search must not leave rg reading the disk behind it.
        with anyio.CancelScope(shield=True), anyio.move_on_after(2):
            process_groups.kill(process)  # rg starts no process: no grace to wait out
            await process.aclose()


def _limit_memory(pid: int) -> None:
    """Cap the memory rg may take (Linux; elsewhere nothing is done).

    rg holds a few read buffers and the ignore rules, tens of MB on any tree, but it follows a
    symlinked ignore file: a repository's ``.gitignore`` leading to ``/dev/zero`` would have it
    read until the machine runs out of memory (3 GB in 3 s here). Past the cap its allocation
    fails, it ends, and the Python walk, which reads no symlinked ignore file, answers instead.
    Set just after rg starts: the cap holds for every allocation from then on.
    """
    import resource

    prlimit = getattr(resource, "prlimit", None)
    if prlimit is not None:
        with contextlib.suppress(OSError):  # rg already gone
            prlimit(pid, resource.RLIMIT_DATA, (MAX_MEMORY, MAX_MEMORY))


class Tally:
    """The files a listing met past the number it was asked to give: counted, not given."""

    def __init__(self, give: int) -> None:
        self.give = give
        self.more = 0


async def listing(
    rg: str,
    root: str,
    args: Sequence[str],
    keep: Keep | None = None,
    *,
    look: bool = False,
    tally: Tally | None = None,
) -> AsyncGenerator[list[Found]]:
    """The files rg's walk of ``root`` meets that ``keep`` keeps (given the path from the
    root), in batches as they come. ``look``: with each file's size, time and links (a stat
    each); else only its paths (0 and 1 stand in for the rest). ``tally``: past the number it
    says, with no ``keep`` to ask, files are only counted, into it."""
    real = await anyio.to_thread.run_sync(os.path.realpath, root)
    given = 0
    async with running(rg, ["--files", "--null", *args, "--", "./"], root) as run:
        async with contextlib.aclosing(run.records(b"\0")) as chunks:
            async for records in chunks:
                if tally is not None and keep is None and given >= tally.give:
                    tally.more += len(records)  # 200,000 names are not made into objects
                    continue
                if look:
                    batch = await anyio.to_thread.run_sync(_stat, root, real, records, keep)
                else:
                    batch = _paths(root, real, records, keep)
                given += len(batch)
                if batch:
                    yield batch
        await run.ended()


def _paths(shown: str, real: str, records: list[bytes], keep: Keep | None) -> list[Found]:
    # rg follows no symlink: the file is where the root's real path and rel put it.
    shown, real = _folder(shown), _folder(real)
    found = []
    for record in records:
        rel = record[2:].decode(_FS_ENCODING, _FS_ERRORS)  # after "./", as os.fsdecode
        if keep is None or keep(rel):
            found.append(Found(shown + rel, rel, 0.0, 0, real + rel, 1))
    return found


def _folder(path: str) -> str:
    return path if path.endswith(os.sep) else path + os.sep


def _stat(shown: str, real: str, records: list[bytes], keep: Keep | None) -> list[Found]:
    found = []
    for listed in _paths(shown, real, records, keep):
        try:
            st = os.stat(listed.real, follow_symlinks=False)
        except OSError:
            continue  # gone since
        found.append(
            Found(listed.path, listed.rel, st.st_mtime, st.st_size, listed.real, st.st_nlink)
        )
    return found


async def files(
    root: str,
    top: str,
    stop: threading.Event,
    *,
    enter: frozenset[str] = frozenset(),
    keep: Keep | None = None,
    names: Sequence[str] = (),
    depth: int | None = None,
    exact: bool = False,
    order: Order = "any",
    look: bool = False,
    tally: Tally | None = None,
) -> AsyncGenerator[list[Found]]:
    """The project walk of ``root`` (see ``walk.walk_files``) in batches, less what ``keep``
    (given the path from the root) leaves out: rg's where rg can make it, else the Python
    walk's, ``stop`` ending that one. ``names`` and ``depth`` may narrow rg's walk to spare
    ``keep`` work: globs a kept file's name matches one of, and how deep it may be; ``exact``:
    they say all ``keep`` does, which rg's listing then need not ask.
    ``order``: "path", the walk's order, or "newest" first (rg then works in one thread).
    ``look``: with each file's size, time and links, which the Python walk always has.
    ``tally``: past the files it says to give, rg's listing may only count them, into it (the
    Python walk gives them all)."""
    rg = locate()
    args = await anyio.to_thread.run_sync(walk_args, root, top, enter) if rg else None
    if rg is not None and args is not None:
        args = [*args, *name_filter(names)]
        args += [f"--max-depth={depth}"] if depth is not None else []
        args += _ORDERS[order]
        met = False
        try:
            wanted = None if exact else keep
            listed = listing(rg, root, args, wanted, look=look, tally=tally)
            async with contextlib.aclosing(listed) as found:
                async for batch in found:
                    met = True
                    yield batch
            return
        except (Unavailable, Rejected):
            if met:
                return  # rg failed part way: what it listed is what there is
    walk = walk_files(root, stop, top=top, enter=enter)
    if keep is not None:
        walk = (found for found in walk if keep(found.rel))
    if order == "newest":
        walk = _newest_first(walk)
    async with contextlib.aclosing(batches(walk)) as walked:
        async for batch in walked:
            yield batch


def _newest_first(walk: Iterator[Found]) -> Iterator[Found]:
    # A generator, so that the whole walk is made on the first batch, in a worker thread.
    yield from sorted(walk, key=lambda found: (-found.mtime, found.path))


async def readable_files(root: str, readable: Readable, limit: int) -> tuple[str, ...]:
    """The project's files, relative to ``root``, that the permission rules let tools read,
    at most ``limit``: what ``@path`` completion offers."""
    found: list[str] = []

    def take(batch: list[Found]) -> bool:
        found.extend(hit.rel for hit in batch)
        return len(found) >= limit

    stop = threading.Event()
    try:
        listed = files(root, root, stop, order="path")
        await walk_readable(readable, root, listed, take, stop)
    finally:
        stop.set()  # an abandoned listing stops at its next folder
    return tuple(found[:limit])
