"""The assembler on streams the vectors do not cover: unknown events and blocks, server tools,
errors after HTTP 200, cut streams, usage merging."""

from __future__ import annotations

import json
from typing import Any

import pytest

from actors.errors import StreamFailed
from actors.model_client.assembler import MessageAssembler
from actors.model_client.sse import ServerSentEvent
from actors.protocol import (
    BlockFinished,
    MessageFinished,
    MessageStarted,
    ModelEvent,
    TextDelta,
    ToolInputDelta,
    ToolUseStarted,
    Usage,
)


def ev(kind: str, **fields: Any) -> ServerSentEvent:
    return ServerSentEvent(kind, json.dumps({"type": kind, **fields}))


START = ev("message_start", message={"id": "msg_1", "model": "m", "content": []})
STOP = ev("message_stop")


def start(index: int, **block: Any) -> ServerSentEvent:
    return ev("content_block_start", index=index, content_block=block)


def delta(index: int, **fields: Any) -> ServerSentEvent:
    return ev("content_block_delta", index=index, delta=fields)


def stop(index: int) -> ServerSentEvent:
    return ev("content_block_stop", index=index)


def feed_all(events: list[ServerSentEvent], *, request_id: str | None = None) -> list[ModelEvent]:
    assembler = MessageAssembler(request_id=request_id)
    out = [event for sse in events for event in assembler.feed(sse)]
    assembler.end()
    return out


def finished(events: list[ModelEvent]) -> MessageFinished:
    last = events[-1]
    assert isinstance(last, MessageFinished)
    return last


def test_a_tool_without_arguments_may_send_no_delta() -> None:
    events = feed_all(
        [START, start(0, type="tool_use", id="t1", name="Now", input={}), stop(0), STOP]
    )
    tool = {"type": "tool_use", "id": "t1", "name": "Now", "input": {}}
    assert events[1:3] == [ToolUseStarted(0, "t1", "Now"), BlockFinished(0, tool)]


def test_only_empty_input_pieces_mean_no_arguments() -> None:
    pieces = [delta(0, type="input_json_delta", partial_json="")] * 2
    events = feed_all([START, start(0, type="tool_use", id="t", name="N"), *pieces, stop(0), STOP])
    assert finished(events).message.content == [
        {"type": "tool_use", "id": "t", "name": "N", "input": {}}
    ]


def test_unknown_events_and_pings_are_ignored_anywhere() -> None:
    events = feed_all(
        [
            ev("ping"),
            START,
            ev("brand_new_event", stuff=[1, 2]),
            start(0, type="text", text=""),
            ev("ping"),
            delta(0, type="text_delta", text="hi"),
            stop(0),
            STOP,
        ]
    )
    assert events[1] == TextDelta(0, "hi")
    assert finished(events).message.content == [{"type": "text", "text": "hi"}]


def test_events_without_an_event_line_are_named_by_their_json_type() -> None:
    unnamed = [ServerSentEvent("message", sse.data) for sse in [START, STOP]]
    assert isinstance(feed_all(unnamed)[-1], MessageFinished)


def test_server_tool_blocks_are_kept_whole_and_not_offered_as_tool_calls() -> None:
    search_result = {
        "type": "web_search_tool_result",
        "tool_use_id": "srvtoolu_1",
        "content": [{"type": "web_search_result", "url": "https://x", "encrypted_content": "Eq"}],
    }
    events = feed_all(
        [
            START,
            start(0, type="server_tool_use", id="srvtoolu_1", name="web_search", input={}),
            delta(0, type="input_json_delta", partial_json='{"query": '),
            delta(0, type="input_json_delta", partial_json='"trio"}'),
            stop(0),
            start(1, **search_result),
            stop(1),
            STOP,
        ]
    )
    assert not [e for e in events if isinstance(e, ToolUseStarted | ToolInputDelta)]
    assert finished(events).message.content == [
        {
            "type": "server_tool_use",
            "id": "srvtoolu_1",
            "name": "web_search",
            "input": {"query": "trio"},
        },
        search_result,
    ]


