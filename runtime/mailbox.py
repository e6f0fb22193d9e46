"""Addresses, envelopes and reply ports: how messages travel between actors.

Every actor has one bounded inbox (an anyio memory object stream) of envelopes. An envelope
carries the message and, for requests, the send side of a private reply channel. Replies travel
as ``Ok``/``Err`` outcomes so that a handler's failure reaches the caller as the same exception,
raised in the caller's task.
"""

from __future__ import annotations

from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any, Generic, TypeVar, cast

import anyio
import msgspec

from runtime.errors import ActorGone

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Awaitable, Callable

    from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

    from runtime.messages import Ask, Streamed

M = TypeVar("M")
R = TypeVar("R")

# Room for streamed replies before the handler waits for the caller: enough to smooth bursts
# of deltas, small enough that a stalled consumer applies backpressure.
STREAM_BUFFER = 64


class Ok(msgspec.Struct, frozen=True):
    value: Any


class Err(msgspec.Struct, frozen=True):
    error: Exception


# What travels back on a request's private channel: a value, or the handler's exception.
ReplyOutcome = Ok | Err


class Reply:
    """Both ends' hold on one request.

    The handler answers through it, typed by the request itself: ``answer(msg, value)`` takes
    only the ``R`` of an ``Ask[R]``, and ``sender(msg)`` gives a ``Streamed[R]``'s handler a
    function taking only ``R``s, so mypy checks a handler's replies against what the caller's
    ``ask``/``stream`` promises. The caller abandons the request when it stops waiting (it was
    cancelled, or left a stream early); abandoning cancels the handler, so cancellation travels
    from caller to callee across actors.
    """

    __slots__ = ("_port", "_scope", "abandoned", "sent")

    def __init__(self, port: MemoryObjectSendStream[ReplyOutcome] | None) -> None:
        self._port = port
        self._scope: anyio.CancelScope | None = None
        self.abandoned = False
        self.sent = 0

    def bind(self, scope: anyio.CancelScope) -> None:
        """Called by the actor: the scope its handler runs in."""
        self._scope = scope
        if self.abandoned:
            scope.cancel()

    def abandon(self) -> None:
        self.abandoned = True
        if self._scope is not None:
            self._scope.cancel()

    @property
    def wanted(self) -> bool:
        return self._port is not None

    async def answer(self, msg: Ask[R], value: R) -> None:
        """The one answer to ``msg``."""
        await self._send(value)

    def sender(self, msg: Streamed[R]) -> Callable[[R], Awaitable[None]]:
        """Where the handler of ``msg`` sends each item of its stream."""
        return self._send

    async def _send(self, value: object) -> None:
        if self._port is None:
            return
        self.sent += 1
        await self._port.send(Ok(value))

    async def fail(self, error: Exception) -> None:
        if self._port is not None:
            await self._port.send(Err(error))

    def close(self) -> None:
        if self._port is not None:
            self._port.close()


class Envelope(msgspec.Struct, Generic[M], frozen=True):
    msg: M
    reply: Reply


class Address(Generic[M]):
    """A typed handle on an actor's inbox; the only way to reach an actor."""

    __slots__ = ("_inbox", "name")

    def __init__(self, name: str, inbox: MemoryObjectSendStream[Envelope[M]]) -> None:
        self.name = name
        self._inbox = inbox

    async def _post(self, msg: Any, reply: Reply) -> None:
        try:
            await self._inbox.send(Envelope(msg, reply))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            reply.close()
            raise ActorGone(self.name) from None
        except BaseException:
            reply.close()
            raise

    async def tell(self, msg: M) -> None:
        """Fire and forget; waits only while the inbox is full."""
        await self._post(msg, Reply(None))

    def tell_nowait(self, msg: M) -> None:
        """Fire and forget without waiting; raises ``anyio.WouldBlock`` when the inbox is full."""
        try:
            self._inbox.send_nowait(Envelope(msg, Reply(None)))
        except (anyio.ClosedResourceError, anyio.BrokenResourceError):
            raise ActorGone(self.name) from None

    async def ask(self, msg: Ask[R]) -> R:
        """Send a request and wait for its one reply; a handler's exception is raised here."""
        send, receive = anyio.create_memory_object_stream[ReplyOutcome](1)
        reply = Reply(send)
        async with receive:
            await self._post(msg, reply)
            try:
                outcome = await receive.receive()
            except anyio.EndOfStream:
                raise ActorGone(self.name) from None
            finally:
                reply.abandon()  # no-op once answered; cancels the handler if we stopped waiting
        if isinstance(outcome, Err):
            raise outcome.error
        return cast("R", outcome.value)

    @asynccontextmanager
    async def stream(self, msg: Streamed[R]) -> AsyncIterator[AsyncIterator[R]]:
        """Send a request and iterate its replies; leaving the block early cancels the handler."""
        send, receive = anyio.create_memory_object_stream[ReplyOutcome](STREAM_BUFFER)
        reply = Reply(send)
        async with receive:
            await self._post(msg, reply)
            try:
                yield _Replies(receive)
            finally:
                reply.abandon()

    def __repr__(self) -> str:
        return f"Address({self.name!r})"


class _Replies(Generic[R]):
    """The caller's iterator over streamed replies (a class, not an async generator, so that
    leaving the loop early leaves nothing for the garbage collector to finalise)."""

    __slots__ = ("_receive",)

    def __init__(self, receive: MemoryObjectReceiveStream[ReplyOutcome]) -> None:
        self._receive = receive

    def __aiter__(self) -> _Replies[R]:
        return self

    async def __anext__(self) -> R:
        try:
            outcome = await self._receive.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None
        if isinstance(outcome, Err):
            raise outcome.error
        return cast("R", outcome.value)
