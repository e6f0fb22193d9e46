"""The tool calls of one answer, each sent to the executor the moment its block is complete.

A turn is a pipeline: while the model goes on streaming text and further calls, a call whose
``tool_use`` block is complete already runs. ``TurnCalls`` takes each call's checkpoint for
``/undo`` (on disk before the call can change a file) and sends it to the executor as a
``RunTools`` of its own (or with the calls that came together), in the model's order (the
executor keeps that order for calls on the same path). Each request's events are read by a
task of its own in the turn's task group, which the conductor leaves only when every call has
reported.

An ``Agent`` call is not the executor's: ``TurnCalls`` hands it to the conductor's
``AgentRunner``, which runs the subagent's whole conversation in a task of the same task group
(``agents.py``), so the turn waits for it, and stops it, like any call. So does TaskOutput or
TaskStop of a background agent (an ``agent_N`` id): the conductor owns agents; the executor
answers those tools for background commands. ``actors/tool_routes.py`` is the table of who
answers which call.

``Display`` (``display.py``) is the way to the UI for those events, each result held until its
call is shown. A call's ``ToolStarted`` and ``ToolOutput`` go to the UI at once: the session's
executor tells the UI itself (one hop, not two), and one without the UI's address sends them
here, to be passed on as they come.
"""

from __future__ import annotations

import contextlib
import math
from typing import TYPE_CHECKING, Protocol

import anyio

from actors.conductor import mcp_tools, skill_tool, web_search
from actors.conductor.interrupt import collect_interrupted
from actors.protocol import (
    Notice,
    RunTools,
    ToolCall,
    ToolFinished,
    ToolResult,
    ToolStarted,
    WithdrawTools,
)
from actors.tool_names import AGENT_TOOL, STRUCTURED_OUTPUT
from actors.tool_routes import route
from runtime import KernelError

if TYPE_CHECKING:
    from collections.abc import Callable

    from anyio.abc import TaskGroup, TaskStatus

    from actors.conductor.display import Display
    from actors.conductor.keeper import SessionKeeper
    from actors.conductor.mcp_tools import McpOffer
    from actors.conductor.skill_tool import SkillOffer
    from actors.conductor.structured import StructuredOutput
    from actors.conductor.web_search import WebSearchOffer
    from actors.protocol import AgentScope, ToolEvent, ToolExecutorMsg
    from runtime import Address


# The most a batch's end waits to record what its commands changed, once the turn is stopped.
SETTLE_LIMIT = 5.0


class AgentRunner(Protocol):
    """Runs an ``Agent`` call: a subagent's whole conversation, its answer the call's result."""

    def takes(self, call: ToolCall) -> bool:
        """Whether the call is the runner's: ``Agent``, or a background agent's task tools."""
        ...

    def summary(self, call: ToolCall) -> str: ...

    async def run(self, call: ToolCall) -> ToolResult: ...


class ConductorCalls:
    """The calls the conductor answers itself: the Agent runner's, ToolSearch (which loads
    MCP tools, ``mcp_tools.py``) when the session has MCP servers, Skill when it offers
    skills (``skill_tool.py``) and WebSearch when the provider searches (``web_search.py``)."""

    def __init__(
        self,
        agents: AgentRunner | None,
        mcp: McpOffer | None,
        skills: SkillOffer | None = None,
        search: WebSearchOffer | None = None,
        structured: StructuredOutput | None = None,
    ) -> None:
        self._agents = agents
        self._mcp = mcp
        self._skills = skills
        self._search = search
        self._structured = structured

    def takes(self, call: ToolCall) -> bool:
        # Without MCP servers ToolSearch is not offered, nor Skill without skills: the executor
        # answers them as unknown.
        if route(call) == "ToolSearch":
            return self._mcp is not None
        if route(call) == "Skill":
            return self._skills is not None
        if route(call) == "WebSearch":
            return self._search is not None
        if call.name == STRUCTURED_OUTPUT:
            return self._structured is not None
        return self._agents is not None and self._agents.takes(call)

    def summary(self, call: ToolCall) -> str:
        if route(call) == "ToolSearch":
            return mcp_tools.summary(call)
        if route(call) == "Skill":
            return skill_tool.summary(call)
        if route(call) == "WebSearch":
            return web_search.summary(call)
        if call.name == STRUCTURED_OUTPUT:
            return ""
        assert self._agents is not None
        return self._agents.summary(call)

    async def run(self, call: ToolCall) -> ToolResult:
        if self._mcp is not None and route(call) == "ToolSearch":
            return await self._mcp.search(call)
        if self._skills is not None and route(call) == "Skill":
            return await self._skills.load(call)
        if self._search is not None and route(call) == "WebSearch":
            return await self._search.run(call)
        if self._structured is not None and call.name == STRUCTURED_OUTPUT:
            return self._structured.run(call)
        assert self._agents is not None
        return await self._agents.run(call)


