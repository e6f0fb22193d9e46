"""TaskOutput: what a background command printed since the last read, and how it stands.

Claude Code's name and fields (TaskOutput replaced its BashOutput, whose ``filter`` Legato
keeps). Each read moves the command's read offset on, so the next gives only newer output; a
read costs what is new, however long the command has printed.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import anyio

from actors.counts import counted
from actors.errors import InvalidToolInput, ToolFailure
from actors.tool_executor import regexes
from actors.tool_executor.context import Tool, ToolOutcome
from actors.tool_executor.schemas import DEFAULT_WAIT_MS, TaskOutputInput

if TYPE_CHECKING:
    import regex

    from actors.tool_executor.background import Job
    from actors.tool_executor.context import CallContext


async def run(args: TaskOutputInput, ctx: CallContext) -> ToolOutcome:
    if ctx.background is None:
        raise ToolFailure("This session runs no background commands.")
    pattern = _compile(args.filter)
    job = ctx.background.find(args.task_id)
    if args.block and job.state == "running":
        # An interrupt ends the wait, never the command.
        wait = DEFAULT_WAIT_MS if args.timeout is None else args.timeout  # 0: no wait
        with anyio.move_on_after(wait / 1000):
            await job.done.wait()
    content = read(job) if pattern is None else await _filtered(job, pattern)
    if not job.explained and job.state == "exited" and job.code and job.layout is not None:
        # The first read after its failure: what the sandbox refused it, if that is why.
        job.explained = True
        from actors.tool_executor.sandbox import refusals  # loaded for a failed command only

        explained = await anyio.to_thread.run_sync(
            refusals.explain, job.spool.text(), job.layout, job.cwd
        )
        content = "\n".join([content, *explained])
    return ToolOutcome(content)


def read(job: Job) -> str:
    """The status line, then the output new since the last read; the read is remembered, and
    so is the model's knowing of the command's end."""
    head, text, tail = _take(job)
    return _shown(head, text, tail)


async def _filtered(job: Job, pattern: regex.Pattern[str]) -> str:
    """``read``, keeping only the new lines ``pattern`` matches. The matching runs in a worker
    thread: however the pattern backtracks, the session goes on (``regexes``)."""
    before = (job.read_to, job.reported)
    head, text, tail = _take(job)
    try:
        kept, total = await anyio.to_thread.run_sync(_matching, pattern, text)
    except ToolFailure:  # the pattern was stopped: the output stays to be read again
        job.read_to, job.reported = before
        raise
    head.append(f"[{len(kept)} of {counted(total, 'new line')} match the filter]")
    return _shown(head, "\n".join(kept), tail)


def _matching(pattern: regex.Pattern[str], text: str) -> tuple[list[str], int]:
    lines = text.splitlines()
    return [line for line in lines if regexes.search(pattern, line)], len(lines)


def _take(job: Job) -> tuple[list[str], str, list[str]]:
    """The lines before the new output, the new output, and the lines after it."""
    final = job.state != "running"
    chunk = job.spool.read(job.read_to, final=final)
    job.read_to = chunk.end
    if final:
        job.reported = True
    head = [f"{job.id}: {job.status()}."]
    text = chunk.data.decode("utf-8", errors="replace")
    if chunk.skipped and job.spool.path is None:
        head.append(
            f"[{chunk.skipped} bytes of new output are left out here and were not kept: no "
            f"file could be made for them ({job.spool.unspillable})]"
        )
    elif chunk.skipped:
        head.append(
            f"[{chunk.skipped} bytes of new output are left out here; the whole output is in "
            f"{job.spool.path}]"
        )
    elif job.spool.path is not None:
        head.append(f"[the whole output is also in {job.spool.path}]")
    tail = []
    if job.spool.dropped:
        tail.append(f"[{job.spool.dropped} bytes were past what the output file keeps]")
    return head, text, tail


def _shown(head: list[str], text: str, tail: list[str]) -> str:
    return "\n".join([*head, *tail, text.rstrip("\n") if text.strip() else "(no new output)"])


def _compile(pattern: str | None) -> regex.Pattern[str] | None:
    if pattern is None:
        return None
    try:
        return regexes.compile_pattern(pattern)
    except regexes.BadPattern as exc:
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
