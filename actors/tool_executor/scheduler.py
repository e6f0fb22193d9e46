"""Running the model's tool calls: side by side, in the model's order where it matters.

Calls arrive one ``RunTools`` at a time, each as soon as the model has finished writing it, so
the calls of one answer arrive spread out while the answer still streams. Every call starts at
once, limited by one CapacityLimiter for the session (and commands by one more, so that file
tools never wait behind a crowd of long commands). A call first waits for the calls that
arrived before it and are still in flight when they touch the same path (or a folder above or
below it) and either of them writes, so ``Edit A->B`` then ``Edit B->C`` on one file applies in
order, while reads and shell commands (whose paths are unknowable) run freely. The order is the
order of arrival: ``register`` gives each call its place synchronously, as its message comes in
(the actor's ``arrived``), because the handlers of concurrent messages start in no particular
order. A call's failure is its own result: every exception becomes an ``is_error`` result and
only cancellation reaches the siblings.

Interrupting (``interrupt``, for the user's Ctrl-C) is not cancelling: each call runs in a cancel
scope of its own, and when that scope is cancelled the call still ends with a ``ToolFinished``,
saying it was interrupted, after how long, with the output captured so far, so the model is
told exactly what happened. Cancelling a whole ``run`` (its caller went away) ends its calls
with no result at all, since nobody is listening.

What a call is planned into, and which calls must wait for which, is ``plans.py``; how one
attempt of a plan, or a call stopped early, becomes its outcome is ``outcomes.py``.
"""

from __future__ import annotations

import contextlib
import os
from typing import TYPE_CHECKING, Any

import anyio
import msgspec

from actors import telemetry
from actors.protocol import (
    AgentEvent,
    Show,
    ToolFinished,
    ToolOutput,
    ToolResult,
    ToolStarted,
)
from actors.tool_executor.context import CallContext, InputUpdated, ToolOutcome
from actors.tool_executor.outcomes import attempt, interrupted, outcome_word, withdrawn
from actors.tool_executor.plans import make_plan, ordered, replan
from actors.tool_names import UNCHECKED_TOOLS
from runtime import KernelError

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Mapping, Sequence

    from actors.protocol import (
        AgentScope,
        McpClientMsg,
        PermissionBrokerMsg,
        ToolCall,
        ToolEvent,
        UiMsg,
    )
    from actors.tool_executor.background import Jobs
    from actors.tool_executor.context import Confining, Tool
    from actors.tool_executor.files import FilesRead
    from actors.tool_executor.hooks import ToolHooks
    from actors.tool_executor.plans import Plan
    from actors.tool_executor.process import Confinement
    from actors.tool_executor.web.pages import WebPages
    from runtime import Address

    Send = Callable[[ToolEvent], Awaitable[None]]


class _Slot(msgspec.Struct, eq=False):
    """A call from its arrival to its end: what later calls on the same path wait for."""

    call: ToolCall
    scope: anyio.CancelScope  # cancelled by ``interrupt``
    earlier: tuple[_Slot, ...]  # the calls in flight when it arrived, in arrival order
    planned: anyio.Event = msgspec.field(default_factory=anyio.Event)  # ``plan`` is known
    # Its first permission check is decided (or it ended without one): the calls after it may
    # put theirs, so questions reach the person in the model's order (calls arrive one by one
    # as the answer streams, and what they do first before asking takes different times).
    checked: anyio.Event = msgspec.field(default_factory=anyio.Event)
    done: anyio.Event = msgspec.field(default_factory=anyio.Event)
    plan: Plan | None = None
    ctx: CallContext | None = None  # once it holds a slot: whether it waits for permission
    withdrawn: bool = False  # stopped by ``withdraw``: it was not run

    def waiting(self) -> bool:
        """Nothing done yet: no slot, or waiting for the user's permission."""
        return self.ctx is None or self.ctx.asking


