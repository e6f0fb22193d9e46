"""The server over real loopback HTTP with a plain client: routes, checks, scripts, lifecycle."""

from __future__ import annotations

import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import TYPE_CHECKING, Any

import httpx
import msgspec
import pytest

from frontends.demo.scripted_api import (
    Gate,
    RecordedRequest,
    ScriptedServer,
    ScriptError,
    Step,
    call,
    error,
    text,
    tool_calls,
)
from frontends.demo.scripted_api.sse import count_input_tokens
from tests.demo.scripted_api.helpers import HEADERS, body, parse_sse, streamed_text

if TYPE_CHECKING:
    from collections.abc import Iterator

VECTORS = Path("/work/shared/vectors/anthropic")


@pytest.fixture(scope="module")
def http() -> Iterator[httpx.Client]:
    """One client for the module: making an httpx.Client builds an SSL context (~50 ms)."""
    with httpx.Client() as client:
        yield client


def post(
    http: httpx.Client, server: ScriptedServer, payload: Any, **headers: str
) -> httpx.Response:
    url = f"{server.url}/v1/messages"
    return http.post(url, json=payload, headers={**HEADERS, **headers})


def collapse(names: list[str]) -> list[str]:
    """Event names with runs of deltas folded into one, to compare shapes with the vectors."""
    out: list[str] = []
    for name in names:
        if not (out and name == out[-1] == "content_block_delta"):
            out.append(name)
    return out


def test_sse_is_shaped_like_the_recorded_api_stream(http: httpx.Client) -> None:
    recorded = parse_sse(VECTORS.joinpath("sse_tool_use.txt").read_bytes())
    step = tool_calls(
        [call("get_weather", {"location": "San Francisco, CA"})], text="Okay, let's check:"
    )
    with ScriptedServer([step]) as server:
        response = post(http, server, body())
    events = parse_sse(response.content)

    assert response.content.endswith(b'data: {"type":"message_stop"}\n\n')
    assert response.headers["content-type"] == "text/event-stream; charset=utf-8"
    assert response.headers["transfer-encoding"] == "chunked"
    assert collapse([name for name, _ in events]) == collapse([name for name, _ in recorded])
    assert all(name == data["type"] for name, data in events)
    start = events[0][1]["message"]
    assert set(start) == set(recorded[0][1]["message"])
    assert start["usage"]["output_tokens"] == 1
    assert events[-2][1]["delta"] == {"stop_reason": "tool_use", "stop_sequence": None}
    assert set(events[-2][1]["usage"]) == {
        "input_tokens",
        "output_tokens",
        "cache_creation_input_tokens",
        "cache_read_input_tokens",
    }


@pytest.mark.parametrize(
    ("vector", "step"),
    [
        ("sse_text.txt", text("Hello!")),
        ("sse_thinking.txt", text("27 * 453 = 12,231", thinking="Let me solve this step by step")),
    ],
)
def test_block_order_matches_the_other_vectors(http: httpx.Client, vector: str, step: Step) -> None:
    recorded = parse_sse(VECTORS.joinpath(vector).read_bytes())
    with ScriptedServer([step]) as server:
        events = parse_sse(post(http, server, body()).content)

    def shape(stream: list[tuple[str, dict[str, Any]]]) -> list[str]:
        # Pings may come anywhere, so the shape leaves them out.
        return collapse([name for name, _ in stream if name != "ping"])

    assert shape(events) == shape(recorded)
    starts = [data["content_block"] for name, data in events if name == "content_block_start"]
    expected = [data["content_block"] for name, data in recorded if name == "content_block_start"]
    assert starts == expected
    deltas = [data["delta"]["type"] for name, data in events if name == "content_block_delta"]
    assert sorted(set(deltas)) == sorted(
        {data["delta"]["type"] for name, data in recorded if name == "content_block_delta"}
    )


def test_raw_blocks_and_stop_sequence(http: httpx.Client) -> None:
    search = {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}}
    step = Step(text="Searching", blocks=(search,), stop_sequence="END")
    with ScriptedServer([step]) as server:
        events = parse_sse(post(http, server, body()).content)
    starts = [data for name, data in events if name == "content_block_start"]
    assert [(s["index"], s["content_block"]) for s in starts] == [
        (0, {"type": "text", "text": ""}),
        (1, search),
    ]
    assert events[-2][1]["delta"] == {"stop_reason": "stop_sequence", "stop_sequence": "END"}


