"""The session's actors under the screen, one session at a time.

The screen, its input and its history outlive a session: ``/resume`` ends the running
session's actors (as a quit ends them: their queued work finished, the session saved) and
starts another's, while the screen goes on. Each session's actors run in a task of their own
in the terminal's task group, so that a crash among them still ends the terminal with its
error, as it would if they ran around it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import anyio

from frontends.startup import debug
from runtime import supervise

if TYPE_CHECKING:
    from anyio.abc import TaskGroup, TaskStatus

    from frontends.session import Session


class Hosting:
    def __init__(self, tasks: TaskGroup) -> None:
        self._tasks = tasks
        self._stop = anyio.Event()  # set: the running session's actors end
        self._ended = anyio.Event()  # set once they have
        self.up = anyio.Event()  # set while a session's actors run

    async def start(self, session: Session) -> None:
        """Start ``session``'s actors; what keeps one from starting (``ActorCrashed``, a
        ``LegatoError``) is raised here, and nothing of it runs."""
        await self._tasks.start(self._run, session)

    async def stop(self) -> None:
        """End the running session's actors and wait until they have."""
        ended = self._ended
        self.up = anyio.Event()
        self._stop.set()
        await ended.wait()

    def end(self) -> None:
        """End the running session's actors; the task group waits for them."""
        self._stop.set()

    async def _run(self, session: Session, *, task_status: TaskStatus[None]) -> None:
        self._stop = stop = anyio.Event()
        self._ended = ended = anyio.Event()
        try:
            async with supervise(session.actors, tracer=debug.tracer()):
                task_status.started()
                self.up.set()
                await stop.wait()
        finally:
            ended.set()
