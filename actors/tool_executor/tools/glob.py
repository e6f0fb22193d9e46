"""Glob: files whose path matches a pattern, newest first."""

from __future__ import annotations

import os
import threading
from typing import TYPE_CHECKING

import anyio

from actors.errors import ToolFailure
from actors.tool_executor.context import Access, Tool, ToolOutcome
from actors.tool_executor.files import resolve_path
from actors.tool_executor.schemas import GlobInput

if TYPE_CHECKING:
    from collections.abc import Iterator

    from actors.tool_executor.context import CallContext
    from actors.tool_executor.walk import Found

MAX_FILES = 1000


async def run(args: GlobInput, ctx: CallContext) -> ToolOutcome:
    # The walk and its pattern matchers load with the first search, not with the tools' list
    # that goes into the first request.
    from actors.tool_executor.walk import walk_readable

    base = ctx.resolve(args.path or ".")
    walk_base, pattern = split_pattern(base, args.pattern)
    real = await anyio.to_thread.run_sync(os.path.realpath, walk_base)
    folder = await anyio.to_thread.run_sync(os.path.isdir, real)
    await ctx.check("read", ctx.paths(walk_base, real), folder=folder)
    await anyio.to_thread.run_sync(_check_base, base)
    found: list[Found] = []

    def take(readable: list[Found]) -> bool:
        found.extend(readable)
        return False

    stop = threading.Event()
    try:
        files = _matching(walk_base, pattern, ctx.project_root, stop)
        # A blocked file is not even named: each one is checked like a Read of its own.
        left_out = await walk_readable(ctx.readable, walk_base, files, take, stop)
    finally:
        stop.set()  # an abandoned walk stops at its next folder
    return ToolOutcome(_listing(found, pattern, walk_base, left_out))


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


def _matching(walk_base: str, pattern: str, top: str, stop: threading.Event) -> Iterator[Found]:
    from actors.tool_executor.walk import glob_matcher, named_dirs, walk_files

    matches = glob_matcher(pattern)
    for hit in walk_files(walk_base, stop, top=top, enter=named_dirs(pattern)):
        if matches(hit.rel):
            yield hit


def _listing(found: list[Found], pattern: str, walk_base: str, left_out: int) -> str:
    from actors.tool_executor.walk import left_out_note

    notes = [left_out_note(left_out, "listed")] if left_out else []
    if not found:
        return "\n".join([f"No files match {pattern} in {walk_base}.", *notes])
    found.sort(key=lambda hit: hit.mtime, reverse=True)
    lines = [hit.path for hit in found[:MAX_FILES]]
    if len(found) > MAX_FILES:
        lines.append(
            f"(Showing the {MAX_FILES} newest of {len(found)} files. "
            "Use a narrower pattern or path.)"
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
