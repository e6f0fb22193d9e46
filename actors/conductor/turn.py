"""One turn, and the dialogue of turns around it, for the main conversation and every subagent.

A turn streams one answer and runs its tool calls, each sent to the executor the moment its
block is complete (``calls.py``); it returns once every call has reported. The dialogue runs
turns until the model is done: at most ``max_turns``, going on after ``pause_turn`` (a server
tool is mid-loop: resending lets it go on), and asking the stop hooks (``Stop`` for the main
conversation, ``SubagentStop`` for an agent) whether the answer may end, at most
``MAX_STOP_BLOCKS`` times in a row.

What differs between the two is a ``Seat``: where the events go (the UI, or wrapped as an
agent's, or watched for a background agent), the request (compaction, news and MCP tools are
the main conversation's), whose usage an answer counts in, and whether the conversation is
saved. What does not differ is kept here: a tool hook's ``"continue": false`` ends the
dialogue after that turn, and a background command started by any conversation of the
session makes the main one ask for background news (``BackgroundCommands``).

However the dialogue ends (an answer, an error, a cancellation), its conversation is one the API
accepts: what was said of an answer cut short is kept, and every call it made is answered
(``Conversation.close_interrupted``).
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Literal, Protocol

import anyio

from actors.conductor.hooks import MAX_STOP_BLOCKS
from actors.conductor.partial import PartialMessage
from actors.errors import SessionError
from actors.protocol import (
    BlockFinished,
    Message,
    MessageFinished,
    Retrying,
    StreamMessage,
    TextDelta,
    ToolCall,
    ToolResult,
    Usage,
)
from runtime import release_collector

if TYPE_CHECKING:
    from collections.abc import Callable

    from actors.conductor.calls import TurnCalls
    from actors.conductor.conversation import Conversation
    from actors.conductor.display import Display
    from actors.conductor.hooks import ConversationHooks
    from actors.instructions import NestedGuides
    from actors.protocol import Block, HookEvent, ModelClientMsg, ModelEvent, ModelRequest
    from runtime import Address

# How a dialogue ended, when no error ended it: the model answered; it was stopped after
# ``max_turns``; a tool's hook said ``"continue": false`` (its reason in ``Dialogue.stop_reason``).
Ending = Literal["answered", "max_turns", "stopped"]


class Seat(Protocol):
    """What differs between the main conversation's turns and a subagent's: the conductor's
    ``_PromptRun`` for the one, ``agent_loop.AgentRun`` for the other."""

    @property
    def model(self) -> Address[ModelClientMsg]: ...

    @property
    def stop_hooks(self) -> tuple[HookEvent, ConversationHooks] | None:
        """The hooks asked whether an answer may end, and their event; None: none asked."""
        ...

    async def request(self) -> ModelRequest:
        """The request for the next answer, once the conversation is ready for it."""
        ...

    def display(self) -> Display:
        """Where the turn's events go."""
        ...

    def calls(self, display: Display, record: Callable[[ToolCall, ToolResult], None]) -> TurnCalls:
        """The turn's calls: each's result goes to ``record`` as it comes."""
        ...

    @property
    def background(self) -> BackgroundCommands:
        """The session's, shared by the main conversation and every subagent."""
        ...

    def record(self, call: ToolCall, result: ToolResult) -> None:
        """A call's result, as the seat keeps it (a denial)."""
        ...

    async def answered(self, request: ModelRequest, finished: MessageFinished) -> None:
        """An answer is whole and in the conversation: count its usage."""
        ...

    async def changed(self) -> None:
        """The conversation has grown by an answer or by its calls' results."""
        ...


class BackgroundCommands:
    """Whether a call of the session, the main conversation's or a subagent's, asked for a
    background command: from then on, each of the main conversation's turns asks the executor
    which have ended (a session without any asks nothing)."""

    def __init__(self) -> None:
        self.started = False

    def note(self, calls: list[ToolCall]) -> None:
        self.started = self.started or any(map(_starts_background, calls))


