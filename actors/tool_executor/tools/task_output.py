"""TaskOutput: what a background command printed since the last read, and how it stands.

Claude Code's name and fields (TaskOutput replaced its BashOutput, whose ``filter`` Legato
keeps). Each read moves the command's read offset on, so the next gives only newer output; a
read costs what is new, however long the command has printed.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import anyio

from actors.errors import InvalidToolInput, ToolFailure
from actors.tool_executor.context import Tool, ToolOutcome
from actors.tool_executor.sandbox import refusals
from actors.tool_executor.schemas import DEFAULT_WAIT_MS, TaskOutputInput

if TYPE_CHECKING:
    from actors.tool_executor.background import Job
    from actors.tool_executor.context import CallContext


async def run(args: TaskOutputInput, ctx: CallContext) -> ToolOutcome:
    if ctx.background is None:
        raise ToolFailure("This session runs no background commands.")
    pattern = _compile(args.filter)
    job = ctx.background.get(args.task_id)
    if args.block and job.state == "running":
        # An interrupt ends the wait, never the command.
        wait = DEFAULT_WAIT_MS if args.timeout is None else args.timeout  # 0: no wait
        with anyio.move_on_after(wait / 1000):
            await job.done.wait()
    content = read(job, pattern)
    if not job.explained and job.state == "exited" and job.code and job.layout is not None:
        # The first read after its failure: what the sandbox refused it, if that is why.
        job.explained = True
        explained = await anyio.to_thread.run_sync(
            refusals.explain, job.spool.text(), job.layout, job.cwd
        )
        content = "\n".join([content, *explained])
    return ToolOutcome(content)


def read(job: Job, pattern: re.Pattern[str] | None = None) -> str:
    """The status line, then the output new since the last read (only matching lines, given
    a pattern); the read is remembered, and so is the model's knowing of the command's end."""
    final = job.state != "running"
    chunk = job.spool.read(job.read_to, final=final)
    job.read_to = chunk.end
    if final:
        job.reported = True
    lines = [f"{job.id}: {job.status()}."]
    text = chunk.data.decode("utf-8", errors="replace")
    if chunk.skipped and job.spool.path is None:
        lines.append(
            f"[{chunk.skipped} bytes of new output are left out here and were not kept: no "
            f"file could be made for them ({job.spool.unspillable})]"
        )
    elif chunk.skipped:
        lines.append(
            f"[{chunk.skipped} bytes of new output are left out here; the whole output is in "
            f"{job.spool.path}]"
        )
    elif job.spool.path is not None:
        lines.append(f"[the whole output is also in {job.spool.path}]")
    if pattern is not None:
        kept = [line for line in text.splitlines() if pattern.search(line)]
        total = len(text.splitlines())
        lines.append(f"[{len(kept)} of {total} new lines match the filter]")
        text = "\n".join(kept)
    if job.spool.dropped:
        lines.append(f"[{job.spool.dropped} bytes were past what the output file keeps]")
    lines.append(text.rstrip("\n") if text.strip() else "(no new output)")
    return "\n".join(lines)


def _compile(pattern: str | None) -> re.Pattern[str] | None:
    if pattern is None:
        return None
    try:
        return re.compile(pattern)
    except re.error as exc:
        raise InvalidToolInput(f"Invalid input for TaskOutput: filter {pattern!r}: {exc}") from None


TOOL = Tool(
    name="TaskOutput",
    description=(
        "A background command's status and its output since the last read, or a background "
        "agent's (agent_N) state and, once done, its answer. "
        "block: wait up to timeout ms (default 30000) for its end."
    ),
    input_type=TaskOutputInput,
    run=run,
    summary=lambda args, root: args.task_id,
    access=lambda args, root: None,
    read_only=True,
)
