"""The client against a real loopback server speaking the Messages API with SSE."""

from __future__ import annotations

import json
import socket
import time
from typing import TYPE_CHECKING, TypeVar

import httpx
import msgspec
import pytest

from actors.errors import (
    AuthenticationError,
    ConnectionFailed,
    RateLimited,
    RequestRejected,
    ServerError,
    StreamFailed,
)
from actors.model_client.client import MessagesClient
from actors.model_client.endpoint import Endpoint
from actors.protocol import (
    BlockFinished,
    Message,
    MessageStarted,
    ModelEvent,
    ModelRequest,
    Retrying,
    TextDelta,
    ToolInputDelta,
    ToolUseStarted,
)
from frontends.demo.scripted_api import ScriptedServer, call, error, text, tool_calls

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

E = TypeVar("E", bound=ModelEvent)

KEY = "sk-ant-test-0123456789-SECRET"
REQUEST = ModelRequest(
    model="claude-sonnet-4-6",
    max_tokens=256,
    messages=[Message("user", [{"type": "text", "text": "Say hello"}])],
)


class Recorder:
    """Collects what the client emits and the waits it asks for (without waiting)."""

    def __init__(self) -> None:
        self.events: list[ModelEvent] = []
        self.sleeps: list[float] = []

    async def emit(self, event: ModelEvent) -> None:
        self.events.append(event)

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)

    def of(self, kind: type[E]) -> list[E]:
        return [event for event in self.events if isinstance(event, kind)]


@pytest.fixture
async def http() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient() as client:
        yield client


def client_for(
    http: httpx.AsyncClient,
    url: str,
    recorder: Recorder,
    *,
    key: str | None = KEY,
    read_timeout: float = 60.0,
) -> MessagesClient:
    """A client whose waits are recorded, not slept, and whose jitter is always zero."""
    endpoint = Endpoint(url, key, key_source="ASSISTANT_API_KEY")
    return MessagesClient(
        http, endpoint, read_timeout=read_timeout, jitter=lambda: 0.0, sleep=recorder.sleep
    )


@pytest.fixture
def closed_port() -> int:
    """A loopback port with nothing listening on it."""
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
    return port


async def test_a_text_stream(http: httpx.AsyncClient) -> None:
    recorder = Recorder()
    with ScriptedServer([text("Hello there, world!")], api_key=KEY) as server:
        done = await client_for(http, server.url, recorder).stream(REQUEST, recorder.emit)
    assert isinstance(recorder.events[0], MessageStarted)
    deltas = recorder.of(TextDelta)
    # Deltas that arrive in one network read are merged (coalesce.py); no text is lost.
    assert "".join(d.text for d in deltas) == "Hello there, world!"
    block = {"type": "text", "text": "Hello there, world!"}
    assert recorder.events[-2:] == [BlockFinished(0, block), done]
    assert done.message == Message("assistant", [block])
    assert done.stop_reason == "end_turn"
    assert done.usage.output_tokens > 0
    sent = server.requests[0]
    assert (sent.method, sent.path) == ("POST", "/v1/messages")
    assert sent.headers["x-api-key"] == KEY
    assert sent.headers["anthropic-version"] == "2023-06-01"
    assert sent.headers["content-type"] == "application/json"
    assert "anthropic-beta" not in sent.headers
    assert sent.body == {**msgspec.to_builtins(REQUEST), "stream": True}


async def test_deltas_that_arrive_apart_reach_the_caller_apart(http: httpx.AsyncClient) -> None:
    recorder = Recorder()
    with ScriptedServer([text("Hello there, world!", delay=0.02)], api_key=KEY) as server:
        await client_for(http, server.url, recorder).stream(REQUEST, recorder.emit)
    assert [d.text for d in recorder.of(TextDelta)] == ["Hello", " there,", " world!"]


async def test_a_tool_use_stream(http: httpx.AsyncClient) -> None:
    recorder = Recorder()
    calls = [call("Bash", {"command": "ls -la"}, id="toolu_a"), call("Read", {"file_path": "/x"})]
    with ScriptedServer([tool_calls(calls, text="Let me look.")]) as server:
        done = await client_for(http, server.url, recorder).stream(REQUEST, recorder.emit)
    assert done.stop_reason == "tool_use"
    text_block, bash, read = done.message.content
    assert text_block == {"type": "text", "text": "Let me look."}
    assert bash == {
        "type": "tool_use",
        "id": "toolu_a",
        "name": "Bash",
        "input": {"command": "ls -la"},
    }
    assert (read["name"], read["input"]) == ("Read", {"file_path": "/x"})
    started = recorder.of(ToolUseStarted)
    assert started == [ToolUseStarted(1, "toolu_a", "Bash"), ToolUseStarted(2, read["id"], "Read")]
    for index, block in ((1, bash), (2, read)):
        pieces = [e.partial_json for e in recorder.of(ToolInputDelta) if e.index == index]
        assert json.loads("".join(pieces)) == block["input"]


