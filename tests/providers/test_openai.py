"""The OpenAI-compatible provider: the shared vector parsed exactly, the conversation converted,
and a real request to a loopback server through the router."""

from __future__ import annotations

import json
from itertools import pairwise
from pathlib import Path
from typing import Any

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from actors.errors import AuthenticationError, RequestRejected, StreamFailed
from actors.model_client.providers.openai import chat_body
from actors.model_client.providers.openai_stream import ChatAssembler
from actors.model_client.providers.router import ProviderRouter
from actors.model_client.sse import SSEDecoder
from actors.models import resolve_model
from actors.protocol import (
    BlockFinished,
    GlobalConfig,
    Message,
    MessageFinished,
    MessageStarted,
    ModelEvent,
    ModelRequest,
    TextDelta,
    ToolInputDelta,
    ToolUseStarted,
    Usage,
)
from tests.providers.loopback import Loopback, Request, Response

VECTOR = Path("/work/shared/vectors/openai/stream_tool_calls.txt").read_bytes()


def parse(chunks: list[bytes]) -> list[ModelEvent]:
    decoder, assembler = SSEDecoder(), ChatAssembler()
    events: list[ModelEvent] = []
    for chunk in chunks:
        for sse in decoder.feed(chunk):
            events += assembler.feed(sse)
    for sse in decoder.finish():
        events += assembler.feed(sse)
    assembler.end()
    return events


WEATHER = ['{"ci', 'ty": ', '"Edinb', "urgh", '", "c', "ountry", '": "', 'GB", ', '"units', '": "']
WEATHER.append('c"}')
STOCK = ['{"ti', 'cker"', ': "AAP', 'L", ', '"exch', 'ange":', ' "NA', 'SDAQ"', "}"]
WEATHER_BLOCK = {
    "type": "tool_use",
    "id": "call_JMW1whyEaYG438VE1OIflxA2",
    "name": "GetWeatherArgs",
    "input": {"city": "Edinburgh", "country": "GB", "units": "c"},
}
STOCK_BLOCK = {
    "type": "tool_use",
    "id": "call_DNYTawLBoN8fj3KN6qU9N1Ou",
    "name": "get_stock_price",
    "input": {"ticker": "AAPL", "exchange": "NASDAQ"},
}
EXPECTED: list[ModelEvent] = [
    MessageStarted("chatcmpl-ABfwAwrNePHUgBBezonVC6MX3zd63", "gpt-4o-2024-08-06"),
    ToolUseStarted(0, "call_JMW1whyEaYG438VE1OIflxA2", "GetWeatherArgs"),
    *[ToolInputDelta(0, piece) for piece in WEATHER],
    ToolUseStarted(1, "call_DNYTawLBoN8fj3KN6qU9N1Ou", "get_stock_price"),
    *[ToolInputDelta(1, piece) for piece in STOCK],
    BlockFinished(0, WEATHER_BLOCK),
    BlockFinished(1, STOCK_BLOCK),
    MessageFinished(Message("assistant", [WEATHER_BLOCK, STOCK_BLOCK]), "tool_use", Usage(149, 60)),
]


def test_the_vector_gives_every_event_exactly() -> None:
    assert parse([VECTOR]) == EXPECTED


@settings(max_examples=50, deadline=None)
@given(st.lists(st.integers(min_value=1, max_value=len(VECTOR) - 1), max_size=30))
def test_the_vector_parses_the_same_however_the_bytes_are_split(cuts: list[int]) -> None:
    bounds = [0, *sorted(set(cuts)), len(VECTOR)]
    chunks = [VECTOR[a:b] for a, b in pairwise(bounds)]
    events = parse(chunks)
    assert events[-1] == EXPECTED[-1]
    assert [e for e in events if isinstance(e, BlockFinished)] == EXPECTED[-3:-1]


def text_stream(*pieces: str, finish: str = "stop") -> bytes:
    def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> bytes:
        body = {
            "id": "c1",
            "model": "qwen",
            "choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}],
        }
        return b"data: " + json.dumps(body).encode() + b"\n\n"

    out = chunk({"role": "assistant", "content": ""})
    out += b"".join(chunk({"content": piece}) for piece in pieces)
    out += chunk({}, finish)
    usage = {
        "id": "c1",
        "model": "qwen",
        "choices": [],
        "usage": {"prompt_tokens": 7, "completion_tokens": 2},
    }
    return out + b"data: " + json.dumps(usage).encode() + b"\n\ndata: [DONE]\n\n"


def test_text_and_stop_reasons_are_translated() -> None:
    events = parse([text_stream("Hel", "lo", finish="length")])
    block = {"type": "text", "text": "Hello"}
    assert events == [
        MessageStarted("c1", "qwen"),
        TextDelta(0, "Hel"),
        TextDelta(0, "lo"),
        BlockFinished(0, block),
        MessageFinished(Message("assistant", [block]), "max_tokens", Usage(7, 2)),
    ]


def test_a_stream_cut_before_its_end_is_a_stream_failure() -> None:
    cut = text_stream("Hello").split(
        b'data: {"id": "c1", "model": "qwen", "choices": [{"index": 0, "delta": {}'
    )[0]
    with pytest.raises(StreamFailed, match="no \\[DONE\\]"):
        parse([cut])


def test_arguments_that_are_not_an_object_are_a_stream_failure() -> None:
    bad = VECTOR.replace(b'"arguments":"c\\"}"', b'"arguments":"c\\""')
    with pytest.raises(StreamFailed, match="GetWeatherArgs"):
        parse([bad])


