"""Steps and their pieces: constructors, checks, and chunking that loses nothing."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from frontends.demo.scripted_api import ScriptError, Step, ToolCall, call, error, text, tool_calls
from frontends.demo.scripted_api.sse import json_pieces, stream_events, word_pieces
from frontends.demo.scripted_api.steps import HttpError


def test_constructors_build_the_documented_steps() -> None:
    assert text("Hello!") == Step(text="Hello!", stop_reason="end_turn")
    step = tool_calls(
        [call("Bash", {"command": "ls"}), call("Read", {"file_path": "/x"}, id="t1")], text="Look."
    )
    assert step.tool_calls == (
        ToolCall("Bash", {"command": "ls"}),
        ToolCall("Read", {"file_path": "/x"}, "t1"),
    )
    assert (step.text, step.final_stop_reason) == ("Look.", "tool_use")
    assert error() == Step(error=HttpError(status=429))
    overloaded = error(529).error
    assert overloaded is not None
    assert (overloaded.api_type, overloaded.api_message) == ("overloaded_error", "Overloaded")
    assert Step(stop_sequence="END").final_stop_reason == "stop_sequence"


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: text("x", chunk_words=0), "chunk_words must be at least 1, got 0"),
        (lambda: text("x", cut_after=-1), "cut_after must not be negative, got -1"),
        (lambda: text("x", error_after=2), "error_after needs stream_error"),
        (lambda: text("x", cut_after=1, stream_error=("api_error", "x")), "either cut"),
        (lambda: text("x", usage={"output": 1}), "unknown usage field(s) ['output']"),
        (lambda: error(200), "status 200 is not an HTTP error (400-599)"),
        (lambda: Step(signature="s"), "signature needs thinking"),
        (lambda: call(""), "a tool call needs a non-empty name"),
    ],
)
def test_impossible_steps_are_refused(make: Any, message: str) -> None:
    with pytest.raises(
        (ScriptError, ValueError),
        match=message.replace("(", r"\(").replace(")", r"\)").replace("[", r"\["),
    ):
        make()


@given(st.text(alphabet=st.sampled_from("ab é\n\t.")), st.integers(1, 4))
def test_word_pieces_join_back_and_hold_at_most_n_words(value: str, n: int) -> None:
    pieces = word_pieces(value, n)
    assert "".join(pieces) == value
    assert all(len(piece.split()) <= n for piece in pieces)
    assert all(piece for piece in pieces)


@given(st.dictionaries(st.text(), st.one_of(st.text(), st.integers(), st.booleans())))
def test_json_pieces_start_empty_and_join_to_the_input(value: dict[str, Any]) -> None:
    pieces = json_pieces(value)
    assert pieces[0] == ""
    assert json.loads("".join(pieces)) == value


def test_stream_error_defaults_to_replacing_the_end() -> None:
    events = stream_events(
        text("a b", stream_error=("api_error", "boom")),
        message_id="m",
        model="x",
        input_tokens=1,
        tool_ids=[],
    )
    assert (
        events[-1]
        == b'event: error\ndata: {"type":"error","error":{"type":"api_error","message":"boom"}}\n\n'
    )
    assert b"message_delta" not in b"".join(events)
    assert events[-2].startswith(b"event: content_block_stop")
