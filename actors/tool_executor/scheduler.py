"""Running one turn's tool calls: side by side, in the model's order where it matters.

Every call starts at once, limited by a shared CapacityLimiter. A call waits first for the
earlier calls of its batch that touch the same path (or a folder above or below it) when either
of them writes, so ``Edit A->B`` then ``Edit B->C`` on one file applies in order, while reads
and shell commands (whose paths are unknowable) run freely. A call's failure is its own result:
every exception becomes an ``is_error`` result and only cancellation reaches the siblings.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import anyio

from actors.errors import LegatoError, PermissionDenied
from actors.protocol import ToolFinished, ToolOutput, ToolResult, ToolStarted
from actors.tool_executor.context import Access, CallContext, Outcome
from actors.tool_executor.schemas import decode

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Sequence

    from actors.protocol import PermissionBrokerMsg, ToolCall, ToolEvent
    from actors.tool_executor.context import Tool
    from actors.tool_executor.files import ReadLedger
    from runtime import Address

    Send = Callable[[ToolEvent], Awaitable[None]]


@dataclass(frozen=True, slots=True)
class _Plan:
    call: ToolCall
    tool: Tool[Any] | None
    args: Any
    failure: str | None  # the input was unusable: this is the result
    access: Access | None  # with the real path, for ordering
    summary: str


class Scheduler:
    def __init__(
        self,
        tools: dict[str, Tool[Any]],
        *,
        permissions: Address[PermissionBrokerMsg],
        project_root: str,
        ledger: ReadLedger,
        max_concurrency: int,
        output_cap: int,
    ) -> None:
        self._tools = tools
        self._permissions = permissions
        self._root = project_root
        self._ledger = ledger
        self._limiter = anyio.CapacityLimiter(max_concurrency)
        self._output_cap = output_cap

    async def run(self, calls: Sequence[ToolCall], send: Send) -> None:
        """Run ``calls``; ``send`` gets ToolStarted, ToolOutput and one ToolFinished for each."""
        plans = [await self._plan(call) for call in calls]
        done = [anyio.Event() for _ in plans]
        async with anyio.create_task_group() as tasks:
            for index, plan in enumerate(plans):
                after = [
                    done[earlier] for earlier in range(index) if _ordered(plans[earlier], plan)
                ]
                tasks.start_soon(self._run_one, plan, after, done[index], send)

    async def _plan(self, call: ToolCall) -> _Plan:
        tool = self._tools.get(call.name)
        if tool is None:
            failure = (
                f"Unknown tool {call.name!r}. The available tools are: {', '.join(self._tools)}."
            )
            return _Plan(call, None, None, failure, None, call.name)
        try:
            args = decode(tool.name, call.input, tool.input_type)
            access = tool.access(args, self._root)
            if access is not None:
                real = await anyio.to_thread.run_sync(os.path.realpath, access.path)
                access = Access(real, access.writes)
            return _Plan(call, tool, args, None, access, tool.summary(args, self._root))
        except LegatoError as exc:
            return _Plan(call, tool, None, exc.describe(), None, call.name)
        except (ValueError, OSError) as exc:  # e.g. a NUL byte in a path
            return _Plan(call, tool, None, f"Invalid input for {tool.name}: {exc}", None, tool.name)

    async def _run_one(
        self, plan: _Plan, after: list[anyio.Event], done: anyio.Event, send: Send
    ) -> None:
        try:
            for earlier in after:
                await earlier.wait()
            # Started and Finished are sent holding the slot, so the stream shows the limit.
            async with self._limiter:
                await send(ToolStarted(id=plan.call.id, name=plan.call.name, summary=plan.summary))
                started = anyio.current_time()
                outcome = await self._execute(plan, send)
                result = ToolResult(
                    tool_use_id=plan.call.id,
                    content=outcome.content,
                    is_error=outcome.is_error,
                    denied=outcome.denied,
                )
                elapsed = anyio.current_time() - started
                await send(ToolFinished(result=result, elapsed=elapsed, diff=outcome.diff))
        finally:
            done.set()  # also on cancellation: nothing may wait on a call that will never end

    async def _execute(self, plan: _Plan, send: Send) -> Outcome:
        if plan.failure is not None or plan.tool is None:
            return Outcome(plan.failure or "", is_error=True)
        name = plan.tool.name

        async def emit(text: str) -> None:
            # Live output is for display only: a caller that stopped listening loses nothing.
            with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
                await send(ToolOutput(id=plan.call.id, text=text))

        ctx = CallContext(
            tool=name,
            project_root=self._root,
            ledger=self._ledger,
            output_cap=self._output_cap,
            permissions=self._permissions,
            emit=emit,
        )
        try:
            return await plan.tool.run(plan.args, ctx)
        except PermissionDenied as exc:
            content = f"Permission denied: {exc.message.rstrip('.')}. {exc.remedy}"
            return Outcome(content, is_error=True, denied=True)
        except LegatoError as exc:
            return Outcome(exc.describe(), is_error=True)
        except OSError as exc:
            where = f": {exc.filename}" if exc.filename else ""
            return Outcome(f"{name} failed: {exc.strerror or exc}{where}", is_error=True)
        except (
            Exception
        ) as exc:  # a bug or a broken broker: the model hears of it, the turn goes on
            return Outcome(f"{name} failed: {type(exc).__name__}: {exc}", is_error=True)


def _ordered(earlier: _Plan, later: _Plan) -> bool:
    """Whether ``later`` must wait for ``earlier``: same path or nested, and one of them writes."""
    a, b = earlier.access, later.access
    if a is None or b is None or not (a.writes or b.writes):
        return False
    return _within(a.path, b.path) or _within(b.path, a.path)


def _within(path: str, folder: str) -> bool:
    return path == folder or path.startswith(folder.rstrip(os.sep) + os.sep)