def _starts_background(call: ToolCall) -> bool:
    return call.name == "Bash" and call.input.get("run_in_background") is True


class Dialogue:
    """One conversation's way through its turns, and what a turn cut short leaves."""

    def __init__(self, conversation: Conversation, guides: NestedGuides | None = None) -> None:
        self.conversation = conversation
        self.guides = guides  # the sub-folders' instruction files it has been given
        self.turns = 0
        self.api_seconds = 0.0  # spent streaming answers
        self.last_text = ""  # the latest answer's text
        self.partial: PartialMessage | None = None  # a message still streaming
        self.results: dict[str, ToolResult] = {}  # finished calls of the turn still running
        self.stop_blocks = 0  # stop hooks that made the model go on, in a row
        self.stop_reason: str | None = None  # a tool's hook said "continue": false

    def close(self) -> None:
        """Leave the conversation as the API accepts it, after a turn cut short. Synchronous,
        so that it runs whole on cancellation too."""
        if self.partial is not None or self.conversation.pending_tool_uses():
            kept = self.partial.content() if self.partial is not None else []
            self.conversation.close_interrupted(kept, self.results)


async def run_dialogue(dialogue: Dialogue, seat: Seat, *, max_turns: int) -> Ending:
    """Run turns until the model is done; an error of the model or the executor goes up."""
    try:
        while True:
            if dialogue.turns >= max_turns:
                return "max_turns"
            dialogue.turns += 1
            finished, ran = await run_turn(dialogue, seat)
            if dialogue.stop_reason is not None:
                # The turn's results are in the conversation: the model reads them next time.
                return "stopped"
            if finished.stop_reason == "pause_turn":
                continue
            if finished.stop_reason != "tool_use" or not ran:
                if await _stop_hooks_go_on(dialogue, seat):
                    continue
                return "answered"
    finally:
        dialogue.close()


async def _stop_hooks_go_on(dialogue: Dialogue, seat: Seat) -> bool:
    """Whether a stop hook makes the model go on (told why), at most MAX_STOP_BLOCKS times
    in a row."""
    hooks = seat.stop_hooks
    if hooks is None or dialogue.stop_blocks >= MAX_STOP_BLOCKS:
        return False
    event, runner = hooks
    outcome = await runner.run(event, stop_hook_active=dialogue.stop_blocks > 0)
    if not outcome.blocked:
        return False
    dialogue.stop_blocks += 1
    reason = outcome.reason or "no reason given"
    dialogue.conversation.add_user_text(f"(A {event} hook asks you to go on: {reason})")
    return True