def test_usage_is_computed_from_content_and_can_be_overridden(http: httpx.Client) -> None:
    short, long = text("a few words"), text("a good many more words than the other one has")
    custom = text("x", usage={"cache_read_input_tokens": 900, "output_tokens": 7})
    with ScriptedServer([short, short, long, custom]) as server:
        usages = [parse_sse(post(http, server, body()).content)[-2][1]["usage"] for _ in range(4)]
    assert usages[0] == usages[1]
    assert usages[2]["output_tokens"] > usages[0]["output_tokens"]
    assert usages[0]["input_tokens"] == count_input_tokens(body())
    assert usages[3] == {
        "input_tokens": count_input_tokens(body()),
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 900,
        "output_tokens": 7,
    }


@pytest.mark.parametrize(
    ("headers", "message"),
    [
        ({}, "x-api-key header is required"),
        ({"x-api-key": "wrong"}, "invalid x-api-key"),
        ({"authorization": "Bearer wrong"}, "invalid x-api-key"),
    ],
)
def test_key_check(http: httpx.Client, headers: dict[str, str], message: str) -> None:
    with ScriptedServer([text("unreached")], api_key="right") as server:
        response = post(http, server, body(), **headers)
        assert server.remaining  # a refused request uses no step
    assert response.status_code == 401
    assert response.json()["error"] == {"type": "authentication_error", "message": message}
    assert response.json()["request_id"] == response.headers["request-id"]


@pytest.mark.parametrize("headers", [{"x-api-key": "right"}, {"authorization": "Bearer right"}])
def test_right_key_either_way(http: httpx.Client, headers: dict[str, str]) -> None:
    with ScriptedServer([text("in")], api_key="right") as server:
        assert post(http, server, body(), **headers).status_code == 200


def test_every_answer_has_a_distinct_request_id(http: httpx.Client) -> None:
    with ScriptedServer([text("one"), error(529)]) as server:
        url = f"{server.url}/v1/messages"
        responses = [
            http.post(url, json=body(), headers=HEADERS),
            http.post(url, json=body(), headers=HEADERS),
            http.post(url, json=body()),  # no anthropic-version
            http.get(f"{server.url}/v1/models"),
            http.post(url, content=b"{not json", headers=HEADERS),
        ]
    assert [r.status_code for r in responses] == [200, 529, 400, 404, 400]
    ids = [r.headers["request-id"] for r in responses]
    assert len(set(ids)) == 5
    assert responses[2].json()["error"]["message"] == "anthropic-version: header is required"
    assert responses[4].json()["error"]["message"].startswith("The request body is not valid JSON")


def test_error_step_headers(http: httpx.Client) -> None:
    step = error(429, message="slow down", retry_after=2, retry_after_ms=1500, should_retry=True)
    with ScriptedServer([step]) as server:
        response = post(http, server, body())
    assert response.status_code == 429
    assert (response.headers["retry-after"], response.headers["retry-after-ms"]) == ("2", "1500")
    assert response.headers["x-should-retry"] == "true"
    assert response.json() == {
        "type": "error",
        "error": {"type": "rate_limit_error", "message": "slow down"},
        "request_id": response.headers["request-id"],
    }


def test_requests_are_recorded_with_lower_case_headers_even_when_refused(
    http: httpx.Client,
) -> None:
    with ScriptedServer([text("ok")]) as server:
        post(http, server, {"model": "m"}, **{"X-Custom": "1"})
        post(http, server, body())
        first, second = server.requests
    assert isinstance(first, RecordedRequest)
    assert first.headers["x-custom"] == "1" and first.body == {"model": "m"}
    assert second.body == body()


def test_callable_script_answers_from_the_request(http: httpx.Client) -> None:
    def echo(request: RecordedRequest) -> Step | dict[str, Any]:
        last = request.body["messages"][-1]["content"]
        return {"text": f"you said {last}"} if last != "fail" else text(str(1 / 0))

    with ScriptedServer(echo) as server:
        said = post(http, server, body({"role": "user", "content": "ping"}))
        failed = post(http, server, body({"role": "user", "content": "fail"}))
        again = post(http, server, body({"role": "user", "content": "pong"}))
        assert server.remaining == []
    assert streamed_text(said.content) == "you said ping"
    assert failed.status_code == 500
    assert failed.headers["x-should-retry"] == "false"
    assert "the script failed on request 2: ZeroDivisionError" in failed.json()["error"]["message"]
    assert again.status_code == 200


