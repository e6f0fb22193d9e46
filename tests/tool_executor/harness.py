"""A tool executor under test: real files, real processes, and a tiny permission broker."""

from __future__ import annotations

import itertools
import os
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from actors.protocol import (
    CheckPermission,
    Decision,
    PermissionBrokerMsg,
    PermissionRequest,
    RunTools,
    SetMode,
    ToolCall,
    ToolEvent,
    ToolFinished,
)
from actors.tool_executor import ToolExecutor
from runtime import Actor, Reply, supervise

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Callable
    from pathlib import Path

_ids = itertools.count(1)


class Broker(Actor[PermissionBrokerMsg]):
    """Allows everything, except what ``deny`` gives a reason to refuse; records every request."""

    name = "permission_broker"

    def __init__(self, deny: Callable[[PermissionRequest], str | None] | None = None) -> None:
        super().__init__()
        self.deny = deny
        self.requests: list[PermissionRequest] = []

    async def handle(self, msg: PermissionBrokerMsg, reply: Reply) -> None:
        match msg:
            case CheckPermission(request=request):
                self.requests.append(request)
                reason = self.deny(request) if self.deny else None
                await reply.send(Decision(reason is None, reason or "allowed by the test"))
            case SetMode(mode=mode):
                await reply.send(mode)


def call(name: str, **fields: Any) -> ToolCall:
    return ToolCall(id=f"toolu_{next(_ids)}", name=name, input=fields)


class Session:
    def __init__(self, executor: ToolExecutor, broker: Broker, root: Path) -> None:
        self.executor = executor
        self.broker = broker
        self.root = root

    async def events(self, *calls: ToolCall) -> list[ToolEvent]:
        async with self.executor.address.stream(RunTools(calls=calls)) as stream:
            return [event async for event in stream]

    async def finished(self, *calls: ToolCall) -> dict[str, ToolFinished]:
        """Each call's ToolFinished by call id (there must be exactly one for each)."""
        events = await self.events(*calls)
        finished = [event for event in events if isinstance(event, ToolFinished)]
        assert sorted(f.result.tool_use_id for f in finished) == sorted(c.id for c in calls)
        return {f.result.tool_use_id: f for f in finished}

    async def one(self, name: str, **fields: Any) -> ToolFinished:
        tool_call = call(name, **fields)
        return (await self.finished(tool_call))[tool_call.id]

    async def read(self, path: Path) -> None:
        done = await self.one("Read", file_path=str(path))
        assert not done.result.is_error, done.result.content


@asynccontextmanager
async def session(
    root: Path,
    *,
    deny: Callable[[PermissionRequest], str | None] | None = None,
    **options: Any,
) -> AsyncIterator[Session]:
    broker = Broker(deny)
    executor = ToolExecutor(broker.address, project_root=str(root), **options)
    async with supervise([broker, executor]):
        yield Session(executor, broker, root)


def is_running(pid: int) -> bool:
    """Whether ``pid`` is a live process. A zombie counts as dead: it has exited, and where pid 1
    does not reap orphans (some containers) it stays a zombie for good."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            state = file.read().rsplit(b")", 1)[1].split()[0]
    except FileNotFoundError:
        return not os.path.isdir("/proc")  # it ended just now, or there is no /proc to ask
    return state not in (b"Z", b"X")
