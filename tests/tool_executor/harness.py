"""A tool executor under test: real files, real processes, and a tiny permission broker (or
the executor a session runs, from the composition root: the real broker with its real policy,
a real memory store and a scripted person)."""

from __future__ import annotations

import itertools
import json
import os
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

from actors.protocol import (
    AskUser,
    CheckPermission,
    Decision,
    FilterReadable,
    FindBlocked,
    PermissionAnswer,
    PermissionBrokerMsg,
    PermissionRequest,
    RunTools,
    SetMode,
    ToolCall,
    ToolEvent,
    ToolFinished,
)
from actors.tool_executor import ToolExecutor
from actors.ui import Renderer
from frontends.session import tool_parts
from frontends.session_options import SessionOptions
from runtime import Actor, Reply, supervise
from tests.trusting import trust_project

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Callable, Mapping, Sequence
    from pathlib import Path

    from actors.protocol import PermissionMode, UiEvent

_ids = itertools.count(1)


class Broker(Actor[PermissionBrokerMsg]):
    """Allows everything, except what ``deny`` gives a reason to refuse; records every request.
    Every file a walk meets may be read (the real rules are tested with the real broker)."""

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
                await reply.answer(msg, Decision(reason is None, reason or "allowed by the test"))
            case FindBlocked(paths=paths):
                await reply.answer(msg, tuple(False for _ in paths))
            case FilterReadable(paths=paths):
                await reply.answer(msg, tuple(True for _ in paths))
            case SetMode(mode=mode):
                await reply.answer(msg, mode)


class Person(Renderer):
    """A person at a frontend, as the UI actor sees them: answers each permission question with
    the next scripted answer, a terminal's plain one or an SDK's structured one; records the
    questions and what was shown."""

    def __init__(self, answers: Sequence[str | PermissionAnswer]) -> None:
        self.answers = list(answers)
        self.asked: list[AskUser] = []
        self.shown: list[UiEvent] = []

    async def ask(self, question: AskUser) -> str | PermissionAnswer:
        self.asked.append(question)
        return self.answers.pop(0)

    async def show(self, event: UiEvent) -> None:
        self.shown.append(event)


def call(name: str, **fields: Any) -> ToolCall:
    return ToolCall(id=f"toolu_{next(_ids)}", name=name, input=fields)


class Calls:
    """Tool calls to an executor, and what they came back with."""

    def __init__(self, executor: ToolExecutor, root: Path) -> None:
        self.executor = executor
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


class Session(Calls):
    def __init__(self, executor: ToolExecutor, broker: Broker, root: Path) -> None:
        super().__init__(executor, root)
        self.broker = broker


class PolicySession(Calls):
    def __init__(self, executor: ToolExecutor, root: Path, person: Person | None) -> None:
        super().__init__(executor, root)
        self.person = person  # None: headless


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


@asynccontextmanager
async def with_policy(
    root: Path,
    *,
    mode: PermissionMode = "ask",
    answers: Sequence[str | PermissionAnswer] | None = None,
    bwrap: str | None = None,
    ui: Person | None = None,
    env: Mapping[str, str] | None = None,
    **settings: Any,
) -> AsyncIterator[PolicySession]:
    """The executor as a session wires it, with the real broker and policy: ``settings`` go to
    .legato/settings.json; without ``answers`` it is headless (what needs a person is denied).
    Commands run in the session's sandbox (``bwrap``: which one; the default finds it); ``ui``
    gets what the executor shows."""
    (root / ".legato").mkdir(exist_ok=True)
    (root / ".legato" / "settings.json").write_text(json.dumps(settings))
    home = root.parent / f"{root.name}-home"
    home.mkdir(exist_ok=True)
    trust_project(root, home)  # as the user would with ``legato trust``
    person = None if answers is None else Person(answers)
    options = SessionOptions(
        project_root=str(root),
        headless=True,  # questions go to ``person`` alone
        permission_mode=mode,
        env=env,
        home=str(home),
        asker=person,
    )
    # Without ``ui``, each call's progress comes back on its stream, where the tests read it.
    parts = tool_parts(options, renderer=ui, with_ui=ui is not None, bwrap=bwrap)
    async with supervise(parts.actors):
        yield PolicySession(parts.tools, root, person)


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


def running_in(folder: Path) -> list[int]:
    """Live processes whose working folder is ``folder`` or inside it: what a command started
    there and left behind. It works for confined commands too, whose own pids are their
    namespace's and mean nothing here."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            cwd = os.readlink(f"/proc/{name}/cwd")
        except OSError:
            continue  # it ended, or it is not ours to look at
        if (cwd == str(folder) or cwd.startswith(f"{folder}/")) and is_running(int(name)):
            found.append(int(name))
    return found
