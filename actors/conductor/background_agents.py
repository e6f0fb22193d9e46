"""Agents left working in the background: started by ``Agent`` with ``run_in_background``, read
by TaskOutput, stopped by TaskStop or ``/tasks stop``, and never outliving the session.

The conductor owns agents, so it owns these too, and answers TaskOutput and TaskStop for an
agent's id (``AgentId``, ``agent_N``) itself; the executor keeps the commands' ids
(``actors/tool_routes.py`` says who answers what). Each agent runs in a task group of the
conductor's that outlives the turn that started it but not the session: ``close`` cancels it
when the session ends, and each agent's calls and processes are then stopped as an interrupted
agent's are. Stopping a turn (Esc, Ctrl-C) leaves them running, as it leaves background
commands. They take a place under ``agents.maxConcurrent`` like any agent of the main
conversation, waiting for one when all are taken.

Every agent that has ended is reported to the model once: by the read that shows its end, by
the TaskStop that ended it, or else by a note at the start of the model's next turn (``news``).
"""

from __future__ import annotations

import itertools
import time
from typing import TYPE_CHECKING, Literal

import anyio
import msgspec

from actors.protocol import (
    AgentEvent,
    AgentId,
    BackgroundAgent,
    BlockFinished,
    TextDelta,
    ToolResult,
)
from actors.tool_routes import no_such_job

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from anyio.abc import TaskGroup, TaskStatus

    from actors.protocol import ToolCall, UiEvent

State = Literal["waiting", "running", "completed", "failed", "stopped", "ended with the session"]


class AgentJob(msgspec.Struct, eq=False):
    id: AgentId
    agent: str
    description: str
    started: float = msgspec.field(default_factory=time.monotonic)
    state: State = "waiting"
    ended: float | None = None
    answer: str = ""  # its final answer, or why it failed
    activity: str = ""
    _said: str = ""  # the end of what it is saying now, for ``activity``
    who_stopped: str = ""  # "the model", "the user"
    reported: bool = False  # the model has been told of its end
    scope: anyio.CancelScope = msgspec.field(default_factory=anyio.CancelScope)
    done: anyio.Event = msgspec.field(default_factory=anyio.Event)

    def age(self) -> float:
        return (self.ended or time.monotonic()) - self.started

    def status(self) -> str:
        took = f"{self.age():.1f} s"
        match self.state:
            case "waiting":
                return f"waiting {took} for a place (agents.maxConcurrent)"
            case "running":
                return f"running for {took}"
            case "completed":
                return f"completed after {took}"
            case "failed":
                return f"failed after {took}"
            case "stopped":
                return (
                    f"stopped by {self.who_stopped} after {took}, with every call and process "
                    "it started"
                )
            case _:
                return "stopped: the session ended"

    def watch(self, event: UiEvent) -> None:
        """Its latest activity, from the events of its conversation: a call, or what it says."""
        if isinstance(event, AgentEvent):
            event = event.event
        match event:
            case BlockFinished(block=block) if block.get("type") == "tool_use":
                given = block.get("input") or {}
                first = next(iter(given.values()), "") if isinstance(given, dict) else given
                self.activity = f"{block.get('name')}: {_short(str(first))}"
                self._said = ""
            case TextDelta(text=text):
                self._said = (self._said + text)[-400:]
                lines = [line.strip() for line in self._said.splitlines() if line.strip()]
                if lines:
                    self.activity = f"says: {_short(lines[-1])}"
            case _:
                pass

    def describe(self) -> BackgroundAgent:
        return BackgroundAgent(
            id=str(self.id),
            agent=self.agent,
            description=self.description,
            state=self.state,
            status=self.status(),
            age=self.age(),
            activity=self.activity,
        )

    def read(self) -> str:
        """How it stands and, once it has ended, its answer; a read that shows the end is the
        model's news of it."""
        head = f"{self.id} ({self.agent}: {self.description}): {self.status()}."
        if self.state in ("waiting", "running"):
            latest = f"Latest activity: {self.activity}" if self.activity else "No activity yet."
            return f"{head}\n{latest}\nIts answer comes when it is done."
        self.reported = True
        if self.answer:
            return f"{head}\nIts answer:\n{self.answer}"
        return head


