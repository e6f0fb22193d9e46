"""NotebookEdit: replace, insert or delete one cell of a Jupyter notebook the session has read,
atomically, keeping it a valid nbformat 4 file written the way it was (indentation, final
newline)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import anyio

from actors import door
from actors.errors import ToolFailure
from actors.tool_executor import notebooks
from actors.tool_executor.context import Access, Tool, ToolOutcome
from actors.tool_executor.edits import fresh, write_if_unchanged
from actors.tool_executor.files import resolve_path, shown_path, unified_diff
from actors.tool_executor.schemas import NotebookEditInput

if TYPE_CHECKING:
    from actors.tool_executor.context import CallContext


async def run(args: NotebookEditInput, ctx: CallContext) -> ToolOutcome:
    if args.edit_mode == "insert" and args.cell_type is None:
        raise ToolFailure("cell_type is required to insert a cell: give 'code' or 'markdown'.")
    if args.edit_mode != "insert" and args.cell_id is None:
        raise ToolFailure(
            f"cell_id is required to {args.edit_mode} a cell. Read the notebook for its cell ids."
        )
    if not args.notebook_path.lower().endswith(".ipynb"):
        raise ToolFailure(
            f"notebook_path {args.notebook_path!r} is not a .ipynb file; use Edit for other files."
        )
    target = await anyio.to_thread.run_sync(door.locate, args.notebook_path, ctx.project_root)
    shown = target.shown
    now = await anyio.to_thread.run_sync(fresh, target, ctx.files_read.get(target.real), "edit")
    if now is None:
        raise ToolFailure(
            f"File does not exist: {shown}. NotebookEdit changes an existing notebook."
        )
    old, mode = now
    notebook = notebooks.parse(old, shown)
    said, label, before, after = apply(notebook, args, shown)
    data = notebooks.dumps(notebook, old)
    diff = await anyio.to_thread.run_sync(unified_diff, before, after, f"{shown} {label}")
    await ctx.check("write", ctx.paths(shown, target.real), preview=diff, hard_links=target.links)
    stamp = await anyio.to_thread.run_sync(lambda: write_if_unchanged(target, old, data, mode=mode))
    ctx.files_read.record(target.real, stamp)
    return ToolOutcome(f"{said} in {target.where()}.", diff=diff)


def apply(
    notebook: notebooks.Notebook, args: NotebookEditInput, shown: str
) -> tuple[str, str, str | None, str]:
    """Make the edit on ``notebook``: what was done, the cell's label for the diff, and its
    source before (None: a new cell) and after."""
    cells = notebook["cells"]
    if args.edit_mode == "insert":
        assert args.cell_type is not None  # checked before the file was read
        at = 0 if args.cell_id is None else notebooks.find(notebook, args.cell_id, shown) + 1
        cell = notebooks.new_cell(args.cell_type, args.new_source, notebook)
        cells.insert(at, cell)
        name = notebooks.cell_id(cell, at)
        where = "at the start" if at == 0 else f"after cell {args.cell_id}"
        said = f"Inserted {args.cell_type} cell {name} {where}"
        return said, f"[new cell {name}]", None, args.new_source
    assert args.cell_id is not None
    index = notebooks.find(notebook, args.cell_id, shown)
    cell = cells[index]
    name = notebooks.cell_id(cell, index)
    before = notebooks.text_of(cell.get("source"))
    if args.edit_mode == "delete":
        del cells[index]
        return f"Deleted cell {name}", f"[cell {name}]", before, ""
    if args.cell_type is not None and args.cell_type != cell.get("cell_type"):
        notebooks.retype(cell, args.cell_type)
    elif cell.get("cell_type") == "code":
        # Its outputs came from the old source; Jupyter clears them the same way on an edit.
        notebooks.retype(cell, "code")
    cell["source"] = notebooks.as_lines(args.new_source)
    return f"Replaced the source of cell {name}", f"[cell {name}]", before, args.new_source


def _access(args: NotebookEditInput, root: str) -> Access:
    return Access(resolve_path(args.notebook_path, root), writes=True)


TOOL = Tool(
    name="NotebookEdit",
    description=(
        "Replace, insert or delete one cell of a Jupyter notebook (.ipynb) you have Read. "
        "cell_id as Read shows it; insert goes after cell_id, or first without one."
    ),
    input_type=NotebookEditInput,
    run=run,
    summary=lambda args, root: shown_path(args.notebook_path, root),
    access=_access,
)
