"""A subagent interrupted mid-turn leaves its conversation as the API accepts it, as the main
conversation does: what the answer said so far is kept, and every ``tool_use`` is followed by
its ``tool_result`` (the result of a call that finished, or the interruption notice).

The model and the executor are stand-ins in this process: the model streams a scripted
answer and then stalls (mid-answer) or ends it (while its calls run); the executor answers
one call at once and holds the other until it is interrupted.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
import trio
import trio.testing

from actors.conductor.agent_loop import AgentRun, run_agent
from actors.conductor.keeper import SessionKeeper
from actors.conductor.turn import BackgroundCommands
from actors.protocol import (
    AgentScope,
    BlockFinished,
    InterruptTools,
    Message,
    MessageFinished,
    ModelClientMsg,
    RunTools,
    StreamMessage,
    TextDelta,
    ToolCall,
    ToolExecutorMsg,
    ToolFinished,
    ToolResult,
    UiMsg,
    Usage,
)
from runtime import Actor, Reply, supervise

if TYPE_CHECKING:
    from actors.protocol import Block

QUICK: Block = {"type": "tool_use", "id": "quick", "name": "Read", "input": {"file_path": "a"}}
SLOW: Block = {"type": "tool_use", "id": "slow", "name": "Read", "input": {"file_path": "b"}}
SAID: Block = {"type": "text", "text": "Reading both."}


class Model(Actor[ModelClientMsg]):
    """Streams the answer's text and both calls; then ends the answer, or stalls."""

    name = "model"

    def __init__(self, *, ends: bool) -> None:
        super().__init__()
        self._ends = ends

    async def handle(self, msg: ModelClientMsg, reply: Reply) -> None:
        assert isinstance(msg, StreamMessage)
        send = reply.sender(msg)
        await send(TextDelta(index=0, text="Reading "))
        await send(TextDelta(index=0, text="both."))
        await send(BlockFinished(index=0, block=SAID))
        await send(BlockFinished(index=1, block=QUICK))
        await send(BlockFinished(index=2, block=SLOW))
        if not self._ends:
            await trio.sleep_forever()
        message = Message("assistant", [SAID, QUICK, SLOW])
        await send(MessageFinished(message=message, stop_reason="tool_use", usage=Usage()))


class Executor(Actor[ToolExecutorMsg]):
    """Finishes ``quick`` at once; ``slow`` runs until it is interrupted."""

    name = "tools"
    concurrent = True  # InterruptTools arrives while RunTools runs

    def __init__(self) -> None:
        super().__init__()
        self.interrupted = trio.Event()

    async def handle(self, msg: ToolExecutorMsg, reply: Reply) -> None:
        match msg:
            case RunTools(calls=calls):
                send = reply.sender(msg)
                for call in calls:
                    if call.id == "quick":
                        done = ToolResult(tool_use_id="quick", content="a's text")
                        await send(ToolFinished(done, elapsed=0.0))
                if any(call.id == "slow" for call in calls):
                    await self.interrupted.wait()
                    result = ToolResult(
                        tool_use_id="slow", content="Interrupted after 1.0 s.", is_error=True
                    )
                    await send(ToolFinished(result, elapsed=1.0))
            case InterruptTools():
                self.interrupted.set()
            case _:
                pass


class Screen(Actor[UiMsg]):
    name = "ui"

    async def handle(self, msg: UiMsg, reply: Reply) -> None:
        pass


class NoAgents:
    def takes(self, call: ToolCall) -> bool:
        return False

    def summary(self, call: ToolCall) -> str:
        return ""

    async def run(self, call: ToolCall) -> ToolResult:
        raise AssertionError("the agent starts no agent")


@pytest.mark.parametrize("ends", [False, True], ids=["mid-answer", "while-its-calls-run"])
async def test_an_interrupted_subagent_leaves_a_conversation_the_api_accepts(
    ends: bool, autojump_clock: trio.testing.MockClock
) -> None:
    model, tools, ui = Model(ends=ends), Executor(), Screen()
    keeper = SessionKeeper(None, tools.address)
    keeper.read_only = frozenset({"Read"})  # no checkpoint to take
    run = AgentRun(
        call_id="agent-call",
        scope=AgentScope(name="reader", parent_tool_use_id="agent-call"),
        model_id="claude-sonnet-4-5",
        system="",
        prompt="read a and b",
        tool_specs=[],
        max_turns=5,
        max_tokens=100,
        model=model.address,
        tools=tools.address,
        ui=ui.address,
        keeper=keeper,
        nested=NoAgents(),
        used=lambda usage, model: None,
        denied=lambda denial: None,
        background=BackgroundCommands(),
    )
    async with supervise([model, tools, ui]), trio.open_nursery() as nursery:
        nursery.start_soon(run_agent, run)
        # The answer has streamed as far as it goes, and both calls are with the executor.
        await trio.testing.wait_all_tasks_blocked()
        nursery.cancel_scope.cancel()
    assert run.conversation.messages == [
        Message("user", [{"type": "text", "text": "read a and b"}]),
        Message("assistant", [SAID, QUICK, SLOW]),
        Message(
            "user",
            [
                {"type": "tool_result", "tool_use_id": "quick", "content": "a's text"},
                {
                    "type": "tool_result",
                    "tool_use_id": "slow",
                    "content": "Interrupted after 1.0 s.",
                    "is_error": True,
                },
            ],
        ),
    ]
