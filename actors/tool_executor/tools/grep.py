"""Grep: search file contents with a Python regex, by ripgrep where it reads the pattern alike,
else by the Python search in worker threads."""

from __future__ import annotations

import contextlib
import functools
import os
import stat
import threading
from typing import TYPE_CHECKING

import anyio

from actors import door
from actors.errors import ToolFailure
from actors.tool_executor import regexes
from actors.tool_executor.context import Access, Tool, ToolOutcome
from actors.tool_executor.files import resolve_path
from actors.tool_executor.schemas import GrepInput

if TYPE_CHECKING:
    from actors.tool_executor.context import CallContext
    from actors.tool_executor.search import Query
    from actors.tool_executor.walk import Found


async def run(args: GrepInput, ctx: CallContext) -> ToolOutcome:
    # ripgrep's driver, the search and the walk load with the first search, not with the tools'
    # list that goes into the first request.
    from actors.tool_executor import ripgrep, search_rg
    from actors.tool_executor.search import Searcher, wanted
    from actors.tool_executor.walk import named_dirs, walk_readable

    query = _query(args)
    target = await anyio.to_thread.run_sync(door.locate, args.path or ".", ctx.project_root)
    folder = await anyio.to_thread.run_sync(os.path.isdir, target.real)
    await ctx.check(
        "read", ctx.paths(target.shown, target.real), hard_links=target.links, folder=folder
    )
    single = await anyio.to_thread.run_sync(_single_file, target)
    if single is None:
        rg = ripgrep.locate()
        if rg is not None:
            with contextlib.suppress(ripgrep.Rejected, ripgrep.Unavailable):
                found = await search_rg.grep(
                    rg, query, target.shown, ctx.project_root, ctx.readable, ctx.output_cap
                )
                if found is not None:
                    return ToolOutcome(found)
    try:
        query.regex  # noqa: B018 - compiled here, where its failure is the call's
    except regexes.BadPattern as exc:
        raise _invalid(query.pattern, exc) from None
    stop = threading.Event()
    searcher = Searcher(query, ctx.output_cap, stop)
    try:
        if single is None:
            # Each file of the walk is checked like a Read of its own: the folder's permission
            # says nothing of a blocked file in it.
            files = ripgrep.files(
                target.shown,
                ctx.project_root,
                stop,
                enter=named_dirs(query.glob or ""),
                keep=wanted(query),
                order="path",
                look=True,  # sizes, and the links the door checks
            )
            await walk_readable(ctx.readable, target.shown, files, searcher.feed, stop)
        else:
            # Opened as checked: the real path, not whatever the name leads to by then.
            search = functools.partial(searcher.search, single, named=True)
            await anyio.to_thread.run_sync(search, abandon_on_cancel=True)
    finally:
        stop.set()  # an abandoned search stops at its next file
    return ToolOutcome(searcher.report(target.shown))


def _single_file(target: door.Target) -> Found | None:
    """The file the call names, or None when it is a folder."""
    from actors.tool_executor.walk import Found

    try:
        st = os.stat(target.real)
    except FileNotFoundError:
        raise ToolFailure(f"Path does not exist: {target.shown}.") from None
    if stat.S_ISDIR(st.st_mode):
        return None
    shown = target.shown
    return Found(shown, os.path.basename(shown), st.st_mtime, st.st_size, target.real, target.links)


def _query(args: GrepInput) -> Query:
    from actors.tool_executor.search import TYPES, Query, literal_of

    try:
        regexes.check_pattern(args.pattern, ignore_case=args.ignore_case, multiline=args.multiline)
    except regexes.BadPattern as exc:
        raise _invalid(args.pattern, exc) from None
    if args.type is not None and args.type not in TYPES:
        raise ToolFailure(f"Unknown type {args.type!r}; known types: {', '.join(sorted(TYPES))}.")
    context = args.context or 0
    return Query(
        pattern=args.pattern,
        mode=args.output_mode,
        glob=args.glob,
        type=args.type,
        multiline=args.multiline,
        numbers=args.line_numbers,
        before=args.before if args.before is not None else context,
        after=args.after if args.after is not None else context,
        head_limit=args.head_limit,
        literal=literal_of(args.pattern, ignore_case=args.ignore_case),
        ignore_case=args.ignore_case,
    )


def _invalid(pattern: str, exc: regexes.BadPattern) -> ToolFailure:
    return ToolFailure(
        f"Invalid regex {pattern!r}: {exc}. Grep takes a Python regex; "
        r"escape literal ( [ { . * + ? with \."
    )


TOOL = Tool(
    name="Grep",
    description=(
        "Search file contents with a Python regex. output_mode: files_with_matches (default), "
        "content (-A/-B/-C context, -n), count. Skips .git, node_modules, .gitignored, "
        "binary, >20 MB and blocked files; glob filters file names (*.py) or paths "
        "(src/**/*.ts), dotfiles included."
    ),
    input_type=GrepInput,
    run=run,
    summary=lambda args, root: args.pattern,
    access=lambda args, root: Access(resolve_path(args.path or ".", root), writes=False),
    read_only=True,
)
