"""Fidelity: the official anthropic SDK, pointed at the scripted server, sees a real API."""

from __future__ import annotations

import json
import time
from collections.abc import Callable, Iterator
from typing import Any

import anthropic
import pytest

from frontends.demo.scripted_api import ScriptedServer, Step, call, error, text, tool_calls
from frontends.demo.scripted_api.sse import count_input_tokens
from tests.demo.scripted_api.helpers import MODEL

KEY = "sk-scripted-test"
HI: list[anthropic.types.MessageParam] = [{"role": "user", "content": "hi"}]


MakeClient = Callable[..., anthropic.Anthropic]


@pytest.fixture
def make_client() -> Iterator[MakeClient]:
    """Clients are closed at the end of the test (filterwarnings=error catches a leaked socket)."""
    clients: list[anthropic.Anthropic] = []

    def make(server: ScriptedServer, *, max_retries: int = 0) -> anthropic.Anthropic:
        client = anthropic.Anthropic(base_url=server.url, api_key=KEY, max_retries=max_retries)
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.close()


def error_of(exc: anthropic.APIStatusError) -> Any:
    assert isinstance(exc.body, dict)
    return exc.body["error"]


def test_text_streams_word_by_word_with_deterministic_usage(make_client: MakeClient) -> None:
    with ScriptedServer([text("Hello there, world!")], api_key=KEY) as server:
        client = make_client(server)
        with client.messages.stream(model=MODEL, max_tokens=64, messages=HI) as stream:
            deltas = [
                event.delta.text
                for event in stream
                if event.type == "content_block_delta" and event.delta.type == "text_delta"
            ]
            final = stream.get_final_message()
        [request] = server.requests

    assert deltas == ["Hello", " there,", " world!"]
    [block] = final.content
    assert block.type == "text" and block.text == "Hello there, world!"
    assert final.stop_reason == "end_turn"
    assert final.model == MODEL
    assert final.usage.input_tokens == count_input_tokens(request.body)
    assert final.usage.output_tokens == 5  # 19 characters, about four per token
    assert request.method == "POST"
    assert request.path == "/v1/messages"
    assert request.headers["authorization"] == f"Bearer {KEY}"
    assert request.body["messages"] == HI


def test_parallel_tool_use_turn_accumulates_parsed_inputs(make_client: MakeClient) -> None:
    calls = [
        call("Read", {"file_path": "/project/src/main.py", "offset": 10, "limit": 50}),
        call("Bash", {"command": "pytest -q", "timeout": 120000, "description": "Run the tests"}),
        call("Grep", {"pattern": "def \\w+\\(", "path": "/project", "-i": True, "-n": True}),
    ]
    steps = [tool_calls(calls, text="Let me look."), text("All good.")]
    with ScriptedServer(steps) as server:
        client = make_client(server)
        with client.messages.stream(model=MODEL, max_tokens=64, messages=HI) as stream:
            final = stream.get_final_message()
        assert final.stop_reason == "tool_use"
        assert [block.type for block in final.content] == [
            "text",
            "tool_use",
            "tool_use",
            "tool_use",
        ]
        uses = [block for block in final.content if block.type == "tool_use"]
        assert [(use.name, use.input) for use in uses] == [(c.name, c.input) for c in calls]
        assert len({use.id for use in uses}) == 3

        # All results in one user message: the API's rule, so the next step plays.
        results: list[anthropic.types.ToolResultBlockParam] = [
            {"type": "tool_result", "tool_use_id": use.id, "content": "ok"} for use in uses
        ]
        follow_up: list[anthropic.types.MessageParam] = [
            *HI,
            {"role": "assistant", "content": final.content},
            {"role": "user", "content": results},
        ]
        with client.messages.stream(model=MODEL, max_tokens=64, messages=follow_up) as stream:
            assert stream.get_final_text() == "All good."
        assert server.remaining == []


