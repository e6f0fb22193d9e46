"""The supervisor: one task group for a session's actors.

``supervise`` starts the actors in order (each one's ``on_start`` finishes before the next
starts), runs the caller's block, and then shuts down in reverse start order, one actor at a
time: the last one started closes its inbox, finishes what is queued and stops, and only then
does the one before it close. An actor can therefore still use every actor started before it
while it drains (the conductor saving its last events). What has not finished when ``grace``
seconds have passed is cancelled.

When the block itself fails or is cancelled there is no one to wait for: every inbox closes at
once and the task group's cancellation ends the actors.

If any actor crashes, the task group cancels the block and every other actor, and ``supervise``
raises that ``ActorCrashed`` itself rather than an exception group, so the caller sees one clear
error and never a hang. An actor whose ``on_start`` fails stops the start there: those after it
never run, and their inboxes are closed.
"""

from __future__ import annotations

from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

import anyio

from runtime.errors import ActorCrashed

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Sequence

    from anyio.abc import TaskStatus

    from runtime.actor import Actor
    from runtime.tracing import Tracer


class Supervision:
    """The caller's hold on a running ``supervise`` block."""

    def __init__(self, grace: float) -> None:
        self.grace = grace  # may be shortened inside the block, e.g. once the user has said stop


@asynccontextmanager
async def supervise(
    actors: Sequence[Actor[Any]], *, grace: float = 5.0, tracer: Tracer | None = None
) -> AsyncIterator[Supervision]:
    supervision = Supervision(grace)
    for actor in actors:
        actor.tracer = tracer
    stopped = [anyio.Event() for _ in actors]
    begun = 0
    waiting_for = ""
    try:
        async with anyio.create_task_group() as group:
            for actor, done in zip(actors, stopped, strict=True):
                begun += 1
                await group.start(_run, actor, done)
            try:
                yield supervision
            except BaseException:
                for actor in reversed(actors):
                    actor.close_inbox()
                raise
            # Queued work gets a bounded chance to finish; after that, cancellation.
            deadline = anyio.current_time() + supervision.grace
            group.cancel_scope.deadline = deadline
            for actor, done in zip(reversed(actors), reversed(stopped), strict=True):
                waiting_for = actor.name
                actor.close_inbox()
                with anyio.move_on_at(deadline):
                    await done.wait()
        if tracer is not None and group.cancel_scope.cancelled_caught:
            # Said, so that a trace shows a shutdown cut off at the grace's end, and where.
            tracer("grace ran out", {"grace": supervision.grace, "actor": waiting_for})
    except BaseExceptionGroup as group_error:
        raise first_error(group_error) from None
    finally:
        # Those that never ran: their own task, which closes an inbox, never came.
        for actor in actors[begun:]:
            actor.discard()


async def _run(
    actor: Actor[Any],
    done: anyio.Event,
    *,
    task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED,
) -> None:
    try:
        await actor.run(task_status=task_status)
    finally:
        done.set()


def first_error(group: BaseExceptionGroup[BaseException]) -> BaseException:
    """The error to show for a failed session: an actor crash first, else the only other error.

    Cancellation is never dropped here: a group made only of cancellations is re-raised whole.
    """
    leaves = list(_leaves(group))
    crashes = [leaf for leaf in leaves if isinstance(leaf, ActorCrashed)]
    if crashes:
        return crashes[0]
    others = [leaf for leaf in leaves if not isinstance(leaf, anyio.get_cancelled_exc_class())]
    if len(others) == 1:
        return others[0]
    return group


def _leaves(exc: BaseException) -> list[BaseException]:
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for child in exc.exceptions for leaf in _leaves(child)]
    return [exc]
