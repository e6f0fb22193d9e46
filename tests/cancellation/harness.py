"""A whole session in this process against the scripted server, and the four invariants.

The session is the real one (``frontends.session.assemble``): real loopback HTTP, real processes,
real files in ``tmp_path``. Only the renderer is the test's: it counts what it is shown, can
stall, and answers (or sits on) permission questions, which is where a test cancels.

Every process a session's commands start carries the session's marker in its environment, so
they are found from outside (``started_by``) whether or not they run in the sandbox, whose pids
are its own namespace's, and wherever they went: another folder, group or session.
"""

from __future__ import annotations

import itertools
import json
import os
import uuid
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import TYPE_CHECKING

import anyio
import msgspec

from actors.protocol import (
    AgentEvent,
    GetConversation,
    MessageFinished,
    MessageStarted,
    RunPrompt,
    ToolInputDelta,
    ToolOutput,
    ToolStarted,
    TurnOutcome,
)
from actors.ui import Renderer
from frontends.session import assemble
from frontends.session_options import SessionOptions
from runtime import supervise
from tests.tool_executor.harness import is_running
from tests.trusting import trust_project

if TYPE_CHECKING:
    from collections.abc import AsyncIterator
    from pathlib import Path

    from actors.protocol import AskUser, Message, UiEvent
    from frontends.session import Session

# The variable that marks a session's processes.
MARKER = "LEGATO_TEST_SESSION"


class ControlledRenderer(Renderer):
    """Counts events; sets ``reached`` at the ``cancel_at_event``-th event shown or the
    ``cancel_at_ask``-th permission question (and then never answers that question).

    Tool input deltas are not counted: a large Write streams thousands of them, which would
    crowd every other kind of point out of a small range of ``n``. A subagent's events count as
    the main conversation's do (its tool events among the tool events).
    """

    def __init__(
        self,
        *,
        cancel_at_event: int | None = None,
        cancel_at_ask: int | None = None,
        cancel_at_tool: int | None = None,
    ):
        self.cancel_at_event = cancel_at_event
        self.cancel_at_ask = cancel_at_ask
        self.cancel_at_tool = cancel_at_tool  # the n-th ToolStarted or ToolOutput: tools running
        self.tool_events = 0
        self.events: list[UiEvent] = []
        self.asks = 0
        self.counted = 0
        self.point = "nowhere: the prompt ended first"  # where the cancel came, for statistics
        self.reached = anyio.Event()
        self.shown_before_cancel: list[UiEvent] | None = None
        self.stalled: anyio.Event | None = None  # while set to an unset Event, show() waits

    async def show(self, event: UiEvent) -> None:
        if self.stalled is not None:
            await self.stalled.wait()
        self.events.append(event)
        inner = event.event if isinstance(event, AgentEvent) else event
        whose = "an agent's " if inner is not event else ""
        if not isinstance(inner, ToolInputDelta):
            self.counted += 1
            if self.counted == self.cancel_at_event:
                self.point = f"after {whose}{type(inner).__name__}"
                self._reach()
        if isinstance(inner, ToolStarted | ToolOutput):
            self.tool_events += 1
            if self.tool_events == self.cancel_at_tool:
                self.point = f"while tools ran, after {whose}{type(inner).__name__}"
                self._reach()

    def _reach(self) -> None:
        self.shown_before_cancel = list(self.events)
        self.reached.set()

    def mid_answer_with_calls_running(self) -> bool:
        """Whether the cancel came while an answer streamed and some of its calls had started."""
        shown = self.shown_before_cancel or []
        starts = [n for n, e in enumerate(shown) if isinstance(e, MessageStarted)]
        if not starts:
            return False
        answer = shown[starts[-1] :]
        finished = any(isinstance(e, MessageFinished) for e in answer)
        return not finished and any(isinstance(e, ToolStarted) for e in answer)

    async def ask(self, question: AskUser) -> str:
        self.asks += 1
        if self.asks == self.cancel_at_ask:
            self.point = "at a permission question"
            self._reach()
            await anyio.sleep_forever()  # the person walked away; only an interrupt ends this
        return "y"