def test_create_stream_true_sends_input_json_in_pieces(make_client: MakeClient) -> None:
    tool_input = {"file_path": "/project/a_rather_long_file_name.py", "content": "print('hi')\n"}
    with ScriptedServer([tool_calls([call("Write", tool_input, id="toolu_fixed")])]) as server:
        client = make_client(server)
        with client.messages.create(model=MODEL, max_tokens=64, messages=HI, stream=True) as events:
            seen = list(events)

    types = [event.type for event in seen]
    assert types[0] == "message_start" and types[-2:] == ["message_delta", "message_stop"]
    start = next(event for event in seen if event.type == "content_block_start")
    block = start.content_block
    assert block.type == "tool_use"
    assert (block.id, block.name, block.input) == ("toolu_fixed", "Write", {})
    pieces = [
        event.delta.partial_json
        for event in seen
        if event.type == "content_block_delta" and event.delta.type == "input_json_delta"
    ]
    assert pieces[0] == "" and len(pieces) > 3
    assert json.loads("".join(pieces)) == tool_input


def test_thinking_block_carries_its_signature(make_client: MakeClient) -> None:
    steps = [
        text("12,231", thinking="27 * 453: 27*400 + 27*53", signature="sig-abc"),
        text("again", thinking="Same again."),
    ]
    with ScriptedServer(steps) as server:
        client = make_client(server)
        with client.messages.stream(model=MODEL, max_tokens=4096, messages=HI) as stream:
            first = stream.get_final_message()
        thinking, answer = first.content
        assert thinking.type == "thinking"
        assert (thinking.thinking, thinking.signature) == ("27 * 453: 27*400 + 27*53", "sig-abc")
        assert answer.type == "text" and answer.text == "12,231"

        # The signed block goes back unchanged; the server accepts it and signs the next one.
        back: list[anthropic.types.MessageParam] = [
            *HI,
            {"role": "assistant", "content": first.content},
            {"role": "user", "content": "again"},
        ]
        with client.messages.stream(model=MODEL, max_tokens=4096, messages=back) as stream:
            second = stream.get_final_message()
    thinking = second.content[0]
    assert thinking.type == "thinking" and thinking.signature not in ("", "sig-abc")


def test_wrong_key_is_authentication_error_without_using_a_step(make_client: MakeClient) -> None:
    with ScriptedServer([text("unreached")], api_key="the-right-key") as server:
        client = make_client(server)
        with pytest.raises(anthropic.AuthenticationError) as info:
            client.messages.create(model=MODEL, max_tokens=64, messages=HI)
        assert len(server.remaining) == 1
    assert info.value.status_code == 401
    assert info.value.request_id and info.value.request_id.startswith("req_")
    assert info.value.body == {
        "type": "error",
        "error": {"type": "authentication_error", "message": "invalid x-api-key"},
        "request_id": info.value.request_id,
    }


def test_rate_limit_without_retries_raises_with_retry_after(make_client: MakeClient) -> None:
    with ScriptedServer([error(429, retry_after=0.01)]) as server:
        client = make_client(server)
        with pytest.raises(anthropic.RateLimitError) as info:
            client.messages.create(model=MODEL, max_tokens=64, messages=HI)
    assert info.value.response.headers["retry-after"] == "0.01"
    assert error_of(info.value)["type"] == "rate_limit_error"