class BackgroundAgents:
    """The session's background agents, by id, in the order they started."""

    def __init__(self) -> None:
        self._jobs: dict[AgentId, AgentJob] = {}
        self._ids = itertools.count(1)
        self._group: TaskGroup | None = None
        self._closed = False

    async def serve(self, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        """Hold the agents' task group until ``close``: run in the conductor's task group."""
        async with anyio.create_task_group() as group:
            self._group = group
            task_status.started()
            if self._closed:
                group.cancel_scope.cancel()
            await anyio.sleep_forever()

    def close(self) -> None:
        """The session ends: every agent still working is stopped, and no more start."""
        self._closed = True
        if self._group is not None:
            self._group.cancel_scope.cancel()

    def start(
        self,
        call: ToolCall,
        agent: str,
        description: str,
        work: Callable[[AgentJob], Awaitable[ToolResult]],
        places: anyio.CapacityLimiter,
    ) -> ToolResult:
        """Start an agent's ``work`` in the background; the Agent call's result, at once."""
        if self._closed or self._group is None:
            return ToolResult(
                tool_use_id=call.id,
                content="The session is ending: no background agent starts now.",
                is_error=True,
            )
        job = AgentJob(id=AgentId(next(self._ids)), agent=agent, description=description)
        self._jobs[job.id] = job
        self._group.start_soon(self._run, job, work, places)
        return ToolResult(
            tool_use_id=call.id,
            content=(
                f"Started agent {job.id} ({agent}: {description}) in the background; it works "
                f"on while you go on. Read how it stands, and its answer once it is done, with "
                f'TaskOutput (task_id "{job.id}"); stop it with TaskStop. You will be told '
                "when it ends."
            ),
        )

    async def _run(
        self,
        job: AgentJob,
        work: Callable[[AgentJob], Awaitable[ToolResult]],
        places: anyio.CapacityLimiter,
    ) -> None:
        try:
            with job.scope:
                async with places:
                    job.state = "running"
                    result = await work(job)
                job.answer = result.content
                job.state = "failed" if result.is_error else "completed"
        except Exception as exc:  # a bug or a broken actor: this agent fails, not the session
            job.state, job.answer = "failed", f"The agent failed: {type(exc).__name__}: {exc}"
        finally:
            if job.state in ("waiting", "running"):  # cancelled: by a stop, or the session's end
                job.state = "stopped" if job.who_stopped else "ended with the session"
            job.ended = time.monotonic()
            job.done.set()

    def find(self, job_id: AgentId | str) -> AgentJob | str:
        """The agent, or the error that names the ids there are (text is no agent's id)."""
        job = self._jobs.get(job_id) if isinstance(job_id, AgentId) else None
        if job is None:
            return no_such_job("agent", str(job_id), (str(known) for known in self._jobs))
        return job

    async def stop(self, job: AgentJob, *, by: str) -> None:
        """Stop a working agent and wait until its calls have reported and its processes are
        gone (bounded by each call's own interrupt grace)."""
        if job.state in ("waiting", "running"):
            job.who_stopped = by
            job.scope.cancel()
            await job.done.wait()

    def news(self) -> tuple[str, ...]:
        """A line for each agent that has ended since the model last heard of it; once each."""
        lines = []
        for job in self._jobs.values():
            if job.ended is not None and not job.reported:
                job.reported = True
                lines.append(
                    f"Background agent {job.id} ({job.agent}: {job.description}) has ended: "
                    f"{job.status()}. Read its answer with TaskOutput."
                )
        return tuple(lines)

    def listing(self) -> tuple[BackgroundAgent, ...]:
        return tuple(job.describe() for job in self._jobs.values())


def _short(text: str) -> str:
    line = text.strip().splitlines()[0] if text.strip() else text
    return line if len(line) <= 80 else line[:77] + "..."
