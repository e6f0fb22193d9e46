"""Messages handled one at a time in the order they came, by an actor that also answers some
messages at once.

The conductor handles a prompt for as long as it runs, and ``/tasks`` must still be answered
meanwhile. So the conductor is a concurrent actor (each message in a task of its own) and
``InOrder`` gives back what a plain actor has: every other message waits until those that came
before it have been handled, so the conversation never has two writers.
"""

from __future__ import annotations

import collections
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING

import anyio

if TYPE_CHECKING:
    from collections.abc import AsyncIterator


class InOrder:
    def __init__(self) -> None:
        self._issued = 0
        self._next = 0  # the ticket whose message is handled now, or next
        self._done: set[int] = set()
        # By the message's identity: the same object may be sent twice, and its handlers
        # then take its tickets in turn, which is the same thing for an equal message.
        self._tickets: dict[int, collections.deque[int]] = {}
        self._moved = anyio.Event()

    def arrived(self, msg: object) -> None:
        """Called in arrival order (``Actor.arrived``): the message's place in the line."""
        self._tickets.setdefault(id(msg), collections.deque()).append(self._issued)
        self._issued += 1

    @asynccontextmanager
    async def turn(self, msg: object) -> AsyncIterator[None]:
        """Wait until the messages before ``msg`` have been handled; handle it inside."""
        tickets = self._tickets[id(msg)]
        ticket = tickets.popleft()
        if not tickets:
            del self._tickets[id(msg)]
        try:
            while self._next != ticket:
                await self._moved.wait()
            yield
        finally:
            # Also when its caller gave up while it waited: those after it must not wait on it.
            self._done.add(ticket)
            while self._next in self._done:
                self._done.remove(self._next)
                self._next += 1
            self._moved.set()
            self._moved = anyio.Event()
