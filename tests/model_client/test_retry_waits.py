"""The waits between retries on trio's virtual clock: exact, and cancellable.

A real socket cannot be used with an autojumping clock (the clock would jump past the read
timeout while the server thread works), so the transport here is httpx's in-process one.
"""

from __future__ import annotations

from pathlib import Path

import anyio
import httpx
import pytest
import trio

from actors.errors import ServerError
from actors.model_client.client import MessagesClient
from actors.model_client.endpoint import Endpoint
from actors.protocol import Message, MessageFinished, ModelEvent, ModelRequest, Retrying

VECTOR = Path("/work/shared/vectors/anthropic/sse_text.txt").read_bytes()
REQUEST = ModelRequest(
    model="claude-sonnet-4-6",
    max_tokens=64,
    messages=[Message("user", [{"type": "text", "text": "hi"}])],
)
OVERLOADED = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}


def scripted(responses: list[httpx.Response]) -> tuple[httpx.AsyncClient, list[float]]:
    """A client answered by ``responses`` in order; the list records when each request came."""
    times: list[float] = []

    def answer(request: httpx.Request) -> httpx.Response:
        times.append(trio.current_time())
        return responses[len(times) - 1]

    return httpx.AsyncClient(transport=httpx.MockTransport(answer)), times


def stream_ok() -> httpx.Response:
    return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=VECTOR)


async def test_waits_are_exact_on_the_virtual_clock(autojump_clock: trio.testing.MockClock) -> None:
    http, times = scripted(
        [
            httpx.Response(429, headers={"retry-after": "2"}, json=OVERLOADED),
            httpx.Response(529, json=OVERLOADED),  # no retry-after: 0.5 * 2**1, no jitter
            stream_ok(),
        ]
    )
    events: list[ModelEvent] = []

    async def emit(event: ModelEvent) -> None:
        events.append(event)

    async with http:
        client = MessagesClient(http, Endpoint("https://api.test", "k"), jitter=lambda: 0.0)
        await client.stream(REQUEST, emit)
    assert times == [0.0, 2.0, 3.0]
    assert [(e.attempt, e.delay) for e in events if isinstance(e, Retrying)] == [(1, 2.0), (2, 1.0)]
    assert isinstance(events[-1], MessageFinished)


async def test_jitter_shortens_the_wait_by_up_to_a_quarter(
    autojump_clock: trio.testing.MockClock,
) -> None:
    http, times = scripted([httpx.Response(500, json=OVERLOADED)] * 3)

    async def emit(event: ModelEvent) -> None:
        pass

    async with http:
        client = MessagesClient(http, Endpoint("https://api.test", "k"), jitter=lambda: 0.8)
        with pytest.raises(ServerError):
            await client.stream(REQUEST, emit)
    assert times == [0.0, 0.4, 0.4 + 0.8]


async def test_a_wait_can_be_cancelled(autojump_clock: trio.testing.MockClock) -> None:
    http, times = scripted([httpx.Response(429, headers={"retry-after": "30"}, json=OVERLOADED)])

    async def emit(event: ModelEvent) -> None:
        pass

    async with http:
        client = MessagesClient(http, Endpoint("https://api.test", "k"))
        with anyio.move_on_after(5):
            await client.stream(REQUEST, emit)
    assert trio.current_time() == 5.0
    assert times == [0.0]
