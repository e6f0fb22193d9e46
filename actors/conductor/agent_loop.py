"""One subagent's conversation, turn by turn, until it answers.

The same pipeline as the main conversation's turns (``calls.py``): each of the agent's tool
calls is sent to the executor as soon as its block is complete, with the agent's scope, so the
executor holds it to its tools and the broker's questions name it. Its events go to the UI as
its own (``AgentEvent``). Its conversation lives and dies here: the parent hears only the
final text, and nothing of it is saved or shown to the parent's model.

Cancellation needs nothing of its own: the loop runs in the Agent call's task, and its calls in
a task group inside it, so an interrupt reaches them like any call of the turn (each reports
as interrupted, shielded and bounded, before the cancellation goes on up).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import anyio

from actors.conductor.calls import Display, TurnCalls
from actors.conductor.conversation import Conversation
from actors.conductor.hooks import MAX_STOP_BLOCKS, ConversationHooks
from actors.conductor.partial import PartialMessage
from actors.errors import LegatoError, SessionError
from actors.protocol import (
    AgentEvent,
    BlockFinished,
    HookFinished,
    HookStarted,
    MessageFinished,
    ModelRequest,
    Notice,
    Retrying,
    StreamMessage,
    ToolCall,
    ToolResult,
    TurnOutcome,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from actors.conductor.calls import AgentRunner
    from actors.conductor.keeper import SessionKeeper
    from actors.protocol import (
        AgentScope,
        Block,
        ModelClientMsg,
        ToolExecutorMsg,
        UiEvent,
        UiMsg,
        Usage,
    )
    from runtime import Address


@dataclass
class AgentRun:
    """Everything one agent's conversation needs."""

    call_id: str  # the Agent call
    scope: AgentScope
    model_id: str
    system: str
    prompt: str
    tool_specs: list[Block]
    max_turns: int
    max_tokens: int
    model: Address[ModelClientMsg]
    tools: Address[ToolExecutorMsg]
    ui: Address[UiMsg]
    keeper: SessionKeeper  # its writes are checkpointed with the prompt's, for /undo
    nested: AgentRunner  # answers (or refuses) the agent's own Agent calls
    used: Callable[[Usage], None]
    denied: Callable[[Block], None]
    # A background agent: its events are not shown but watched (its latest activity).
    watch: Callable[[UiEvent], None] | None = None
    hooks: ConversationHooks | None = None  # SubagentStop's, when the user has some


async def run_agent(run: AgentRun) -> ToolResult:
    """Run the agent to its final answer; the Agent call's result."""
    conversation = Conversation()
    conversation.add_user_text(run.prompt)
    last_text = ""
    stop_blocks = 0  # SubagentStop hooks that made the agent go on, in a row
    for _ in range(run.max_turns):
        try:
            finished, calls = await _turn(run, conversation)
        except LegatoError as error:
            return ToolResult(
                tool_use_id=run.call_id,
                content=f"The agent {run.scope.name!r} stopped: {error.describe()}",
                is_error=True,
            )
        last_text = _text_of(finished.message.content) or last_text
        if finished.stop_reason == "pause_turn":
            continue
        if finished.stop_reason != "tool_use" or not calls:
            if run.hooks is not None and stop_blocks < MAX_STOP_BLOCKS:
                outcome = await run.hooks.run("SubagentStop", stop_hook_active=stop_blocks > 0)
                if outcome.blocked:
                    stop_blocks += 1
                    reason = outcome.reason or "no reason given"
                    conversation.add_user_text(f"(A SubagentStop hook asks you to go on: {reason})")
                    continue
            return ToolResult(tool_use_id=run.call_id, content=last_text or "(no answer)")
    return ToolResult(
        tool_use_id=run.call_id,
        content=(
            f"The agent {run.scope.name!r} was stopped after {run.max_turns} turns "
            "(agents.maxTurns) before it finished. Its last words: " + (last_text or "(none)")
        ),
        is_error=True,
    )


async def _turn(run: AgentRun, conversation: Conversation) -> tuple[MessageFinished, bool]:
    """One answer of the agent and its calls; the answer, and whether it had calls."""
    scope = run.scope

    def wrap(event: UiEvent) -> UiEvent:
        if isinstance(event, (Notice, TurnOutcome, AgentEvent, HookStarted, HookFinished)):
            return event  # not the agent's answer or calls: shown as it is
        return AgentEvent(
            parent_tool_use_id=scope.parent_tool_use_id,
            agent=scope.name,
            event=event,
            model=run.model_id,
        )

    def record(call: ToolCall, result: ToolResult) -> None:
        if result.denied:
            run.denied(
                {"tool_name": call.name, "tool_use_id": call.id, "tool_input": call.input,
                 "agent": scope.name}
            )  # fmt: skip

    display = Display(run.ui, wrap, sink=run.watch)
    request = ModelRequest(
        model=run.model_id,
        max_tokens=run.max_tokens,
        messages=list(conversation.messages),
        system=run.system,
        tools=run.tool_specs,
    )
    calls = TurnCalls(
        tools=run.tools,
        keeper=run.keeper,
        display=display,
        record=record,
        agents=run.nested,
        scope=scope,
    )
    partial = PartialMessage()
    finished: MessageFinished | None = None
    failure: Exception | None = None
    async with anyio.create_task_group() as calls.tasks:
        calls.tasks.start_soon(calls.send)
        try:
            async with run.model.stream(StreamMessage(request=request)) as events:
                async for event in events:
                    await display.show(event)
                    match event:
                        case BlockFinished(index=index, block=block):
                            call = partial.finish(index, block)
                            if call is not None:
                                calls.start(call)
                        case Retrying():
                            if calls.queued:
                                raise SessionError(
                                    "the model client retried an answer whose calls had run"
                                )
                            partial = PartialMessage()
                        case MessageFinished(message=message, usage=usage):
                            begun = {c.id for c in calls.queued}
                            for call in _tool_calls(event):
                                if call.id not in begun:
                                    calls.start(call)
                            conversation.add_assistant(message)
                            run.used(usage)
                            finished = event
                            await display.release()
        except Exception as exc:  # raised below, once the calls that started are done
            failure = exc
        await calls.all_sent()
        if finished is None:
            await calls.withdraw_waiting()
            await display.release()
    if failure is not None:
        raise failure
    if finished is None:
        raise SessionError("the model's answer ended without its final event")
    ordered = calls.in_order()
    missing = [c.id for c in ordered if c.id not in calls.results]
    if calls.failures or missing:
        raise SessionError(f"the tool executor gave no result for {', '.join(missing)}")
    if ordered:
        conversation.add_tool_results([calls.results[c.id] for c in ordered])
    return finished, bool(ordered)


def _tool_calls(finished: MessageFinished) -> list[ToolCall]:
    return [
        ToolCall(block["id"], block["name"], dict(block.get("input") or {}))
        for block in finished.message.content
        if block.get("type") == "tool_use"
    ]


def _text_of(content: list[Block]) -> str:
    return "".join(b.get("text", "") for b in content if b.get("type") == "text")
