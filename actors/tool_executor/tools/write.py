"""Write: create a file, or replace one the session has read, atomically."""

from __future__ import annotations

import os
import stat
from typing import TYPE_CHECKING

import anyio

from actors.errors import ToolFailure
from actors.tool_executor.context import Access, Outcome, Tool
from actors.tool_executor.files import (
    count_lines,
    read_checked,
    resolve_path,
    unified_diff,
    write_if_unchanged,
)
from actors.tool_executor.schemas import WriteInput

if TYPE_CHECKING:
    from actors.tool_executor.context import CallContext
    from actors.tool_executor.files import FileStamp


async def run(args: WriteInput, ctx: CallContext) -> Outcome:
    shown = ctx.resolve(args.file_path)
    real = await anyio.to_thread.run_sync(os.path.realpath, shown)
    old, mode = await anyio.to_thread.run_sync(_current, real, shown, ctx.ledger.get(real))
    old_text = None if old is None else old.decode("utf-8", errors="replace")
    diff = await anyio.to_thread.run_sync(unified_diff, old_text, args.content, shown)
    await ctx.check("create" if old is None else "write", ctx.paths(shown, real), preview=diff)
    data = args.content.encode("utf-8", errors="surrogateescape")
    stamp = await anyio.to_thread.run_sync(
        lambda: write_if_unchanged(real, shown, old, data, mode=mode)
    )
    ctx.ledger.record(real, stamp)
    verb = "Created" if old is None else "Wrote"
    return Outcome(f"{verb} {shown} ({count_lines(args.content)} lines).", diff=diff)


def _current(real: str, shown: str, stamp: FileStamp | None) -> tuple[bytes | None, int | None]:
    """The existing file's bytes and mode (``None, None`` for a new file), if it may be replaced."""
    try:
        st = os.stat(real)
    except FileNotFoundError:
        return None, None
    if stat.S_ISDIR(st.st_mode):
        raise ToolFailure(f"{shown} is a directory; give the path of a file to write.")
    return read_checked(real, shown, stamp, "write")


TOOL = Tool(
    name="Write",
    description="Create or overwrite a file. Read an existing file first.",
    input_type=WriteInput,
    run=run,
    summary=lambda args, root: resolve_path(args.file_path, root),
    access=lambda args, root: Access(resolve_path(args.file_path, root), writes=True),
)
