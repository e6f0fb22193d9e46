"""Grep: search file contents with a Python regex, in a worker thread (no ripgrep needed)."""

from __future__ import annotations

import os
import re
import threading
from typing import TYPE_CHECKING

import anyio

from actors.errors import ToolFailure
from actors.tool_executor.context import Access, Outcome, Tool
from actors.tool_executor.files import resolve_path
from actors.tool_executor.schemas import GrepInput
from actors.tool_executor.search import TYPES, Query, Searcher, candidates
from actors.tool_executor.walk import Found, walk_readable

if TYPE_CHECKING:
    from actors.tool_executor.context import CallContext


async def run(args: GrepInput, ctx: CallContext) -> Outcome:
    shown = ctx.resolve(args.path or ".")
    query = _query(args)
    real = await anyio.to_thread.run_sync(os.path.realpath, shown)
    await ctx.check("read", ctx.paths(shown, real))
    stop = threading.Event()
    searcher = Searcher(query, ctx.output_cap, stop)
    left_out = 0
    try:
        single = await anyio.to_thread.run_sync(_single_file, shown, real)
        if single is None:
            # Each file of the walk is checked like a Read of its own: the folder's permission
            # says nothing of a blocked file in it, or of where a symlink in it leads.
            files = candidates(shown, query, ctx.project_root, stop)
            left_out = await walk_readable(ctx, shown, files, searcher.feed, stop)
        else:
            # The file checked, not whatever the name leads to by the time it is opened.
            await anyio.to_thread.run_sync(searcher.search, single, real, abandon_on_cancel=True)
    finally:
        stop.set()  # an abandoned search stops at its next file
    return Outcome(searcher.report(shown, left_out))


def _single_file(shown: str, real: str) -> Found | None:
    """The file ``shown`` names, or None when it is a folder."""
    if not os.path.exists(real):
        raise ToolFailure(f"Path does not exist: {shown}.")
    if os.path.isdir(real):
        return None
    st = os.stat(real)
    return Found(shown, os.path.basename(shown), st.st_mtime, st.st_size)


def _query(args: GrepInput) -> Query:
    flags = re.IGNORECASE if args.ignore_case else 0
    if args.multiline:
        flags |= re.MULTILINE | re.DOTALL
    try:
        regex = re.compile(args.pattern, flags)
    except re.error as exc:
        raise ToolFailure(
            f"Invalid regex {args.pattern!r}: {exc}. Grep takes a Python regex; "
            r"escape literal ( [ { . * + ? with \."
        ) from None
    if args.type is not None and args.type not in TYPES:
        raise ToolFailure(f"Unknown type {args.type!r}; known types: {', '.join(sorted(TYPES))}.")
    context = args.context or 0
    return Query(
        regex=regex,
        mode=args.output_mode,
        glob=args.glob,
        type=args.type,
        multiline=args.multiline,
        numbers=args.line_numbers,
        before=args.before if args.before is not None else context,
        after=args.after if args.after is not None else context,
        head_limit=args.head_limit,
    )


TOOL = Tool(
    name="Grep",
    description=(
        "Search file contents with a Python regex. output_mode: files_with_matches (default), "
        "content (-A/-B/-C context, -n), count. Skips .git, node_modules and what .gitignore "
        "excludes; glob filters file names (*.py) or paths (src/**/*.ts), dotfiles included."
    ),
    input_type=GrepInput,
    run=run,
    summary=lambda args, root: args.pattern,
    access=lambda args, root: Access(resolve_path(args.path or ".", root), writes=False),
)
