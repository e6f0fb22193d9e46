"""One prompt of the main conversation while it runs: its bookkeeping, its side of each turn,
and its outcome.

``PromptRun`` is the main conversation's ``turn.Seat``, as ``agent_loop.AgentRun`` is a
subagent's: events go to the UI as they are, the session counts every answer, and the
conversation is saved as it grows. What a turn asks of the session (the next request, the
calls, counting an answer) it asks the conductor, which hands those in; so the turns, the
main conversation's and a subagent's, run the one way ``turn.py`` runs them.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

from actors.conductor.display import Display
from actors.conductor.tally import Tally
from actors.errors import LegatoError
from actors.protocol import TurnOutcome, Usage

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from actors.conductor.calls import TurnCalls
    from actors.conductor.hooks import ConversationHooks
    from actors.conductor.turn import BackgroundCommands, Dialogue
    from actors.protocol import (
        Block,
        HookEvent,
        MessageFinished,
        ModelClientMsg,
        ModelRequest,
        ToolCall,
        ToolResult,
        UiMsg,
    )
    from runtime import Address

    Record = Callable[[ToolCall, ToolResult], None]


class PromptRun:
    """One prompt while it runs: its bookkeeping, and the main conversation's side of each of
    its turns (``turn.Seat``): events go to the UI as they are, the session counts every
    answer, and the conversation is saved as it grows."""

    def __init__(
        self,
        *,
        model: Address[ModelClientMsg],
        hooks: ConversationHooks | None,
        dialogue: Dialogue,
        ui: Address[UiMsg],
        background: BackgroundCommands,
        started: float,
        # The conductor's: the conversation made ready and the request for the next answer,
        # the turn's calls, an answer counted, a tool's own request counted, the save.
        next_request: Callable[[PromptRun], Awaitable[ModelRequest]],
        calls: Callable[[PromptRun, Display, Record], TurnCalls],
        answered: Callable[[PromptRun, ModelRequest, MessageFinished], Awaitable[None]],
        used: Callable[[str, Usage], None],
        save: Callable[[], Awaitable[None]],
    ) -> None:
        self.model = model
        self.stop_hooks: tuple[HookEvent, ConversationHooks] | None = (
            None if hooks is None else ("Stop", hooks)
        )
        self.dialogue = dialogue
        self._ui = ui
        self._background = background
        self.started = started
        self._next_request = next_request
        self._calls = calls
        self._answered = answered
        self._used = used
        self._save = save
        self.usage = Usage()
        self.cost: float | None = 0.0  # its own answers', each at its model's price
        self.denials: list[Block] = []
        self.agents = Tally()  # what its subagents, and its tools' own requests, used

    async def request(self) -> ModelRequest:
        return await self._next_request(self)

    def display(self) -> Display:
        return Display(self._ui)

    def calls(self, display: Display, record: Callable[[ToolCall, ToolResult], None]) -> TurnCalls:
        return self._calls(self, display, record)

    @property
    def background(self) -> BackgroundCommands:
        return self._background

    def record(self, call: ToolCall, result: ToolResult) -> None:
        if result.denied:
            self.denials.append(
                {"tool_name": call.name, "tool_use_id": call.id, "tool_input": call.input}
            )
        for model, usage in result.spent:  # a tool's own requests: the session's, and this prompt's
            self._used(model, usage)
            self.agents.add(model, usage)

    async def answered(self, request: ModelRequest, finished: MessageFinished) -> None:
        await self._answered(self, request, finished)

    async def changed(self) -> None:
        await self._save()

    def outcome(
        self,
        subtype: str,
        error: Exception | None,
        *,
        searched: Tally,
        total: float | None,
        session_id: str,
        structured: Any,
    ) -> TurnOutcome:
        """The prompt's outcome; its subagents' and its searches' usage (``searched``) count
        with its own, and ``total`` is what all of it cost."""
        return TurnOutcome(
            result=self.dialogue.last_text,
            is_error=subtype != "success",
            subtype=subtype,  # type: ignore[arg-type]
            num_turns=self.dialogue.turns,
            duration_ms=round((time.monotonic() - self.started) * 1000),
            duration_api_ms=round(self.dialogue.api_seconds * 1000),
            usage=self.usage + self.agents.usage + searched.usage,
            total_cost_usd=total,
            session_id=session_id,
            permission_denials=(*self.denials, *self.agents.denials),
            error=_describe(error),
            structured_output=structured,
        )


def _describe(error: Exception | None) -> str | None:
    if error is None:
        return None
    if isinstance(error, LegatoError):
        return error.describe()
    return str(error)