def test_steps_in_dict_form_and_their_errors(http: httpx.Client) -> None:
    steps: list[Any] = [
        {"text": "hi", "chunk_words": 2},
        {"tool_calls": [{"name": "Bash", "input": {"command": "ls"}}]},
    ]
    with ScriptedServer(steps) as server:
        assert post(http, server, body()).status_code == 200
        assert server.remaining[0].tool_calls[0].input == {"command": "ls"}
    with pytest.raises(ScriptError, match=r"step 2: Object contains unknown field `txt`"):
        ScriptedServer([{"text": "ok"}, {"txt": "typo"}])
    with pytest.raises(
        ScriptError, match=r"step 1: Expected `int`, got `str` - at `\$.chunk_words`"
    ):
        ScriptedServer([{"text": "ok", "chunk_words": "2"}])


def test_count_tokens_uses_no_step(http: httpx.Client) -> None:
    payload = body(system="Be brief.")
    with ScriptedServer([text("ok")]) as server:
        del payload["max_tokens"], payload["stream"]
        counted = http.post(f"{server.url}/v1/messages/count_tokens", json=payload, headers=HEADERS)
        assert len(server.remaining) == 1
    assert counted.json() == {"input_tokens": count_input_tokens(payload)}


def test_non_streaming_failures(http: httpx.Client) -> None:
    steps = [text("x", stream_error=("overloaded_error", "Overloaded")), text("y", cut_after=0)]
    with ScriptedServer(steps) as server:
        overloaded = post(http, server, body(stream=False))
        with pytest.raises(httpx.RemoteProtocolError):
            post(http, server, body(stream=False))
    assert overloaded.status_code == 529


def test_cut_after_n_events_is_an_incomplete_body(http: httpx.Client) -> None:
    received = b""
    url = "/v1/messages"
    with (
        ScriptedServer([text("one two three", cut_after=3)]) as server,
        pytest.raises(httpx.RemoteProtocolError, match="incomplete chunked read"),
        http.stream("POST", server.url + url, json=body(), headers=HEADERS) as response,
    ):
        for piece in response.iter_bytes():
            received += piece
    assert [name for name, _ in parse_sse(received)] == [
        "message_start",
        "content_block_start",
        "ping",
    ]


def test_delay_paces_events(http: httpx.Client) -> None:
    with ScriptedServer([text("a b c d e", delay=0.02)]) as server:
        started = time.perf_counter()
        response = post(http, server, body())
        elapsed = time.perf_counter() - started
    events = parse_sse(response.content)
    assert elapsed >= 0.02 * (len(events) - 1)


def test_concurrent_requests_each_get_one_step(http: httpx.Client) -> None:
    steps = [text(f"answer {n}") for n in range(20)]
    with ScriptedServer(steps) as server, ThreadPoolExecutor(8) as pool:
        answers = list(pool.map(lambda _: post(http, server, body()).content, range(20)))
        assert len(server.requests) == 20 and server.remaining == []
    texts = {streamed_text(a) for a in answers}
    assert texts == {f"answer {n}" for n in range(20)}


def test_stop_ends_open_connections_and_a_stream_in_flight() -> None:
    before = set(threading.enumerate())
    # The stream's next event is an hour away: only a stop that wakes it ends its thread.
    server = ScriptedServer([text("idle"), text("slow " * 100, delay=3600)])
    server.start()
    with httpx.Client() as idle_client, httpx.Client() as streaming_client:
        idle_client.post(f"{server.url}/v1/messages", json=body(), headers=HEADERS)  # kept alive
        with streaming_client.stream(
            "POST", f"{server.url}/v1/messages", json=body(), headers=HEADERS
        ) as response:
            chunks = response.iter_bytes()
            next(chunks)  # the stream is now waiting for its next event
            server.stop()
            with pytest.raises(httpx.RemoteProtocolError):
                list(chunks)
    # Every connection's thread is joined: the idle one and the one mid-stream both woke.
    assert set(threading.enumerate()) <= before
    server.stop()  # idempotent
    with pytest.raises(RuntimeError, match="not running"):
        _ = server.url


def test_restart_keeps_the_script_position(http: httpx.Client) -> None:
    server = ScriptedServer([text("one"), text("two")])
    with server:
        post(http, server, body())
    with server:
        assert b"two" in post(http, server, body()).content
    with server, pytest.raises(RuntimeError, match="already running"):
        server.start()