class TurnCalls:
    """One answer's tool calls, from their blocks' end to their results.

    ``start`` only queues a call, so the answer's stream is read on without waiting; one task,
    ``send``, takes the queue in order: the calls waiting (one, or a group that came together,
    as blocks often do) are checkpointed, then sent as one ``RunTools``.
    """

    def __init__(
        self,
        *,
        tools: Address[ToolExecutorMsg],
        keeper: SessionKeeper,
        display: Display,
        record: Callable[[ToolCall, ToolResult], None],
        agents: AgentRunner | None = None,  # who answers Agent calls; None: the executor
        scope: AgentScope | None = None,  # the subagent whose calls these are
        # What the run may still spend (--max-budget-usd), for the tools' own requests.
        spend_left: Callable[[], float | None] = lambda: None,
    ) -> None:
        self._tools = tools
        self._spend_left = spend_left
        self._agents = agents
        self._scope = scope
        self._keeper = keeper
        self._display = display
        self._record = record
        self.tasks: TaskGroup | None = None  # the turn's: every call's task ends in it
        self._to_send, self._queue = anyio.create_memory_object_stream[ToolCall](math.inf)
        self._all_sent = anyio.Event()
        self.queued: list[ToolCall] = []  # in the answer's order
        self.started: list[ToolCall] = []  # sent to the executor, in the answer's order
        self.results: dict[str, ToolResult] = {}
        self.failures: list[Exception] = []

    def start(self, call: ToolCall) -> None:
        """Have ``call`` checkpointed and sent as soon as the calls before it are."""
        self.queued.append(call)
        # Once sending has stopped (it failed), a call stays unsent: it never started.
        with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
            self._to_send.send_nowait(call)

    async def send(self) -> None:
        """The task that sends the queued calls, in order, until ``all_sent``."""
        assert self.tasks is not None, "calls are sent from the turn's task group"
        try:
            async with self._queue:
                async for first in self._queue:
                    group = [first]
                    with contextlib.suppress(anyio.WouldBlock, anyio.EndOfStream):
                        while True:
                            group.append(self._queue.receive_nowait())
                    if self._agents is not None:
                        for call in [c for c in group if self._agents.takes(c)]:
                            group.remove(call)
                            self.started.append(call)
                            self.tasks.start_soon(self._agent, self._agents, call)
                    if not group:
                        continue
                    # The checkpoint is on disk before any call of the group can change a file.
                    watch = await self._keeper.before_tools(tuple(group))
                    await self.tasks.start(self._run, tuple(group), watch)
        except Exception as exc:  # the calls not sent are answered as never started
            self.failures.append(exc)
        finally:
            self._to_send.close()
            self._all_sent.set()

    def in_order(self) -> list[ToolCall]:
        """The calls sent, in the answer's order (an Agent call starts apart from the rest of
        its group)."""
        sent = {call.id for call in self.started}
        return [call for call in self.queued if call.id in sent]

    async def all_sent(self) -> None:
        """The answer is over: no call comes after those queued; returns once they are sent."""
        self._to_send.close()
        await self._all_sent.wait()

    async def withdraw_waiting(self) -> None:
        """The answer broke off: calls that have not started are not to start (see
        ``WithdrawTools``); those running finish."""
        waiting = tuple(c.id for c in self.started if c.id not in self.results)
        if waiting:
            with contextlib.suppress(KernelError):
                await self._tools.tell(WithdrawTools(ids=waiting))

    async def _run(
        self, group: tuple[ToolCall, ...], watch: int, *, task_status: TaskStatus[None]
    ) -> None:
        """Send calls that came together as one request and read their events until all
        have reported (each still runs on its own in the executor); then, when they ran
        shell commands (``watch``), have what those changed recorded."""
        try:
            await self._send_group(group, task_status)
        finally:
            if watch:
                await self._settle(watch, group)

    async def _settle(self, watch: int, group: tuple[ToolCall, ...]) -> None:
        # Also when the turn was stopped: a command cut short may have changed files, and
        # /undo is how the person takes that back. Bounded, as any cleanup after a cancel: a
        # walk of the project takes a fraction of a second (docs/performance.md).
        with anyio.CancelScope(shield=True), anyio.move_on_after(SETTLE_LIMIT):
            try:
                await self._keeper.after_tools(watch, self._refused(group))
            except Exception as exc:  # the executor or the session store failed
                # The calls ran and their results stand; only /undo is short of them.
                self._display.show_nowait(
                    Notice(
                        "warning",
                        f"What the commands changed was not recorded, so /undo will not put it "
                        f"back: {type(exc).__name__}: {exc}",
                    )
                )

    def _refused(self, group: tuple[ToolCall, ...]) -> tuple[str, ...]:
        """The shell commands of ``group`` the broker denied: they ran nothing, so no
        checkpoint says they ran."""
        refused: list[str] = []
        for call in group:
            result = self.results.get(call.id)
            command = call.input.get("command")
            if result is not None and result.denied and isinstance(command, str):
                refused.append(command)
        return tuple(refused)

    async def _send_group(self, group: tuple[ToolCall, ...], task_status: TaskStatus[None]) -> None:
        by_id = {call.id: call for call in group}
        sent = RunTools(calls=group, agent=self._scope, spend_left=self._spend_left())
        async with self._tools.stream(sent) as events:
            self.started.extend(group)
            task_status.started()
            try:
                async for event in events:
                    # Recorded first: showing it is where a cancellation may land.
                    self._note(by_id, event)
                    await self._display.show(event)
            except anyio.get_cancelled_exc_class():
                pending = tuple(call.id for call in group if call.id not in self.results)

                def note_now(event: ToolEvent) -> None:
                    self._note(by_id, event)
                    self._display.show_nowait(event)

                await collect_interrupted(self._tools, pending, events, note_now)
                raise
            except Exception as exc:  # the executor failed: the turn says so once all are done
                self.failures.append(exc)

    async def _agent(self, agents: AgentRunner, call: ToolCall) -> None:
        """Run a subagent in the turn's task group, so that whatever stops the turn stops it
        and everything it started; its result is shown and recorded like a tool's."""
        by_id = {call.id: call}
        began = anyio.current_time()
        await self._display.show(
            ToolStarted(id=call.id, name=call.name, summary=agents.summary(call))
        )
        try:
            result = await agents.run(call)
        except anyio.get_cancelled_exc_class():
            # The agent's own calls have reported (its turn's task group waited for them).
            elapsed = anyio.current_time() - began
            if call.name == AGENT_TOOL:
                what = (
                    "before the agent finished; the agent, its tool calls and every process "
                    "they started were stopped."
                )
            elif mcp_tools.takes(call):
                what = "while it waited for MCP servers to start; no tool was loaded."
            elif route(call) == "WebSearch":
                what = "before the search finished; its results were not kept."
            else:
                what = "while it waited; the background agent works on."
            result = ToolResult(
                tool_use_id=call.id,
                content=f"Interrupted after {elapsed:.1f} s, {what}",
                is_error=True,
            )
            finished = ToolFinished(result=result, elapsed=elapsed)
            self._note(by_id, finished)
            self._display.show_nowait(finished)
            raise
        except Exception as exc:  # a bug or a broken actor: the model hears of it, the turn goes on
            result = ToolResult(
                tool_use_id=call.id,
                content=f"{'The agent' if call.name == AGENT_TOOL else call.name} failed: "
                f"{type(exc).__name__}: {exc}",
                is_error=True,
            )
        finished = ToolFinished(result=result, elapsed=anyio.current_time() - began)
        self._note(by_id, finished)
        await self._display.show(finished)

    def _note(self, by_id: dict[str, ToolCall], event: ToolEvent) -> None:
        if isinstance(event, ToolFinished) and event.result.tool_use_id in by_id:
            self.results[event.result.tool_use_id] = event.result
            self._record(by_id[event.result.tool_use_id], event.result)
