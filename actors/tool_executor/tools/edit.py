"""Edit: replace an exact string in a file the session has read, atomically."""

from __future__ import annotations

from typing import TYPE_CHECKING

import anyio

from actors import door
from actors.errors import ToolFailure
from actors.tool_executor.context import Access, Tool, ToolOutcome
from actors.tool_executor.edits import fresh, write_if_unchanged
from actors.tool_executor.files import resolve_path, shown_path, unified_diff
from actors.tool_executor.schemas import EditInput

if TYPE_CHECKING:
    from actors.tool_executor.context import CallContext


async def run(args: EditInput, ctx: CallContext) -> ToolOutcome:
    if args.old_string == args.new_string:
        raise ToolFailure("old_string and new_string are the same; there is nothing to change.")
    if not args.old_string:
        raise ToolFailure(
            "old_string is empty; give the exact text to replace (use Write to create a file)."
        )
    target = await anyio.to_thread.run_sync(door.locate, args.file_path, ctx.project_root)
    shown = target.shown
    now = await anyio.to_thread.run_sync(fresh, target, ctx.files_read.get(target.real), "edit")
    if now is None:
        raise ToolFailure(f"File does not exist: {shown}. Use Write to create a file.")
    old, mode = now
    # surrogateescape: bytes that are not UTF-8 go back to disk exactly as they were.
    text = old.decode("utf-8", errors="surrogateescape")
    new_text, count = replace(text, args, shown)
    data = new_text.encode("utf-8", errors="surrogateescape")
    diff = await anyio.to_thread.run_sync(
        unified_diff,
        old.decode("utf-8", errors="replace"),
        data.decode("utf-8", errors="replace"),
        shown,
    )
    await ctx.check("write", ctx.paths(shown, target.real), preview=diff, hard_links=target.links)
    stamp = await anyio.to_thread.run_sync(lambda: write_if_unchanged(target, old, data, mode=mode))
    ctx.files_read.record(target.real, stamp)
    times = "1 occurrence" if count == 1 else f"{count} occurrences"
    return ToolOutcome(f"Edited {target.where()}: replaced {times} of old_string.", diff=diff)


def replace(text: str, args: EditInput, shown: str) -> tuple[str, int]:
    """``text`` with the edit applied, and how many replacements that made."""
    old, new = args.old_string, args.new_string
    count = text.count(old)
    if count == 0 and "\r\n" in text and "\n" in old:
        # Read shows CRLF files without their CRs; the model's strings then lack them too.
        old, new = _crlf(old), _crlf(new)
        count = text.count(old)
    if count == 0:
        raise ToolFailure(
            f"old_string was not found in {shown}. Read the file again and copy the text "
            "exactly, indentation included."
        )
    if count > 1 and not args.replace_all:
        raise ToolFailure(
            f"old_string was found {count} times in {shown}; add surrounding lines to make it "
            "unique, or set replace_all to replace every occurrence."
        )
    if args.replace_all:
        return text.replace(old, new), count
    return text.replace(old, new, 1), 1


def _crlf(text: str) -> str:
    return text.replace("\r\n", "\n").replace("\n", "\r\n")


TOOL = Tool(
    name="Edit",
    description=(
        "Replace old_string with new_string in a file you have Read. old_string must match "
        "exactly once unless replace_all."
    ),
    input_type=EditInput,
    run=run,
    summary=lambda args, root: shown_path(args.file_path, root),
    access=lambda args, root: Access(resolve_path(args.file_path, root), writes=True),
)