async def test_trio_client() -> None:
    with ScriptedServer([text("from trio")]) as server:
        async with httpx.AsyncClient() as client:
            response = await client.post(f"{server.url}/v1/messages", json=body(), headers=HEADERS)
    names = [name for name, _ in parse_sse(response.content)]
    assert names[-1] == "message_stop"
    assert (
        msgspec.json.decode(response.content.split(b"data: ")[1].split(b"\n")[0])["type"]
        == "message_start"
    )


def test_a_gate_holds_its_block_until_the_file_exists(http: httpx.Client, tmp_path: Path) -> None:
    flag = tmp_path / "ran"
    step = tool_calls(
        [call("Bash", {"command": "touch ran"}), call("Read", {"file_path": "/x"})],
        gate=Gate(path=str(flag), before_block=1),
    )
    with (
        ScriptedServer([step]) as server,
        http.stream("POST", f"{server.url}/v1/messages", json=body(), headers=HEADERS) as response,
    ):
        received = b""
        chunks = response.iter_bytes()
        while b"content_block_stop" not in received:
            received += next(chunks)
        assert b'"index":1' not in received  # held at the gate
        flag.touch()
        received += b"".join(chunks)
    names = [name for name, _ in parse_sse(received)]
    assert names.count("content_block_start") == 2
    assert names[-1] == "message_stop"


def test_a_gate_that_never_opens_ends_the_stream_with_an_error(http: httpx.Client) -> None:
    step = tool_calls(
        [call("Bash", {"command": "true"}), call("Bash", {"command": "true"})],
        gate=Gate(path="/nonexistent/never", before_block=1, timeout=0.01),
    )
    with ScriptedServer([step]) as server:
        response = post(http, server, body())
    name, data = parse_sse(response.content)[-1]
    assert name == "error"
    assert "/nonexistent/never did not appear" in data["error"]["message"]


def test_on_sent_sees_each_event_as_it_leaves(http: httpx.Client) -> None:
    seen: list[bytes] = []
    for step in (text("a b c"), text("a b c", delay=0.001)):
        seen.clear()
        with ScriptedServer([step], on_sent=seen.append) as server:
            response = post(http, server, body())
        assert b"".join(seen) == response.content


def test_on_received_comes_before_the_script_and_requests_can_go_unkept(
    http: httpx.Client,
) -> None:
    order: list[str] = []

    def answer(request: RecordedRequest) -> Step:
        order.append("script")
        return text("ok")

    with ScriptedServer(
        answer, on_received=lambda: order.append("received"), keep_requests=False
    ) as server:
        for _ in range(2):
            assert post(http, server, body()).status_code == 200
        assert server.requests == []  # a long benchmark session keeps no bodies
    assert order == ["received", "script", "received", "script"]


def test_a_thinking_tool_turn_must_come_back_signed_as_given(http: httpx.Client) -> None:
    thinking = {"type": "enabled", "budget_tokens": 2048}
    steps = [
        tool_calls([call("Read", {"file_path": "/a"}, id="toolu_1")], thinking="Read it."),
        tool_calls([call("Read", {"file_path": "/b"}, id="toolu_2")], thinking="Now b."),
        text("done"),
    ]
    with ScriptedServer(steps) as server:
        first = post(http, server, body(thinking=thinking, max_tokens=4096))
        events = parse_sse(first.content)
        signature = next(
            data["delta"]["signature"]
            for _, data in events
            if data.get("delta", {}).get("type") == "signature_delta"
        )
        signed = {"type": "thinking", "thinking": "Read it.", "signature": signature}
        use = {"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": "/a"}}
        result = {"type": "tool_result", "tool_use_id": "toolu_1", "content": "a"}

        def turn(*assistant: dict[str, Any]) -> httpx.Response:
            messages: list[dict[str, Any]] = [
                {"role": "user", "content": "hi"},
                {"role": "assistant", "content": list(assistant)},
                {"role": "user", "content": [result]},
            ]
            return post(http, server, body(*messages, thinking=thinking, max_tokens=4096))

        forged = turn({**signed, "signature": signature[:-4] + "AAAA"}, use)
        edited = turn({**signed, "thinking": "Read it!"}, use)
        lost = turn(use)
        kept = turn(signed, use)
    assert forged.status_code == edited.status_code == lost.status_code == 400
    assert "Invalid `signature` in `thinking` block" in forged.json()["error"]["message"]
    assert "messages.1.content.0" in edited.json()["error"]["message"]
    assert "must start with a thinking block" in lost.json()["error"]["message"]
    assert kept.status_code == 200, kept.text
    assert "signature_delta" in kept.text  # the second step streamed its own