class Scheduler:
    def __init__(
        self,
        tools: dict[str, Tool[Any]],
        *,
        permissions: Address[PermissionBrokerMsg],
        project_root: str,
        files_read: FilesRead,
        max_concurrency: int,
        max_commands: int,
        output_cap: int,
        ui: Address[UiMsg] | None = None,
        confine: Callable[[str], Awaitable[Confinement]] | None = None,  # None: unconfined
    ) -> None:
        self._tools = tools
        self._confine = confine
        self._ui = ui  # progress goes straight there; None: on each run's stream
        self.command_env: Mapping[str, str] | None = None  # None: the process's own
        self.confining: Callable[[], Awaitable[Confining]] | None = None  # None: never confined
        self.background: Jobs | None = None  # None: Bash runs nothing in the background
        self.mcp: Address[McpClientMsg] | None = None  # the MCP servers' tools; None: none
        self.web: WebPages | None = None  # WebFetch's pages; None: WebFetch refuses
        self.hooks: ToolHooks | None = None  # the user's PreToolUse/PostToolUse; None: none
        self._permissions = permissions
        self._root = project_root
        self._files_read = files_read
        self._limiter = anyio.CapacityLimiter(max_concurrency)  # every call, the session's
        # Calls that run a process (a shell command) also take one of these, first: a command
        # waiting for one holds no place that a file tool could use.
        self._commands = anyio.CapacityLimiter(min(max_commands, max_concurrency))
        self._output_cap = output_cap
        self._slots: dict[str, _Slot] = {}  # by call id, from arrival to end, in arrival order
        self._interrupted: set[str] = set()  # ids interrupted before they arrived

    @property
    def tools(self) -> dict[str, Tool[Any]]:
        return self._tools

    def offer_only(self, offered: tuple[str, ...] | None, refused: tuple[str, ...]) -> None:
        """Only these tools exist for the session (the SDK's ``tools`` and
        ``disallowed_tools``; ``offered`` None: all): a call to another is answered as a call to
        a tool that does not exist."""
        self._tools = {
            name: tool
            for name, tool in self._tools.items()
            if (offered is None or name in offered) and name not in refused
        }

    def register(self, calls: Sequence[ToolCall]) -> None:
        """Give each call its place in the session's order; synchronous, so that nothing can
        come between two arrivals. Calls already registered keep theirs."""
        for call in calls:
            if call.id in self._slots:
                continue
            scope = anyio.CancelScope()
            if call.id in self._interrupted:
                self._interrupted.discard(call.id)
                scope.cancel()
            self._slots[call.id] = _Slot(call, scope, tuple(self._slots.values()))

    async def run(
        self,
        calls: Sequence[ToolCall],
        send: Send,
        agent: AgentScope | None = None,
        *,
        by_person: bool = False,
    ) -> None:
        """Run ``calls``; ``send`` gets ToolStarted, ToolOutput and one ToolFinished for each.
        ``agent``: the subagent making them, held to its tools. ``by_person``: the person typed
        them (``!cmd``): no hooks run, the broker asks nothing the rules leave to them, and
        their progress goes on ``send``, to the person waiting for it."""
        self.register(calls)  # for callers that did not come through the actor's inbox
        slots = [self._slots[call.id] for call in calls]
        try:
            async with anyio.create_task_group() as tasks:
                for slot in slots:
                    tasks.start_soon(self._run_one, slot, send, agent, by_person)
        finally:
            for slot in slots:
                # Also when cancelled: nothing may wait on a call that will never end.
                slot.planned.set()
                slot.checked.set()
                slot.done.set()
                if self._slots.get(slot.call.id) is slot:
                    del self._slots[slot.call.id]

    def withdraw(self, ids: Sequence[str]) -> None:
        """Stop those of these calls that are still waiting; each reports it was not run."""
        for call_id in ids:
            slot = self._slots.get(call_id)
            if slot is not None and slot.waiting() and not slot.done.is_set():
                slot.withdrawn = True
                slot.scope.cancel()

    def interrupt(self, ids: Sequence[str]) -> None:
        """Stop these calls; each still reports, as interrupted (see the module's docstring)."""
        for call_id in ids:
            slot = self._slots.get(call_id)
            if slot is not None:
                slot.scope.cancel()
            else:  # its RunTools has not arrived yet (the two messages raced) or is over
                self._interrupted.add(call_id)

    async def _run_one(
        self, slot: _Slot, send: Send, agent: AgentScope | None = None, by_person: bool = False
    ) -> None:
        call = slot.call
        plan = slot.plan = await make_plan(call, agent, self._tools, self._root, self.mcp)
        slot.planned.set()

        async def progress(event: ToolStarted | ToolOutput) -> None:
            if by_person:
                await send(event)
            else:
                await self._progress(event, send, agent)

        async def emit(text: str) -> None:
            await progress(ToolOutput(id=call.id, text=text))

        ctx = CallContext(
            tool=plan.tool.name if plan.tool else call.name,
            project_root=self._root,
            files_read=self._files_read,
            output_cap=self._output_cap,
            permissions=self._permissions,
            emit=emit,
            command_env=self.command_env,
            background=self.background,
            web=self.web,
            agent=None if agent is None else agent.name,
            call_id=call.id,
            input=call.input,
            checked=slot.checked,
            typed_by_person=by_person,
        )
        if self.confining is not None:
            ctx.confining = self.confining
        if self._confine is not None:
            ctx.confine = self._confine
        if self.hooks is not None and not by_person:
            ctx.pre_tool = self.hooks.pre(call, self._permissions, ctx.trace_context)
        started: float | None = None
        outcome: ToolOutcome | None = None
        holding = commanding = False
        exported, span = telemetry.current, None
        stopped = True  # until the call returns an outcome of its own
        command = plan.tool is not None and plan.tool.command is not None
        try:
            with slot.scope:
                for earlier in slot.earlier:
                    await earlier.planned.wait()
                    if earlier.plan is not None and ordered(earlier.plan, plan):
                        slot.checked.set()  # waiting for a call to end: not for the person
                        await earlier.done.wait()
                for earlier in slot.earlier:
                    # Waited for holding nothing, as the calls before may still need a place.
                    await earlier.checked.wait()
                # Started and Finished are sent holding the slot, so the stream shows the limit.
                # A call that must wait for a place gives up its turn to ask: the calls after it
                # never wait behind the calls running (a file tool behind commands).
                if command:
                    if self._commands.available_tokens < 1:
                        slot.checked.set()
                    await self._commands.acquire()
                    commanding = True
                if self._limiter.available_tokens < 1:
                    slot.checked.set()
                await self._limiter.acquire()
                holding = True
                slot.ctx = ctx
                await progress(ToolStarted(id=call.id, name=call.name, summary=plan.summary))
                if plan.tool is None or plan.tool.name in UNCHECKED_TOOLS:
                    # It asks nobody (TaskOutput may wait minutes for a command): the calls
                    # after it take their turn to ask now, not at its end.
                    slot.checked.set()
                if exported is not None:
                    span = exported.tool_started(call.name)
                    # What the call runs (its command, its hooks) joins the prompt's trace.
                    ctx.trace_context.update(exported.context_of(span))
                    ctx.command_env = {
                        **(os.environ if ctx.command_env is None else ctx.command_env),
                        **ctx.trace_context,
                    }
                started = anyio.current_time()
                outcome = await self._execute(plan, ctx, hooks=not by_person)
            took = 0.0 if started is None else anyio.current_time() - started
            elapsed = max(0.0, took - ctx.waited)  # the call's own time, not the person's
            stopped = outcome is None
            if outcome is None and slot.withdrawn and (started is None or ctx.asking):
                outcome = withdrawn(ctx)
            elif outcome is None:  # interrupted (or withdrawn just as its permission came)
                outcome = interrupted(plan, ctx, started is not None, took)
            result = ToolResult(
                tool_use_id=call.id,
                content=outcome.content,
                is_error=outcome.is_error,
                denied=outcome.denied,
                images=outcome.images,
                stop_reason=outcome.stop_reason,
                spent=outcome.spent,
            )
            finished = ToolFinished(
                result=result, elapsed=elapsed, diff=outcome.diff, remedy=outcome.remedy
            )
            await send(finished)
        finally:
            if exported is not None and span is not None:
                took_ms = 0.0 if started is None else (anyio.current_time() - started) * 1000
                word = "interrupted" if stopped else outcome_word(outcome)
                exported.tool_finished(span, call.name, word, round(took_ms))
            if holding:
                self._limiter.release()
            if commanding:
                self._commands.release()
            slot.checked.set()
            slot.done.set()  # also on cancellation: nothing may wait on a call that will never end

    async def _progress(
        self, event: ToolStarted | ToolOutput, send: Send, agent: AgentScope | None
    ) -> None:
        """A call's progress, for display only: straight to the UI when the executor knows it
        (the conductor has nothing to do with it), else on the stream. A display that is gone,
        or a caller that stopped listening, loses nothing. A subagent's is shown as its own."""
        with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
            if self._ui is None:
                await send(event)
                return
            if agent is not None and agent.background:
                return
            shown = (
                event
                if agent is None
                else AgentEvent(
                    parent_tool_use_id=agent.parent_tool_use_id, agent=agent.name, event=event
                )
            )
            with contextlib.suppress(KernelError):
                await self._ui.tell(Show(shown))

    async def _execute(self, plan: Plan, ctx: CallContext, *, hooks: bool = True) -> ToolOutcome:
        outcome = await attempt(plan, ctx)
        # Other input, from an allow answer or a PreToolUse hook: the tool runs with it, and
        # checks it again. The hook runs once, and an answer's input is checked without asking,
        # so at most: an answer's, the hook's, and an answer's to the question that one asks.
        for _ in range(_REPLACEMENTS):
            if not isinstance(outcome, InputUpdated):
                break
            call = msgspec.structs.replace(plan.call, input=outcome.input)
            plan = await replan(plan, call, outcome.source, self._tools, self._root, self.mcp)
            ctx.input = call.input
            ctx.answered = outcome.answered
            if ctx.pre_tool is not None and self.hooks is not None:
                ctx.pre_tool = self.hooks.pre(
                    call, self._permissions, ctx.trace_context
                )  # it sees the new input
            outcome = await attempt(plan, ctx)
        if isinstance(outcome, InputUpdated):
            return ToolOutcome(
                f"The input was replaced {_REPLACEMENTS} times, the last by {outcome.source}; "
                "nothing was done.",
                is_error=True,
            )
        if self.hooks is not None and hooks:
            outcome = self.hooks.finish(
                plan.call, await self.hooks.post(plan.call, outcome, ctx.trace_context)
            )
        return outcome


# Replacements of a call's input that are run (see ``_execute``).
_REPLACEMENTS = 3
