"""Bash: run a shell command in the project root, in its own process group."""

from __future__ import annotations

import functools
import re
import signal
from typing import TYPE_CHECKING

import anyio

from actors.errors import CommandNotFound, ToolFailure
from actors.output_caps import HeadTail
from actors.tool_executor import background
from actors.tool_executor.context import Tool, ToolOutcome
from actors.tool_executor.process import UNCONFINED, run_group
from actors.tool_executor.sandbox.watch import put_back_line, putting_back
from actors.tool_executor.schemas import DEFAULT_TIMEOUT_MS, BashInput

if TYPE_CHECKING:
    from actors.tool_executor.context import CallContext
    from actors.tool_executor.process import Confinement

# bash's status for "command not found" (and for an executable it could not find to run).
NOT_FOUND = 127
# bash's words for it: "bash: line 1: foo: command not found" (or "bash: foo: ...").
_NOT_FOUND_LINE = re.compile(
    r"^\S*bash: (?:line \d+: )?([^:\n]+): command not found$", re.MULTILINE
)


async def run(args: BashInput, ctx: CallContext) -> ToolOutcome:
    if args.run_in_background:
        return await _start_in_background(args, ctx)
    confinement = await _confinement(args, ctx)
    timeout_ms = args.timeout or DEFAULT_TIMEOUT_MS
    capture = HeadTail(ctx.output_cap)
    ctx.output_so_far = capture.text  # an interrupted call still reports what it printed
    async with putting_back(confinement.watched, ctx.project_root) as put_back:
        done = await run_group(
            args.command,
            cwd=ctx.project_root,
            confinement=confinement,
            timeout=timeout_ms / 1000,
            cap=ctx.output_cap,
            emit=ctx.emit,
            capture=capture,
            env=ctx.command_env,
        )
    parts = [done.output.rstrip("\n")] if done.output.strip() else []
    code = done.returncode
    if code is None:
        parts.append(
            f"Command timed out after {done.elapsed:.1f}s (timeout {timeout_ms} ms); "
            "it and every process it started were stopped."
        )
    elif code < 0:
        parts.append(f"Killed by {_signal_name(-code)} after {done.elapsed:.1f}s")
    elif code != 0:
        parts.append(f"Exit code {code}")
    remedy = None
    if code == NOT_FOUND:
        missing = _NOT_FOUND_LINE.findall(done.output)
        what = f"'{missing[-1]}' was not found." if missing else "A command was not found."
        not_found = CommandNotFound(what)
        parts.append(not_found.describe())
        remedy = not_found.remedy
    if code and confinement.layout is not None:
        # Only a failed confined command: what the sandbox refused it, if that is why (its
        # patterns load then, not with the tools' list).
        from actors.tool_executor.sandbox import refusals

        explained = await anyio.to_thread.run_sync(
            functools.partial(
                refusals.explain,
                done.output,
                confinement.layout,
                ctx.project_root,
                by_person=ctx.typed_by_person,
            )
        )
        parts += explained
        if explained and remedy is None:
            # The person sees the output's first line only (often "Traceback ..."): the
            # explanation is theirs as much as the model's.
            remedy = "\n".join(explained)
    if put_back:  # Landlock let it write there; the change is undone, and the model told so
        parts.append(put_back_line(put_back))
    return ToolOutcome("\n".join(parts) or "(no output)", is_error=code != 0, remedy=remedy)


async def _confinement(args: BashInput, ctx: CallContext) -> Confinement:
    """Ask the permission broker, then say how the command runs: the same for a command in
    the foreground and one in the background."""
    # The permission check comes before the sandbox's work for the command, so that questions
    # reach the person in the model's order; only the session's one trial of the sandbox may
    # come first, and the calls wait for it in the order they came.
    confining = await ctx.confining()
    if args.dangerouslyDisableSandbox and confining != "none":
        # A sandbox is on, even a partial one, and the model asks to leave it: a person
        # decides, every time.
        await ctx.check(
            "run", command=args.command, unconfined=True, background=args.run_in_background
        )
        return UNCONFINED
    # Only a full sandbox counts for sandbox.autoAllow: running unlisted commands unasked
    # relies on blocked files being unreadable and on no network at all.
    allowed = await ctx.check(
        "run",
        command=args.command,
        confined=confining == "full",
        partly_confined=confining == "partial",
        background=args.run_in_background,
    )
    # Unconfined when every program of it is in sandbox.unconfinedCommands.
    return UNCONFINED if allowed.unconfined else await ctx.confine(ctx.project_root)


async def _start_in_background(args: BashInput, ctx: CallContext) -> ToolOutcome:
    jobs = ctx.background
    if jobs is None:
        raise ToolFailure("This session cannot run commands in the background.")
    jobs.check_room()  # before the person is asked about a command that could not start
    confinement = await _confinement(args, ctx)
    timeout = args.timeout / 1000 if args.timeout else background.DEFAULT_TIMEOUT
    job = jobs.start(
        args.command,
        cwd=ctx.project_root,
        confinement=confinement,
        timeout=timeout,
        env=ctx.command_env,
    )
    return ToolOutcome(
        f"Command running in the background with ID: {job.id} (timeout {timeout:.0f} s). "
        f'Read its new output with TaskOutput (task_id "{job.id}"); stop it with TaskStop.'
    )


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:  # a real-time signal has no name
        return f"signal {number}"


TOOL = Tool(
    name="Bash",
    description=(
        "Run a bash command in the project root; returns output and exit code. "
        "timeout in ms (default 120000, max 600000). run_in_background: returns an id at "
        "once for TaskOutput and TaskStop (timeout default 2 h)."
    ),
    input_type=BashInput,
    run=run,
    summary=lambda args, root: (
        f"{args.command} · in the background" if args.run_in_background else args.command
    ),
    access=lambda args, root: None,  # what a command touches is unknowable: it runs freely
    command=lambda args: args.command,
)