@dataclass
class Live:
    session: Session
    renderer: ControlledRenderer
    root: Path
    marker: str  # in the environment of every process the session's commands start

    async def prompt(self, text: str) -> TurnOutcome:
        return await self.session.conductor.address.ask(RunPrompt(text=text))

    async def interrupted_prompt(self, text: str) -> TurnOutcome | None:
        """Run ``text`` until the renderer's point is reached, then cancel it as Ctrl-C does;
        returns once the conductor has let go. ``None`` if it was cancelled."""
        outcome: TurnOutcome | None = None
        async with anyio.create_task_group() as tasks:
            scope = anyio.CancelScope()

            async def cancel_when_reached() -> None:
                await self.renderer.reached.wait()
                scope.cancel()

            tasks.start_soon(cancel_when_reached)
            with scope:
                outcome = await self.prompt(text)
            tasks.cancel_scope.cancel()
        await self.conversation()  # answered only once the interrupted prompt has let go
        return outcome

    async def conversation(self) -> list[Message]:
        return await self.session.conductor.address.ask(GetConversation())

    def processes(self) -> list[int]:
        """The live processes the session's commands started."""
        return started_by(self.marker)


@asynccontextmanager
async def live_session(
    root: Path,
    home: Path,
    base_url: str,
    renderer: ControlledRenderer,
    *,
    sandbox: bool = False,  # False: commands run unconfined (sandbox.enabled false)
    **options: object,
) -> AsyncIterator[Live]:
    value = uuid.uuid4().hex
    env = {
        "ASSISTANT_BASE_URL": base_url,
        "ASSISTANT_API_KEY": "test-key",
        "HOME": str(home),
        MARKER: value,
    }
    if not sandbox:
        unconfined(root)
        trust_project(root, home)  # as its user would: the sandbox off widens
    wanted = SessionOptions(project_root=str(root), env=env, home=str(home))
    session = assemble(msgspec.structs.replace(wanted, **options), renderer=renderer)
    async with supervise(session.actors):
        yield Live(session, renderer, root, f"{MARKER}={value}")


def unconfined(root: Path) -> None:
    """Commands here run outside the sandbox, so that the pids they record are the ones this
    process sees (a confined command's are its own namespace's)."""
    settings = root / ".legato" / "settings.json"
    values = json.loads(settings.read_text()) if settings.exists() else {}
    values.setdefault("sandbox", {})["enabled"] = False
    settings.parent.mkdir(exist_ok=True)
    settings.write_text(json.dumps(values))


# ── the invariants ──────────────────────────────────────────────────────────────────────────


def conversation_problems(messages: list[Message]) -> list[str]:
    """What the API would refuse in ``messages`` (empty when it is valid)."""
    problems = []
    if not messages or messages[0].role != "user":
        problems.append("the conversation does not start with a user message")
    for before, after in itertools.pairwise(messages):
        if before.role == after.role:
            problems.append(f"two {before.role} messages in a row")
    for index, message in enumerate(messages):
        if not message.content:
            problems.append(f"message {index} is empty")
        if message.role != "assistant":
            continue
        calls = {b["id"] for b in message.content if b.get("type") == "tool_use"}
        if not calls:
            continue
        following = messages[index + 1].content if index + 1 < len(messages) else []
        answered = {b["tool_use_id"] for b in following if b.get("type") == "tool_result"}
        if calls - answered:
            problems.append(f"tool_use without a tool_result: {sorted(calls - answered)}")
    return problems


def started_by(marker: str) -> list[int]:
    """Live processes whose environment holds ``marker`` ("NAME=value"); a zombie has ended."""
    wanted = marker.encode()
    found = []
    for pid in (name for name in os.listdir("/proc") if name.isdigit()):
        try:
            with open(f"/proc/{pid}/environ", "rb") as file:
                environ = file.read().split(b"\0")
        except OSError:
            continue  # it ended, or it is not ours to read
        if wanted in environ and is_running(int(pid)):
            found.append(int(pid))
    return found


def recorded_pids(path: Path) -> list[int]:
    if not path.exists():
        return []
    return [int(word) for word in path.read_text().split()]


def surviving(pids: list[int]) -> list[int]:
    return [pid for pid in pids if is_running(pid)]
