"""Write: create a file, or replace one the session has read, atomically."""

from __future__ import annotations

from typing import TYPE_CHECKING

import anyio

from actors import door
from actors.counts import counted
from actors.tool_executor.context import Access, Tool, ToolOutcome
from actors.tool_executor.edits import fresh, write_if_unchanged
from actors.tool_executor.files import count_lines, resolve_path, shown_path, unified_diff
from actors.tool_executor.schemas import WriteInput

if TYPE_CHECKING:
    from actors.tool_executor.context import CallContext


async def run(args: WriteInput, ctx: CallContext) -> ToolOutcome:
    target = await anyio.to_thread.run_sync(door.locate, args.file_path, ctx.project_root)
    now = await anyio.to_thread.run_sync(fresh, target, ctx.files_read.get(target.real), "write")
    old, mode = (None, None) if now is None else now
    old_text = None if old is None else old.decode("utf-8", errors="replace")
    diff = await anyio.to_thread.run_sync(unified_diff, old_text, args.content, target.shown)
    await ctx.check(
        "create" if old is None else "write",
        ctx.paths(target.shown, target.real),
        preview=diff,
        hard_links=target.links,
    )
    data = args.content.encode("utf-8", errors="surrogateescape")
    stamp = await anyio.to_thread.run_sync(lambda: write_if_unchanged(target, old, data, mode=mode))
    ctx.files_read.record(target.real, stamp)
    verb = "Created" if old is None else "Wrote"
    size = counted(count_lines(args.content), "line")
    return ToolOutcome(f"{verb} {target.where()} ({size}).", diff=diff)


TOOL = Tool(
    name="Write",
    description="Create or overwrite a file. Read an existing file first.",
    input_type=WriteInput,
    run=run,
    summary=lambda args, root: shown_path(args.file_path, root),
    access=lambda args, root: Access(resolve_path(args.file_path, root), writes=True),
)
