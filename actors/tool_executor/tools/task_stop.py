"""TaskStop: stop a background command and every process it started (Claude Code's name for
what its KillShell did)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from actors.errors import ToolFailure
from actors.tool_executor.context import Tool, ToolOutcome
from actors.tool_executor.schemas import TaskStopInput
from actors.tool_executor.tools.task_output import read

if TYPE_CHECKING:
    from actors.tool_executor.context import CallContext


async def run(args: TaskStopInput, ctx: CallContext) -> ToolOutcome:
    if ctx.background is None:
        raise ToolFailure("This session runs no background commands.")
    job = ctx.background.find(args.task_id)
    if job.state != "running":
        return ToolOutcome(f"Nothing to stop: {read(job)}")
    job = await ctx.background.stop(job, by="the model")
    return ToolOutcome(f"Stopped, with every process it started. {read(job)}")


TOOL = Tool(
    name="TaskStop",
    description="Stop a background command or agent (and all it started) by its id.",
    input_type=TaskStopInput,
    run=run,
    summary=lambda args, root: args.task_id,
    access=lambda args, root: None,
    read_only=True,
)
