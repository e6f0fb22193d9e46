"""The actor: a task that owns its state and a typed, bounded inbox.

Subclasses implement ``handle``. By default an actor handles one message at a time, so its
state needs no locks. An actor that does slow work for many callers at once (the tool executor)
sets ``concurrent = True``: each message is then handled in its own task inside the actor's task
group, and the actor still ends only when every handler has finished. Those tasks start in no
particular order, so such an actor notes the order its messages came in with ``arrived``, which
the actor's own task calls for each message, in inbox order, before the message's handler starts.

A failure inside a request's handler is the caller's problem: it is sent back and raised in the
caller's task. A failure anywhere else (a ``tell`` handler, ``on_start``) is the actor's: it
crashes the actor, and the supervisor ends the session with ``ActorCrashed``.
"""

from __future__ import annotations

import contextlib
import time
from typing import TYPE_CHECKING, ClassVar, Generic, TypeVar

import anyio

from runtime.errors import ActorCrashed, KernelError
from runtime.mailbox import Address, Envelope, Reply
from runtime.messages import Ask

if TYPE_CHECKING:
    from anyio.abc import TaskGroup, TaskStatus

    from runtime.tracing import Tracer

M = TypeVar("M")


class Actor(Generic[M]):
    name: ClassVar[str] = "actor"
    inbox_size: ClassVar[int] = 64
    concurrent: ClassVar[bool] = False

    def __init__(self) -> None:
        self._inbox_send, self._inbox = anyio.create_memory_object_stream[Envelope[M]](
            self.inbox_size
        )
        self.address: Address[M] = Address(self.name, self._inbox_send)
        self._tasks: TaskGroup | None = None
        self.tracer: Tracer | None = None  # set by the supervisor before the actor starts

    # -- for subclasses ---------------------------------------------------------------------

    async def on_start(self) -> None:
        """Runs before the first message; the supervisor waits for it."""

    async def on_stop(self) -> None:
        """Runs after the last message, also when cancelled (so keep it short and shielded)."""

    async def handle(self, msg: M, reply: Reply) -> None:
        raise NotImplementedError

    def arrived(self, msg: M) -> None:
        """Called synchronously for each message, in the order messages came in, before its
        handler starts: where a concurrent actor records what must follow arrival order."""

    def trace(self, event: str, **fields: object) -> None:
        """Report an event to the session's tracer, if it has one."""
        if self.tracer is not None:
            self.tracer(event, fields)

    @property
    def tasks(self) -> TaskGroup:
        """The actor's own task group, for background work that must end with the actor."""
        if self._tasks is None:
            raise KernelError(f"actor {self.name!r} is not running")
        return self._tasks

    # -- for the supervisor -----------------------------------------------------------------

    def close_inbox(self) -> None:
        """Accept no more messages; the actor ends once it has handled those already queued."""
        self._inbox_send.close()

    def discard(self) -> None:
        """Close both ends of the inbox of an actor that will never run (an actor started
        before it failed): nothing reaches it, and no open stream is left to the collector."""
        self._inbox_send.close()
        self._inbox.close()

    async def run(self, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        try:
            async with anyio.create_task_group() as tasks:
                self._tasks = tasks
                await self.on_start()
                task_status.started()
                # Chosen once: with no tracer, dispatch is exactly what it always was.
                dispatch = self._dispatch if self.tracer is None else self._dispatch_traced
                async with self._inbox:
                    async for envelope in self._inbox:
                        self.arrived(envelope.msg)
                        if self.concurrent:
                            tasks.start_soon(dispatch, envelope)
                        else:
                            await dispatch(envelope)
        except Exception as exc:
            raise ActorCrashed(self.name, _single(exc)) from exc
        finally:
            self._tasks = None
            self._inbox_send.close()
            self._inbox.close()  # also when on_start failed before the inbox was opened
            with anyio.CancelScope(shield=True), anyio.move_on_after(2):
                await self.on_stop()

    async def _dispatch_traced(self, envelope: Envelope[M]) -> None:
        """``_dispatch``, reporting the message's type, handling time and replies to the tracer."""
        kind = type(envelope.msg).__name__
        started = time.monotonic()
        try:
            await self._dispatch(envelope)
        finally:
            elapsed_ms = (time.monotonic() - started) * 1000
            # replies: how many answers went back (a stream's items), the rest of its traffic.
            self.trace(
                "handled",
                actor=self.name,
                msg=kind,
                ms=f"{elapsed_ms:.1f}",
                replies=envelope.reply.sent,
            )

    async def _dispatch(self, envelope: Envelope[M]) -> None:
        reply = envelope.reply
        if not reply.wanted:
            await self.handle(envelope.msg, reply)
            return
        try:
            with anyio.CancelScope() as scope:
                reply.bind(scope)
                await self.handle(envelope.msg, reply)
            if scope.cancelled_caught:
                return  # the caller abandoned the request: nobody is listening
            if isinstance(envelope.msg, Ask) and reply.sent == 0:
                await reply.fail(KernelError(f"{self.name} sent no reply to {envelope.msg!r}"))
        except (anyio.BrokenResourceError, anyio.ClosedResourceError):
            pass  # the caller stopped listening: nothing left to answer
        except Exception as exc:
            with contextlib.suppress(anyio.BrokenResourceError, anyio.ClosedResourceError):
                await reply.fail(exc)
        finally:
            reply.close()


def _single(exc: BaseException) -> BaseException:
    """A group holding one leaf (what task groups make of a single failure) becomes that leaf."""
    while isinstance(exc, BaseExceptionGroup) and len(exc.exceptions) == 1:
        exc = exc.exceptions[0]
    return exc
