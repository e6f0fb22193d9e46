"""The SSE decoder on its own: line endings, comments, multi-line data, any split of the bytes."""

from __future__ import annotations

from itertools import pairwise

import pytest
from hypothesis import given
from hypothesis import strategies as st

from actors.errors import StreamFailed
from actors.model_client import sse
from actors.model_client.sse import ServerSentEvent, SSEDecoder

STREAM = (
    ": a comment, as keep-alives are sent\n"
    "event: first\n"
    "data: one\n"
    "\n"
    "data:no space after the colon\n"
    "data:  two spaces keep one\n"
    "id: 7\n"
    "retry: 1000\n"
    "\n"
    "event: multi\n"
    "data: line 1\n"
    "data\n"
    "data: line 3 \u00e9\u2603\n"
    "\n"
    "event: nodata\n"
    "\n"
    "data: {}\n"
    "\n"
)
EXPECTED = [
    ServerSentEvent("first", "one"),
    ServerSentEvent("message", "no space after the colon\n two spaces keep one"),
    ServerSentEvent("multi", "line 1\n\nline 3 \u00e9\u2603"),
    # "nodata" had no data line: the standard dispatches nothing and resets the name.
    ServerSentEvent("message", "{}"),
]


def decode(chunks: list[bytes]) -> list[ServerSentEvent]:
    decoder = SSEDecoder()
    out = [event for chunk in chunks for event in decoder.feed(chunk)]
    return out + decoder.finish()


def split(data: bytes, cuts: list[int]) -> list[bytes]:
    points = [0, *sorted(cuts), len(data)]
    return [data[a:b] for a, b in pairwise(points)]


def test_whole_stream() -> None:
    assert decode([STREAM.encode()]) == EXPECTED


def test_each_line_ending_style() -> None:
    for ending in ("\r\n", "\r"):
        data = STREAM.replace("\n", ending).encode()
        assert decode([data]) == EXPECTED
        assert decode([data[i : i + 1] for i in range(len(data))]) == EXPECTED


def test_crlf_split_between_cr_and_lf_is_one_line_end() -> None:
    # Had the CR and the LF counted as two line ends, "a" would be dispatched with data "x"
    # and "b" would lose its event name.
    assert decode([b"event: a\r", b"\ndata: x\r", b"\n\r", b"\n"]) == [ServerSentEvent("a", "x")]


def test_a_byte_order_mark_at_the_start_is_ignored() -> None:
    assert decode([b"\xef\xbb", b"\xbfevent: a\ndata: x\n\n"]) == [ServerSentEvent("a", "x")]


def test_end_of_stream_dispatches_complete_lines_and_drops_an_unfinished_one() -> None:
    assert decode([b"event: a\ndata: x\n"]) == [ServerSentEvent("a", "x")]
    assert decode([b'event: a\ndata: x\n\nevent: b\ndata: {"cut']) == [ServerSentEvent("a", "x")]


@given(st.lists(st.integers(min_value=0, max_value=len(STREAM.encode())), max_size=30))
def test_any_split_of_the_bytes_gives_the_same_events(cuts: list[int]) -> None:
    data = STREAM.replace("\n", "\r\n").encode()
    assert decode(split(data, [min(c, len(data)) for c in cuts])) == EXPECTED
    assert decode(split(STREAM.encode(), cuts)) == EXPECTED


def test_an_endless_line_is_a_stream_failure_not_a_memory_leak(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sse, "MAX_EVENT", 1000)
    decoder = SSEDecoder()
    decoder.feed(b"data: " + b"x" * 900)
    with pytest.raises(StreamFailed, match="an event longer than"):
        decoder.feed(b"x" * 200)


def test_an_endless_event_of_short_lines_is_a_stream_failure(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(sse, "MAX_EVENT", 1000)
    decoder = SSEDecoder()
    for _ in range(3):  # whole events of any number reset the count
        assert decoder.feed(b"data: " + b"y" * 600 + b"\n\n") == [
            ServerSentEvent("message", "y" * 600)
        ]
    with pytest.raises(StreamFailed, match="no end of line or event"):
        for _ in range(20):
            decoder.feed(b"data: " + b"y" * 100 + b"\n")