@pytest.mark.parametrize(
    "rate_limit",
    [error(429, retry_after=0.01), error(429, retry_after=30, retry_after_ms=10)],
    ids=["retry-after", "retry-after-ms wins"],
)
def test_sdk_retries_honouring_retry_after(
    make_client: MakeClient, rate_limit: Step, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The SDK waits with time.sleep; the waits it asks for are recorded instead of slept.
    waits: list[float] = []
    monkeypatch.setattr(time, "sleep", waits.append)
    with ScriptedServer([rate_limit, text("second time lucky")]) as server:
        client = make_client(server, max_retries=1)
        with client.messages.stream(model=MODEL, max_tokens=64, messages=HI) as stream:
            assert stream.get_final_text() == "second time lucky"
        retry_counts = [request.headers["x-stainless-retry-count"] for request in server.requests]
    assert retry_counts == ["0", "1"]
    # The header's 0.01 s, where the SDK's own backoff would wait at least 0.375 s.
    assert waits == [0.01]


def test_overloaded_529(make_client: MakeClient) -> None:
    with ScriptedServer([error(529)]) as server:
        client = make_client(server)
        with pytest.raises(anthropic.OverloadedError) as info:
            client.messages.create(model=MODEL, max_tokens=64, messages=HI)
    assert info.value.status_code == 529
    assert error_of(info.value) == {"type": "overloaded_error", "message": "Overloaded"}


def test_error_event_after_http_200(make_client: MakeClient) -> None:
    step = text(
        "one two three four", stream_error=("overloaded_error", "Overloaded"), error_after=5
    )
    with ScriptedServer([step]) as server:
        client = make_client(server)
        received: list[str] = []
        with (
            pytest.raises(anthropic.APIStatusError) as info,
            client.messages.stream(model=MODEL, max_tokens=64, messages=HI) as stream,
        ):
            received.extend(stream.text_stream)
    # message_start, content_block_start, ping, then two deltas before the error.
    assert received == ["one", " two"]
    assert info.value.status_code == 200
    assert info.value.body == {
        "type": "error",
        "error": {"type": "overloaded_error", "message": "Overloaded"},
    }


def test_stream_cut_midway_raises(make_client: MakeClient) -> None:
    with ScriptedServer([text("one two three four", cut_after=4)]) as server:
        client = make_client(server)
        received: list[str] = []
        with (
            pytest.raises(Exception, match="incomplete chunked read") as info,
            client.messages.stream(model=MODEL, max_tokens=64, messages=HI) as stream,
        ):
            received.extend(stream.text_stream)
    assert received == ["one"]
    assert type(info.value).__name__ == "RemoteProtocolError"


def test_missing_tool_result_is_the_apis_400(make_client: MakeClient) -> None:
    with ScriptedServer([text("unreached")]) as server:
        client = make_client(server)
        messages: list[anthropic.types.MessageParam] = [
            *HI,
            {
                "role": "assistant",
                "content": [
                    {
                        "type": "tool_use",
                        "id": "toolu_a",
                        "name": "Read",
                        "input": {"file_path": "/a"},
                    },
                    {
                        "type": "tool_use",
                        "id": "toolu_b",
                        "name": "Read",
                        "input": {"file_path": "/b"},
                    },
                ],
            },
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "toolu_a", "content": "a"}],
            },
        ]
        with pytest.raises(anthropic.BadRequestError) as info:
            client.messages.create(model=MODEL, max_tokens=64, messages=messages)
        assert len(server.remaining) == 1
    assert error_of(info.value) == {
        "type": "invalid_request_error",
        "message": "messages.1: tool_use ids were found without tool_result blocks immediately "
        "after: toolu_b. Each tool_use block must have a corresponding tool_result block in the "
        "next message.",
    }


def test_exhausted_script_fails_loudly_and_is_not_retried(make_client: MakeClient) -> None:
    with ScriptedServer([text("only one")]) as server:
        client = make_client(server, max_retries=2)
        client.messages.create(model=MODEL, max_tokens=64, messages=HI)
        with pytest.raises(anthropic.InternalServerError, match="no step left for request 2"):
            client.messages.create(model=MODEL, max_tokens=64, messages=HI)
        assert len(server.requests) == 2  # x-should-retry: false stops the SDK's retries


def test_non_streaming_create_returns_the_whole_message(make_client: MakeClient) -> None:
    steps = [
        tool_calls(
            [call("Glob", {"pattern": "**/*.py"})], text="Looking.", usage={"output_tokens": 42}
        )
    ]
    with ScriptedServer(steps) as server:
        client = make_client(server)
        message = client.messages.create(model=MODEL, max_tokens=64, messages=HI)
    words, use = message.content
    assert words.type == "text" and words.text == "Looking."
    assert use.type == "tool_use" and use.input == {"pattern": "**/*.py"}
    assert message.stop_reason == "tool_use"
    assert message.usage.output_tokens == 42


async def test_async_sdk_under_trio() -> None:
    with ScriptedServer([text("hello from trio")]) as server:
        async with (
            anthropic.AsyncAnthropic(base_url=server.url, api_key=KEY, max_retries=0) as client,
            client.messages.stream(model=MODEL, max_tokens=64, messages=HI) as stream,
        ):
            assert await stream.get_final_text() == "hello from trio"