def test_unknown_blocks_keep_the_deltas_this_client_cannot_interpret() -> None:
    events = feed_all(
        [
            START,
            start(0, type="future_block", log="", parts=[1], count=1),
            delta(0, type="log_delta", log="ab"),
            delta(0, type="log_delta", log="c", parts=[2, 3], count=2, extra={"k": 1}),
            stop(0),
            start(1, type="redacted_thinking", data="EmwKAhgB"),
            stop(1),
            STOP,
        ]
    )
    assert finished(events).message.content == [
        {"type": "future_block", "log": "abc", "parts": [1, 2, 3], "count": 2, "extra": {"k": 1}},
        {"type": "redacted_thinking", "data": "EmwKAhgB"},
    ]


def test_citations_are_collected_on_their_text_block() -> None:
    cite = {"type": "char_location", "cited_text": "x", "document_index": 0}
    events = feed_all(
        [
            START,
            start(0, type="text", text="", citations=None),
            delta(0, type="citations_delta", citation=cite),
            delta(0, type="text_delta", text="x"),
            delta(0, type="citations_delta", citation=cite),
            stop(0),
            STOP,
        ]
    )
    block = finished(events).message.content[0]
    assert block == {"type": "text", "text": "x", "citations": [cite, cite]}


def test_usage_from_message_start_merges_with_cumulative_message_delta_usage() -> None:
    begin = ev(
        "message_start",
        message={
            "id": "m",
            "model": "m",
            "usage": {
                "input_tokens": 10,
                "output_tokens": 1,
                "cache_creation_input_tokens": 100,
                "cache_read_input_tokens": 1000,
            },
        },
    )
    events = feed_all(
        [
            begin,
            ev("message_delta", delta={"stop_reason": None}, usage={"output_tokens": 5}),
            ev(
                "message_delta",
                delta={"stop_reason": "max_tokens"},
                usage={"output_tokens": 9, "cache_read_input_tokens": 1001},
            ),
            STOP,
        ]
    )
    assert finished(events) == MessageFinished(
        finished(events).message, "max_tokens", Usage(10, 9, 100, 1001)
    )


def test_an_error_event_after_http_200_fails_with_its_type_and_message() -> None:
    error = ev("error", error={"type": "overloaded_error", "message": "Overloaded"})
    with pytest.raises(StreamFailed) as info:
        feed_all([START, start(0, type="text", text=""), error], request_id="req_9")
    assert "overloaded_error: Overloaded" in info.value.message
    assert "req_9" in info.value.message


def test_a_stream_without_message_stop_fails() -> None:
    with pytest.raises(StreamFailed, match="no message_stop"):
        feed_all([START, start(0, type="text", text=""), delta(0, type="text_delta", text="a")])


@pytest.mark.parametrize(
    ("events", "problem"),
    [
        ([start(0, type="text", text="")], "before message_start"),
        ([START, delta(3, type="text_delta", text="a")], "block 3, which is not open"),
        ([START, ServerSentEvent("content_block_stop", "{not json")], "unreadable"),
        ([START, ev("content_block_delta", delta={})], "unreadable"),
        (
            [
                START,
                start(0, type="tool_use", id="t", name="Bash"),
                delta(0, type="input_json_delta", partial_json='{"command": "l'),
                stop(0),
            ],
            "'Bash' .* not a JSON object",
        ),
    ],
)
def test_malformed_streams_fail_with_what_was_wrong(
    events: list[ServerSentEvent], problem: str
) -> None:
    with pytest.raises(StreamFailed, match=problem):
        feed_all(events)


DEEP = '{"a":' * 100_000 + "1" + "}" * 100_000  # past any decoder's stack


def test_a_tool_input_nested_past_any_stack_is_a_stream_failure_not_a_crash() -> None:
    events = [
        START,
        start(0, type="tool_use", id="t", name="Read"),
        delta(0, type="input_json_delta", partial_json=DEEP),
        stop(0),
    ]
    with pytest.raises(StreamFailed, match="'Read' \\(block 0\\) nests deeper than 64 levels"):
        feed_all(events)


def test_an_event_nested_past_any_stack_is_a_stream_failure_not_a_crash() -> None:
    deep = ServerSentEvent(
        "content_block_start",
        '{"type":"content_block_start","index":0,"content_block":' + DEEP + "}",
    )
    with pytest.raises(StreamFailed, match="content_block_start event nested past 64 levels"):
        feed_all([START, deep])


def test_message_started_comes_first_and_nothing_follows_message_stop() -> None:
    events = feed_all([START, STOP, start(0, type="text", text="late")])
    assert events[0] == MessageStarted("msg_1", "m")
    assert finished(events).message.content == []
