"""A real session in this process for WebSearch's tests: the scripted server on loopback, the
real conductor and model client, and in the broker's place for kind ``search`` a judge that
records each request and answers as the test says (the broker's own judgement of searches is
tested with the broker)."""

from __future__ import annotations

from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

import anyio
import msgspec

from actors.protocol import CheckPermission, Decision, GetConversation, RunPrompt
from frontends.session import conductor, model_client, tool_parts
from frontends.session_options import SessionOptions
from runtime import Actor, supervise
from tests.pipeline.harness import Recorder

if TYPE_CHECKING:
    import threading
    from collections.abc import AsyncIterator
    from pathlib import Path

    from actors.conductor import Conductor
    from actors.protocol import Message, PermissionRequest, TurnOutcome
    from runtime import Address, Reply


class Judge(Actor[CheckPermission]):
    """Answers every search's permission request with ``decision``, and keeps the requests."""

    def __init__(self, decision: Decision) -> None:
        super().__init__()
        self.decision = decision
        self.asked: list[PermissionRequest] = []

    async def handle(self, msg: CheckPermission, reply: Reply) -> None:
        self.asked.append(msg.request)
        await reply.answer(msg, self.decision)


ALLOW = Decision(True, "an allow rule names WebSearch")


class Searching(msgspec.Struct):
    conductor: Address[Any]
    judge: Judge
    recorder: Recorder

    async def prompt(self, text: str) -> TurnOutcome:
        return await self.conductor.ask(RunPrompt(text=text))

    async def conversation(self) -> list[Message]:
        return await self.conductor.ask(GetConversation())


@asynccontextmanager
async def search_session(
    root: Path,
    home: Path,
    url: str,
    *,
    decision: Decision = ALLOW,
    model: str | None = None,
    env: dict[str, str] | None = None,
) -> AsyncIterator[Searching]:
    environment = {"ASSISTANT_BASE_URL": url, "ASSISTANT_API_KEY": "k", "HOME": str(home)}
    environment |= env or {}
    options = SessionOptions(
        project_root=str(root), env=environment, home=str(home), permission_mode="ask",
        model=model,
    )  # fmt: skip
    recorder = Recorder()
    parts = tool_parts(options, renderer=recorder)
    client = model_client(options, parts.memory)
    judge = Judge(decision)
    # The conductor asks the judge; the executor keeps the real broker.
    judged = msgspec.structs.replace(parts, permissions=judge)
    session_conductor: Conductor = conductor(options, judged, client)
    async with supervise([*parts.actors, judge, client, session_conductor]):
        yield Searching(session_conductor.address, judge, recorder)


async def received(count: int, seen: threading.Semaphore) -> None:
    """Wait (in a worker thread) until the server has received ``count`` more requests."""
    for _ in range(count):
        await anyio.to_thread.run_sync(seen.acquire)