async def run_turn(dialogue: Dialogue, seat: Seat) -> tuple[MessageFinished, bool]:
    """Stream one answer and run its tool calls, each from the moment its block is complete
    (``calls.py``); returns the answer, and whether it had calls, once all have reported."""
    request = await seat.request()
    dialogue.partial = PartialMessage()
    dialogue.results = {}
    display = seat.display()
    finished: MessageFinished | None = None
    failure: Exception | None = None

    def record(call: ToolCall, result: ToolResult) -> None:
        dialogue.results[result.tool_use_id] = result
        if result.stop_reason is not None:
            dialogue.stop_reason = result.stop_reason
        seat.record(call, result)

    calls = seat.calls(display, record)
    try:
        async with anyio.create_task_group() as calls.tasks:
            calls.tasks.start_soon(calls.send)
            api_started = time.monotonic()
            try:
                async with seat.model.stream(StreamMessage(request=request)) as events:
                    async for event in events:
                        await display.show(event)
                        answer = await _on_event(dialogue, seat, request, calls, event)
                        finished = answer or finished
                        if finished is not None and event is finished:
                            await display.release()
            except Exception as exc:  # raised below, once the calls that started are done
                failure = exc
            finally:
                dialogue.api_seconds += time.monotonic() - api_started
            await calls.all_sent()
            if finished is None:
                await calls.withdraw_waiting()
                cut = _cut_short(dialogue, calls)
                if cut is not None:
                    await display.show(cut)
                await display.release()
    finally:
        # Also when the turn is cut or interrupted: a command it started still runs.
        seat.background.note(calls.started)
        # A complete call the cut came too soon to send (still in the answer, or queued
        # behind its batch's checkpoint): it never started.
        sent = {c.id for c in calls.started}
        waiting = dialogue.partial.calls() if dialogue.partial is not None else []
        for call in [*calls.queued, *waiting]:
            if call.id not in sent:
                dialogue.results.setdefault(call.id, _never_started(call))
        if not display.released:  # cancelled: what is held, as far as it fits
            cut = _cut_short(dialogue, calls) if finished is None else None
            if cut is not None:
                display.show_nowait(cut)
            display.release_nowait()
        # Start-up is over: from here on a long session makes garbage in cycles.
        release_collector()
    if failure is not None:
        raise failure
    if finished is None:
        raise SessionError("the model's answer ended without its final event")
    if calls.failures or len(dialogue.results) < len(calls.started):
        missing = [c.id for c in calls.started if c.id not in dialogue.results]
        raise SessionError(f"the tool executor gave no result for {', '.join(missing)}") from next(
            iter(calls.failures), None
        )
    if calls.started:
        # In the calls' order, whatever order they finished in.
        results = [dialogue.results[c.id] for c in calls.in_order()]
        if dialogue.guides is not None:
            from actors.conductor.guided import with_guides

            results = await with_guides(dialogue.guides, calls.in_order(), results, display)
        dialogue.conversation.add_tool_results(results)
        dialogue.results = {}
        await seat.changed()
    return finished, bool(calls.started)


async def _on_event(
    dialogue: Dialogue, seat: Seat, request: ModelRequest, calls: TurnCalls, event: ModelEvent
) -> MessageFinished | None:
    """Keep track of one event of the answer; returns the answer once it is whole."""
    assert dialogue.partial is not None
    match event:
        case TextDelta(index=index, text=text):
            dialogue.partial.add_text(index, text)
        case BlockFinished(index=index, block=block):
            call = dialogue.partial.finish(index, block)
            if call is not None:
                calls.start(call)
        case Retrying():
            if calls.queued:
                # The client retries only before any content; a retry now would run the
                # calls again. Never silently: the answer ends here.
                raise SessionError("the model client retried an answer whose calls had run")
            dialogue.partial = PartialMessage()
        case MessageFinished(message=message):
            # A call the provider did not finish block by block starts now, in order.
            begun = {c.id for c in calls.queued}
            for call in _tool_calls(event):
                if call.id not in begun:
                    calls.start(call)
            dialogue.partial = None
            dialogue.conversation.add_assistant(message)
            dialogue.last_text = _text_of(message.content) or dialogue.last_text
            await seat.answered(request, event)
            await seat.changed()
            return event
    return None


def _never_started(call: ToolCall) -> ToolResult:
    return ToolResult(
        tool_use_id=call.id,
        content="Interrupted before it started; nothing was done.",
        is_error=True,
    )


def _cut_short(dialogue: Dialogue, calls: TurnCalls) -> MessageFinished | None:
    """An answer cut short after some of its calls started, as the conversation keeps it:
    shown like a finished answer, so that each call's result is shown after its call."""
    kept = dialogue.partial.content() if dialogue.partial is not None else []
    if not calls.started or not kept:
        return None
    return MessageFinished(Message("assistant", kept), None, Usage())


def _tool_calls(finished: MessageFinished) -> tuple[ToolCall, ...]:
    return tuple(
        ToolCall(block["id"], block["name"], dict(block.get("input") or {}))
        for block in finished.message.content
        if block.get("type") == "tool_use"
    )


def _text_of(content: list[Block]) -> str:
    return "".join(b.get("text", "") for b in content if b.get("type") == "text")
