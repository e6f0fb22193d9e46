"""One subagent's conversation, turn by turn, until it answers.

The same turns as the main conversation's (``turn.py``): each of the agent's tool calls is sent
to the executor as soon as its block is complete, with the agent's scope, so the executor holds
it to its tools and the broker's questions name it. Its events go to the UI as its own
(``AgentEvent``), or only to its record for a background agent. Its conversation lives and dies
here: the parent hears only the final text, and nothing of it is saved or shown to the parent's
model.

Cancellation needs nothing of its own: the loop runs in the Agent call's task, and its calls in
a task group inside it, so an interrupt reaches them like any call of the turn (each reports
as interrupted, shielded and bounded, before the cancellation goes on up), and the agent's
conversation is closed as the main one is.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from actors.conductor.calls import TurnCalls
from actors.conductor.conversation import Conversation
from actors.conductor.display import Display
from actors.conductor.turn import Dialogue, run_dialogue
from actors.errors import LegatoError
from actors.protocol import (
    AgentEvent,
    HookFinished,
    HookStarted,
    ModelRequest,
    Notice,
    ToolResult,
    TranscriptMirrored,
    TurnOutcome,
)

if TYPE_CHECKING:
    from collections.abc import Callable

    from actors.conductor.calls import AgentRunner
    from actors.conductor.hooks import ConversationHooks
    from actors.conductor.keeper import SessionKeeper
    from actors.conductor.turn import BackgroundCommands
    from actors.instructions import NestedGuides
    from actors.protocol import (
        AgentScope,
        Block,
        HookEvent,
        MessageFinished,
        ModelClientMsg,
        ToolCall,
        ToolExecutorMsg,
        UiEvent,
        UiMsg,
        Usage,
    )
    from runtime import Address


@dataclass
class AgentRun:
    """Everything one agent's conversation needs: its side of each turn (``turn.Seat``)."""

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
    used: Callable[[Usage, str], None]  # an answer's usage, or a tool's own with its model
    denied: Callable[[Block], None]
    background: BackgroundCommands  # the session's: the main conversation asks for their news
    # A background agent: its events are not shown but watched (its latest activity).
    watch: Callable[[UiEvent], None] | None = None
    hooks: ConversationHooks | None = None  # SubagentStop's, when the user has some
    conversation: Conversation = field(default_factory=Conversation)  # its own, from the prompt on
    guides: NestedGuides | None = None  # the sub-folders' instruction files it was given
    # Raises when the request may not go (the run's budget); None: every request may.
    check: Callable[[ModelRequest], object] | None = None
    # What the run's budget leaves, for its tools' own requests; None: no budget.
    spend_left: Callable[[], float | None] = lambda: None
    # Told when a request ``check`` let go was answered (its usage is then counted).
    settle: Callable[[ModelRequest], object] = lambda request: None

    @property
    def stop_hooks(self) -> tuple[HookEvent, ConversationHooks] | None:
        return None if self.hooks is None else ("SubagentStop", self.hooks)

    async def request(self) -> ModelRequest:
        request = ModelRequest(
            model=self.model_id,
            max_tokens=self.max_tokens,
            messages=list(self.conversation.messages),
            system=self.system,
            tools=self.tool_specs,
        )
        if self.check is not None:
            self.check(request)
        return request

    def display(self) -> Display:
        return Display(self.ui, self._wrap, sink=self.watch)

    def _wrap(self, event: UiEvent) -> UiEvent:
        if isinstance(
            event, (Notice, TurnOutcome, AgentEvent, HookStarted, HookFinished, TranscriptMirrored)
        ):
            return event  # not the agent's answer or calls: shown as it is
        return AgentEvent(
            parent_tool_use_id=self.scope.parent_tool_use_id,
            agent=self.scope.name,
            event=event,
            model=self.model_id,
        )

    def calls(self, display: Display, record: Callable[[ToolCall, ToolResult], None]) -> TurnCalls:
        return TurnCalls(
            tools=self.tools,
            keeper=self.keeper,
            display=display,
            record=record,
            agents=self.nested,
            scope=self.scope,
            spend_left=self.spend_left,
        )

    def record(self, call: ToolCall, result: ToolResult) -> None:
        if result.denied:
            self.denied(
                {"tool_name": call.name, "tool_use_id": call.id, "tool_input": call.input,
                 "agent": self.scope.name}
            )  # fmt: skip
        for model, usage in result.spent:
            self.used(usage, model)

    async def answered(self, request: ModelRequest, finished: MessageFinished) -> None:
        self.used(finished.usage, self.model_id)
        self.settle(request)

    async def changed(self) -> None:
        """Nothing to do: an agent's conversation is not saved."""


async def run_agent(run: AgentRun) -> ToolResult:
    """Run the agent to its final answer; the Agent call's result."""
    run.conversation.add_user_text(run.prompt)
    dialogue = Dialogue(run.conversation, run.guides)
    try:
        ending = await run_dialogue(dialogue, run, max_turns=run.max_turns)
    except LegatoError as error:
        return ToolResult(
            tool_use_id=run.call_id,
            content=f"The agent {run.scope.name!r} stopped: {error.describe()}",
            is_error=True,
        )
    if ending == "max_turns":
        return ToolResult(
            tool_use_id=run.call_id,
            content=(
                f"The agent {run.scope.name!r} was stopped after {run.max_turns} turns "
                "(agents.maxTurns) before it finished. Its last words: "
                + (dialogue.last_text or "(none)")
            ),
            is_error=True,
        )
    if ending == "stopped":
        # A tool hook said "continue": false: the agent stops after that tool, as the main
        # conversation does; the person is warned as for the main conversation, and the
        # parent's model is told why, since its own conversation goes on.
        note = f"A hook stopped the agent {run.scope.name!r}: {dialogue.stop_reason}"
        await run.display().show(Notice("warning", note))
        return ToolResult(
            tool_use_id=run.call_id,
            content=(
                f"The agent {run.scope.name!r} was stopped by a hook: {dialogue.stop_reason}. "
                "Its last words: " + (dialogue.last_text or "(none)")
            ),
            is_error=True,
        )
    return ToolResult(tool_use_id=run.call_id, content=dialogue.last_text or "(no answer)")