async def test_fast_mode_sends_the_beta_header(http: httpx.AsyncClient) -> None:
    recorder = Recorder()
    fast = ModelRequest(
        model="claude-opus-4-6", max_tokens=64, messages=REQUEST.messages, speed="fast"
    )
    with ScriptedServer([text("Quick.")]) as server:
        await client_for(http, server.url, recorder).stream(fast, recorder.emit)
    assert server.requests[0].headers["anthropic-beta"] == "fast-mode-2026-02-01"
    assert server.requests[0].body["speed"] == "fast"


async def test_a_wrong_key_is_an_authentication_error_without_the_key(
    http: httpx.AsyncClient,
) -> None:
    recorder = Recorder()
    with ScriptedServer([text("never")], api_key="sk-ant-the-right-one") as server:
        with pytest.raises(AuthenticationError) as info:
            await client_for(http, server.url, recorder).stream(REQUEST, recorder.emit)
        assert len(server.requests) == 1  # a 401 is never retried
    err = info.value
    for shown in (str(err), repr(err), err.describe(), repr(recorder.events)):
        assert KEY not in shown
    assert err.status == 401
    assert "ASSISTANT_API_KEY" in err.message
    assert err.request_id and err.request_id in err.message
    assert err.remedy is not None and "echo $ASSISTANT_API_KEY" in err.remedy


async def test_no_key_fails_before_any_request(http: httpx.AsyncClient) -> None:
    recorder = Recorder()
    with ScriptedServer([text("never")]) as server:
        with pytest.raises(AuthenticationError, match="No API key is set") as info:
            await client_for(http, server.url, recorder, key=None).stream(REQUEST, recorder.emit)
        assert server.requests == []
    assert info.value.remedy is not None and "ASSISTANT_API_KEY" in info.value.remedy


async def test_429_waits_the_servers_retry_after_then_succeeds(http: httpx.AsyncClient) -> None:
    # Real waiting here (no injected sleep): the wait must really be at least retry-after.
    events: list[ModelEvent] = []

    async def emit(event: ModelEvent) -> None:
        events.append(event)

    with ScriptedServer([error(429, retry_after=0.3), text("Fine now.")]) as server:
        client = MessagesClient(http, Endpoint(server.url, KEY))
        began = time.monotonic()
        done = await client.stream(REQUEST, emit)
        waited = time.monotonic() - began
    assert len(server.requests) == 2
    retrying = events[0]
    assert isinstance(retrying, Retrying)
    assert (retrying.attempt, retrying.delay) == (1, 0.3)
    assert "429" in retrying.reason and "rate_limit_error" in retrying.reason
    assert waited >= 0.3
    assert events[-1] == done and done.message.content == [{"type": "text", "text": "Fine now."}]


async def test_retry_after_ms_wins_over_retry_after(http: httpx.AsyncClient) -> None:
    recorder = Recorder()
    step = error(503, retry_after=5, retry_after_ms=1500)
    with ScriptedServer([step, text("ok")]) as server:
        await client_for(http, server.url, recorder).stream(REQUEST, recorder.emit)
    assert recorder.sleeps == [1.5]


async def test_529_exhausts_the_retries_with_backoff_and_is_rate_limited(
    http: httpx.AsyncClient,
) -> None:
    recorder = Recorder()
    with ScriptedServer([error(529)] * 3) as server:
        with pytest.raises(RateLimited) as info:
            await client_for(http, server.url, recorder).stream(REQUEST, recorder.emit)
        assert server.remaining == []
    assert recorder.sleeps == [0.5, 1.0]  # min(0.5 * 2**n, 8) with no jitter drawn
    assert [(e.attempt, e.delay) for e in recorder.events if isinstance(e, Retrying)] == [
        (1, 0.5),
        (2, 1.0),
    ]
    assert info.value.status == 529
    assert "overloaded_error" in info.value.message
    assert info.value.request_id and info.value.request_id in info.value.message


async def test_x_should_retry_false_stops_retrying(http: httpx.AsyncClient) -> None:
    recorder = Recorder()
    with ScriptedServer([error(500, should_retry=False), text("unused")]) as server:
        with pytest.raises(ServerError, match="api_error"):
            await client_for(http, server.url, recorder).stream(REQUEST, recorder.emit)
        assert len(server.requests) == 1
    assert recorder.events == []


