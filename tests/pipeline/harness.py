"""A real session in this process for the pipeline's tests: loopback HTTP to the scripted
server, the real executor running real processes, and a renderer that records what it is shown
and answers permission questions as each test says."""

from __future__ import annotations

from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

import anyio

from actors.protocol import GetConversation, RunPrompt, ToolFinished, ToolStarted
from actors.ui import Renderer
from frontends.demo.scripted_api.sse import block_start_position, stream_events
from frontends.session import assemble
from frontends.session_options import SessionOptions
from runtime import supervise

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Awaitable, Callable
    from pathlib import Path

    from actors.protocol import AskUser, Message, TurnOutcome, UiEvent
    from frontends.demo.scripted_api import Step
    from frontends.session import Session


class Recorder(Renderer):
    """Records every event; ``answer`` decides each permission question (default: yes)."""

    def __init__(self, answer: Callable[[int, AskUser], Awaitable[str]] | None = None) -> None:
        self.events: list[UiEvent] = []
        self.asked: list[AskUser] = []
        self._answer = answer
        self.changed = anyio.Event()

    async def show(self, event: UiEvent) -> None:
        self.events.append(event)
        self.changed.set()
        self.changed = anyio.Event()

    async def ask(self, question: AskUser) -> str:
        self.asked.append(question)
        if self._answer is None:
            return "y"
        return await self._answer(len(self.asked), question)

    async def seen(self, kind: type[UiEvent]) -> None:
        """Wait until an event of ``kind`` has been shown."""
        while not any(isinstance(e, kind) for e in self.events):
            await self.changed.wait()

    def position(self, kind: type[UiEvent], call_id: str | None = None) -> int:
        """Where the first event of ``kind`` (for ``call_id``, if given) is among those shown."""
        for number, event in enumerate(self.events):
            if not isinstance(event, kind):
                continue
            if call_id is None or _call_id(event) == call_id:
                return number
        raise AssertionError(f"no {kind.__name__} for {call_id} was shown")


def _call_id(event: UiEvent) -> str | None:
    if isinstance(event, ToolStarted):
        return event.id
    if isinstance(event, ToolFinished):
        return event.result.tool_use_id
    return None


@asynccontextmanager
async def pipeline_session(
    root: Path, home: Path, url: str, renderer: Recorder, *, stream_timeout: float = 60.0
) -> AsyncIterator[Session]:
    """A session with a person (permission questions go to ``renderer``), in "ask" mode."""
    env = {"ASSISTANT_BASE_URL": url, "ASSISTANT_API_KEY": "k", "HOME": str(home)}
    options = SessionOptions(
        project_root=str(root), env=env, home=str(home), permission_mode="ask",
        stream_timeout=stream_timeout,
    )  # fmt: skip
    session = assemble(options, renderer=renderer)
    async with supervise(session.actors):
        yield session


async def prompt(session: Session, text: str) -> TurnOutcome:
    return await session.conductor.address.ask(RunPrompt(text=text))


async def conversation(session: Session) -> list[Message]:
    return await session.conductor.address.ask(GetConversation())


def events_before_block(step: Step, index: int, *, then: int = 0) -> int:
    """How many SSE events of ``step`` come before block ``index`` starts (plus ``then``): an
    ``error_after`` that breaks the stream there."""
    events = stream_events(
        step, message_id="m", model="m", input_tokens=1, tool_ids=["t"] * len(step.tool_calls)
    )
    position = block_start_position(events, index)
    assert position is not None
    return position + then