def test_arguments_nested_past_any_stack_are_a_stream_failure_not_a_crash() -> None:
    deep = json.dumps('{"a":' * 100_000 + "1" + "}" * 100_000)
    bad = VECTOR.replace(b'"arguments":""', b'"arguments":' + deep.encode(), 1)
    assert bad != VECTOR
    with pytest.raises(StreamFailed, match="GetWeatherArgs' nest deeper than 64 levels"):
        parse([bad])


def test_a_chunk_nested_past_any_stack_is_a_stream_failure_not_a_crash() -> None:
    deep = b'data: {"id":"c1","model":"m","x":' + b"[" * 100_000 + b"]" * 100_000 + b"}\n\n"
    with pytest.raises(StreamFailed, match="a chunk nested past 64 levels"):
        parse([deep])


CONVERSATION = [
    Message("user", [{"type": "text", "text": "What is in a.py?"}]),
    Message(
        "assistant",
        [
            {"type": "thinking", "thinking": "hm", "signature": "s"},
            {"type": "text", "text": "Reading it."},
            {"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "/a.py"}},
        ],
    ),
    Message(
        "user",
        [
            {"type": "tool_result", "tool_use_id": "t1", "content": "x = 1"},
            {"type": "text", "text": "and be brief"},
        ],
    ),
]
TOOL = {"name": "Read", "description": "Read a file", "input_schema": {"type": "object"}}


def test_the_conversation_becomes_chat_messages() -> None:
    request = ModelRequest(
        model="openai:qwen2.5-coder",
        max_tokens=100,
        messages=CONVERSATION,
        system="Be helpful.",
        tools=[TOOL],
    )
    assert chat_body(request) == {
        "model": "qwen2.5-coder",
        "max_tokens": 100,
        "stream": True,
        "stream_options": {"include_usage": True},
        "messages": [
            {"role": "system", "content": "Be helpful."},
            {"role": "user", "content": "What is in a.py?"},
            {
                "role": "assistant",
                "content": "Reading it.",
                "tool_calls": [
                    {
                        "id": "t1",
                        "type": "function",
                        "function": {"name": "Read", "arguments": '{"file_path":"/a.py"}'},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "t1", "content": "x = 1"},
            {"role": "user", "content": "and be brief"},
        ],
        "tools": [
            {
                "type": "function",
                "function": {
                    "name": "Read",
                    "description": "Read a file",
                    "parameters": {"type": "object"},
                },
            }
        ],
    }


def test_the_openai_prefix_is_a_model_name() -> None:
    assert resolve_model("openai:llama3.1").id == "openai:llama3.1"
    assert resolve_model("openai:llama3.1").prices is None


async def stream_through_router(env: dict[str, str], model: str) -> list[ModelEvent]:
    events: list[ModelEvent] = []

    async def emit(event: ModelEvent) -> None:
        events.append(event)

    async with httpx.AsyncClient(trust_env=False) as http:
        router = ProviderRouter(env, GlobalConfig(), max_retries=0)
        router.connect(http)
        request = ModelRequest(model=model, max_tokens=50, messages=CONVERSATION[:1])
        await router.stream(request, emit)
    return events


async def test_a_request_to_a_local_server_goes_through_the_router() -> None:
    def answer(request: Request) -> Response:
        return Response(200, {"content-type": "text/event-stream"}, [VECTOR])

    with Loopback(answer) as server:
        env = {"OPENAI_BASE_URL": f"{server.url}/v1", "OPENAI_API_KEY": "local-key"}
        events = await stream_through_router(env, "openai:gpt-4o")
    [sent] = server.requests
    assert sent.path == "/v1/chat/completions"
    assert sent.headers["authorization"] == "Bearer local-key"
    assert json.loads(sent.body)["model"] == "gpt-4o"
    assert events[-1] == EXPECTED[-1]


async def test_an_unknown_local_model_names_the_remedy() -> None:
    def answer(request: Request) -> Response:
        return Response(
            404, {"content-type": "application/json"}, [b'{"error":"model \'nope\' not found"}']
        )

    with Loopback(answer) as server, pytest.raises(RequestRejected) as info:
        await stream_through_router({"OPENAI_BASE_URL": server.url}, "openai:nope")
    assert "model 'nope' not found" in info.value.message
    assert info.value.remedy is not None
    assert "ollama list" in info.value.remedy


@pytest.mark.parametrize(
    ("key", "remedy"),
    [
        (None, "Set OPENAI_API_KEY to the server's key: export OPENAI_API_KEY=<your key>"),
        ("wrong", "Run 'echo $OPENAI_API_KEY' to check the key, then set it again"),
    ],
)
async def test_a_refused_key_is_sent_to_openai_api_key(key: str | None, remedy: str) -> None:
    def answer(request: Request) -> Response:
        return Response(401, {"content-type": "application/json"}, [b'{"error":"bad key"}'])

    env = {"OPENAI_API_KEY": key} if key else {}
    with Loopback(answer) as server, pytest.raises(AuthenticationError) as info:
        await stream_through_router({"OPENAI_BASE_URL": server.url, **env}, "openai:qwen")
    assert info.value.remedy == remedy


@pytest.mark.parametrize(
    ("env", "plain"),
    [
        ({"ASSISTANT_BASE_URL": "http://127.0.0.1:1"}, True),  # a local server and Ollama
        ({}, False),  # the Anthropic API is https
        ({"ASSISTANT_BASE_URL": "http://127.0.0.1:1", "OPENAI_BASE_URL": "https://x/v1"}, False),
        ({"CLOUD_ACCESS_KEY_ID": "a", "CLOUD_SECRET_ACCESS_KEY": "b", "CLOUD_REGION": "r"}, False),
    ],
)
def test_tls_is_skipped_only_when_every_address_is_plain_http(
    env: dict[str, str], plain: bool
) -> None:
    assert ProviderRouter(env, GlobalConfig()).plain_http() is plain