async def test_another_4xx_is_rejected_with_the_apis_message(http: httpx.AsyncClient) -> None:
    recorder = Recorder()
    step = error(400, message="messages.0.content: Field required")
    with ScriptedServer([step]) as server:
        with pytest.raises(RequestRejected, match=r"messages\.0\.content: Field required"):
            await client_for(http, server.url, recorder).stream(REQUEST, recorder.emit)
        assert len(server.requests) == 1


async def test_an_error_event_after_200_is_a_stream_failure(http: httpx.AsyncClient) -> None:
    recorder = Recorder()
    step = text("one two three", stream_error=("overloaded_error", "Overloaded"), error_after=4)
    with ScriptedServer([step, text("unused")]) as server:
        with pytest.raises(StreamFailed, match="overloaded_error: Overloaded") as info:
            await client_for(http, server.url, recorder).stream(REQUEST, recorder.emit)
        assert len(server.requests) == 1
    assert info.value.request_id
    # The words before the error came in the same read; they reached the caller all the same.
    assert "".join(d.text for d in recorder.of(TextDelta)) == "one"


async def test_a_stream_cut_after_content_fails_and_is_not_retried(
    http: httpx.AsyncClient,
) -> None:
    recorder = Recorder()
    with ScriptedServer([text("one two three four", cut_after=4), text("unused")]) as server:
        with pytest.raises(StreamFailed):
            await client_for(http, server.url, recorder).stream(REQUEST, recorder.emit)
        assert len(server.requests) == 1
    assert recorder.of(TextDelta)  # the caller had already seen part of the answer
    assert recorder.of(Retrying) == []


async def test_a_stream_cut_before_any_content_is_retried(http: httpx.AsyncClient) -> None:
    recorder = Recorder()
    with ScriptedServer([text("lost", cut_after=1), text("kept")]) as server:
        done = await client_for(http, server.url, recorder).stream(REQUEST, recorder.emit)
        assert len(server.requests) == 2
    assert [type(e) for e in recorder.events[:3]] == [MessageStarted, Retrying, MessageStarted]
    assert done.message.content == [{"type": "text", "text": "kept"}]


async def test_a_stall_before_any_content_is_a_retried_timeout(http: httpx.AsyncClient) -> None:
    recorder = Recorder()
    with ScriptedServer([text("slow answer", delay=1.0), text("quick")]) as server:
        client = client_for(http, server.url, recorder, read_timeout=0.2)
        done = await client.stream(REQUEST, recorder.emit)
    retrying = recorder.of(Retrying)
    assert len(retrying) == 1
    assert "no answer for 0.2 s" in retrying[0].reason
    assert done.message.content == [{"type": "text", "text": "quick"}]


async def test_a_refused_connection_names_the_address(
    http: httpx.AsyncClient, closed_port: int
) -> None:
    recorder = Recorder()
    url = f"http://127.0.0.1:{closed_port}"
    with pytest.raises(ConnectionFailed) as info:
        await client_for(http, url, recorder).stream(REQUEST, recorder.emit)
    assert f"{url}/v1/messages" in info.value.message
    assert info.value.remedy is not None and "HTTPS_PROXY" in info.value.remedy
    assert len(recorder.of(Retrying)) == 2  # connection errors are retried like the SDKs do


async def test_a_base_url_without_a_scheme_is_named(http: httpx.AsyncClient) -> None:
    recorder = Recorder()
    with pytest.raises(ConnectionFailed, match=r"'api\.example\.com', which is not an http"):
        await client_for(http, "api.example.com", recorder).stream(REQUEST, recorder.emit)


class CountingTransport(httpx.AsyncBaseTransport):
    """A real transport that counts the TCP connections it opens (httpcore's trace hook)."""

    def __init__(self) -> None:
        self.inner = httpx.AsyncHTTPTransport()
        self.connections = 0

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        request.extensions["trace"] = self._trace
        return await self.inner.handle_async_request(request)

    async def _trace(self, name: str, info: dict[str, object]) -> None:
        if name == "connection.connect_tcp.complete":
            self.connections += 1

    async def aclose(self) -> None:
        await self.inner.aclose()


async def test_the_connection_is_reused_after_a_complete_answer() -> None:
    recorder = Recorder()
    transport = CountingTransport()
    async with httpx.AsyncClient(transport=transport) as http:
        with ScriptedServer([text("one"), text("two"), text("three")]) as server:
            client = client_for(http, server.url, recorder)
            for _ in range(3):
                await client.stream(REQUEST, recorder.emit)
    assert transport.connections == 1
