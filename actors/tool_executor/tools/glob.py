"""Glob: files whose path matches a pattern, newest first."""

from __future__ import annotations

import contextlib
import os
import re
import threading
from typing import TYPE_CHECKING

import anyio

from actors.errors import ToolFailure
from actors.tool_executor.context import Access, Tool, ToolOutcome
from actors.tool_executor.files import resolve_path
from actors.tool_executor.schemas import GlobInput

if TYPE_CHECKING:
    from collections.abc import AsyncGenerator, Callable

    from actors.tool_executor.context import CallContext
    from actors.tool_executor.ripgrep import Tally
    from actors.tool_executor.walk import Found

MAX_FILES = 1000


async def run(args: GlobInput, ctx: CallContext) -> ToolOutcome:
    # ripgrep's driver, the walk and its pattern matchers load with the first search, not with
    # the tools' list that goes into the first request.
    from actors.tool_executor import ripgrep
    from actors.tool_executor.walk import named_dirs

    base = ctx.resolve(args.path or ".")
    walk_base, pattern = split_pattern(base, args.pattern)
    real = await anyio.to_thread.run_sync(os.path.realpath, walk_base)
    folder = await anyio.to_thread.run_sync(os.path.isdir, real)
    await ctx.check("read", ctx.paths(walk_base, real), folder=folder)
    await anyio.to_thread.run_sync(_check_base, base)
    stop = threading.Event()
    # Past the files shown (and as many more as the rules refuse), the rest are only counted.
    tally = ripgrep.Tally(MAX_FILES)
    try:
        name, depth, exact = narrowing(pattern)
        files = ripgrep.files(
            walk_base,
            ctx.project_root,
            stop,
            enter=named_dirs(pattern),
            keep=_matcher(pattern),
            names=(name,) if name is not None else (),
            depth=depth,
            exact=exact,
            order="newest",
            tally=tally,
        )
        newest, count, left_out = await _newest(ctx, walk_base, files, tally)
        count += tally.more
    finally:
        stop.set()  # an abandoned walk stops at its next folder
    return ToolOutcome(_listing(newest, count, pattern, walk_base, left_out))


def _matcher(pattern: str) -> Callable[[str], bool]:
    """The Python matcher of ``pattern``, made when first asked: where rg's name filter says
    all the pattern does (``**/*.py``), nothing asks, and its import and regex are spared."""
    made: list[Callable[[str], bool]] = []

    def keep(rel: str) -> bool:
        if not made:
            from actors.tool_executor.walk import glob_matcher

            made.append(glob_matcher(pattern))
        return made[0](rel)

    return keep


async def _newest(
    ctx: CallContext, walk_base: str, files: AsyncGenerator[list[Found]], tally: Tally
) -> tuple[list[str], int, int]:
    """The MAX_FILES newest of ``files`` (newest first) the permission rules let tools read,
    how many files match in all, and how many the rules left out.

    A blocked file is not even named: each one is checked like a Read of its own, up to the
    last one shown. Those after it are counted, not judged: the count is of names matching a
    pattern, and the rules decide on names, so the files they hide could be counted as well
    (they are, by the note on files left out).
    """
    from actors.tool_executor.walk import allowed

    newest: list[str] = []
    count = left_out = 0
    async with contextlib.aclosing(files):
        async for batch in files:
            # Judged only as many as are still to be shown (a read of rg's output may bring
            # thousands); the rules refusing some, as many more after them, and so on.
            while batch and len(newest) < MAX_FILES:
                judged, batch = batch[: MAX_FILES - len(newest)], batch[MAX_FILES - len(newest) :]
                kept = await allowed(ctx.readable, walk_base, judged)
                left_out += len(judged) - len(kept)
                tally.give += len(judged) - len(kept)  # as many more in their place
                newest.extend(found.path for found in kept)
                count += len(kept)
            count += len(batch)
    return newest, count, left_out


# What a glob's last part may hold to be given to ripgrep as a file name glob: its syntax and
# the Python matcher's agree on these (the Python matcher has the last word all the same).
_PLAIN_NAME = re.compile(r"[\w.*?{},@+=~-]+")


def narrowing(pattern: str) -> tuple[str | None, int | None, bool]:
    """A glob the names of the files ``pattern`` matches all match, the depth they are at
    most, where the pattern says so simply (``src/*/*.py``, ``**/*.{ts,tsx}``), and whether
    those two say all the pattern does (``*.py``, ``**/*.py``)."""
    parts = pattern.split("/")
    name = parts[-1] if _PLAIN_NAME.fullmatch(parts[-1]) and "**" not in parts[-1] else None
    depth = None if any("**" in part for part in parts) else len(parts)
    exact = name is not None and (len(parts) == 1 or parts[:-1] == ["**"])
    return name, depth, exact


def split_pattern(base: str, pattern: str) -> tuple[str, str]:
    """Move a pattern's leading literal folders into the base: ``src/**/*.py`` walks ``src`` only.

    An absolute pattern (``/etc/*.conf``) brings its own base.
    """
    from actors.path_patterns import literal_prefix

    pattern = os.path.expanduser(pattern)
    if os.path.isabs(pattern):
        base, pattern = os.sep, os.path.normpath(pattern).lstrip(os.sep)
    pattern = pattern.removeprefix("./")
    prefix = literal_prefix(pattern)
    rest = pattern[len(prefix) :].lstrip("/") if prefix else pattern
    return os.path.normpath(os.path.join(base, prefix)), rest


def _check_base(base: str) -> None:
    if not os.path.exists(base):
        raise ToolFailure(f"Directory does not exist: {base}.")
    if not os.path.isdir(base):
        raise ToolFailure(f"{base} is not a directory; give a directory as path.")


def _listing(newest: list[str], count: int, pattern: str, walk_base: str, left_out: int) -> str:
    from actors.tool_executor.walk import left_out_note

    notes = [left_out_note(left_out, "listed")] if left_out else []
    if not count:
        return "\n".join([f"No files match {pattern} in {walk_base}.", *notes])
    lines = list(newest)
    if count > MAX_FILES:
        lines.append(
            f"(Showing the {MAX_FILES} newest of {count} files. Use a narrower pattern or path.)"
        )
    return "\n".join([*lines, *notes])


TOOL = Tool(
    name="Glob",
    description=(
        "Find files by glob pattern (**/*.py, src/*.{ts,tsx}), newest first. * and ? stay within "
        "a name, ** spans folders; names starting with a dot match too. Skips .git, "
        "node_modules and what .gitignore excludes."
    ),
    input_type=GlobInput,
    run=run,
    summary=lambda args, root: args.pattern,
    access=lambda args, root: Access(resolve_path(args.path or ".", root), writes=False),
    read_only=True,
)
