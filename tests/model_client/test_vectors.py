"""The real captured streams in /work/shared/vectors/anthropic: every event they carry, exactly,
however the bytes arrive."""

from __future__ import annotations

from itertools import pairwise
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from actors.model_client.assembler import MessageAssembler
from actors.model_client.sse import SSEDecoder
from actors.protocol import (
    BlockFinished,
    Message,
    MessageFinished,
    MessageStarted,
    ModelEvent,
    TextDelta,
    ThinkingDelta,
    ToolInputDelta,
    ToolUseStarted,
    Usage,
)

VECTORS = Path("/work/shared/vectors/anthropic")
MODEL = "claude-opus-4-1-20250805"


def assemble(chunks: list[bytes]) -> list[ModelEvent]:
    decoder, assembler = SSEDecoder(), MessageAssembler()
    events: list[ModelEvent] = []
    for chunk in chunks:
        for sse in decoder.feed(chunk):
            events += assembler.feed(sse)
    for sse in decoder.finish():
        events += assembler.feed(sse)
    assembler.end()
    return events


def _text() -> list[ModelEvent]:
    block = {"type": "text", "text": "Hello!"}
    return [
        MessageStarted("msg_1nZdL29xx5MUA1yADyHTEsnR8uuvGzszyY", MODEL),
        TextDelta(0, "Hello"),
        TextDelta(0, "!"),
        BlockFinished(0, block),
        MessageFinished(Message("assistant", [block]), "end_turn", Usage(25, 15)),
    ]


TOOL_TEXT = [
    "Okay",
    ",",
    " let",
    "'s",
    " check",
    " the",
    " weather",
    " for",
    " San",
    " Francisco",
    ",",
    " CA",
    ":",
]
TOOL_JSON = [
    "",
    '{"location":',
    ' "San',
    " Francisc",
    "o,",
    ' CA"',
    ", ",
    '"unit": "fah',
    'renheit"}',
]


def _tool_use() -> list[ModelEvent]:
    text = {"type": "text", "text": "Okay, let's check the weather for San Francisco, CA:"}
    tool = {
        "type": "tool_use",
        "id": "toolu_01T1x1fJ34qAmk2tNTrN7Up6",
        "name": "get_weather",
        "input": {"location": "San Francisco, CA", "unit": "fahrenheit"},
    }
    return [
        MessageStarted("msg_014p7gG3wDgGV9EUtLvnow3U", MODEL),
        *(TextDelta(0, piece) for piece in TOOL_TEXT),
        BlockFinished(0, text),
        ToolUseStarted(1, "toolu_01T1x1fJ34qAmk2tNTrN7Up6", "get_weather"),
        *(ToolInputDelta(1, piece) for piece in TOOL_JSON),
        BlockFinished(1, tool),
        MessageFinished(Message("assistant", [text, tool]), "tool_use", Usage(472, 89)),
    ]


THOUGHTS = [
    "Let me solve this step by step:\n\n1. First break down 27 * 453",
    "\n2. 453 = 400 + 50 + 3",
    "\n3. 27 * 400 = 10,800",
    "\n4. 27 * 50 = 1,350",
    "\n5. 27 * 3 = 81",
    "\n6. 10,800 + 1,350 + 81 = 12,231",
]


def _thinking() -> list[ModelEvent]:
    thinking = {
        "type": "thinking",
        "thinking": "".join(THOUGHTS),
        "signature": "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxBdjrkzLoky3dl1pkiMOYds...",
    }
    text = {"type": "text", "text": "27 * 453 = 12,231"}
    return [
        MessageStarted("msg_01...", MODEL),
        *(ThinkingDelta(0, piece) for piece in THOUGHTS),
        BlockFinished(0, thinking),
        TextDelta(1, "27 * 453 = 12,231"),
        BlockFinished(1, text),
        # This documented stream carries no usage at all: zeros, not a failure.
        MessageFinished(Message("assistant", [thinking, text]), "end_turn", Usage()),
    ]


CASES = {"sse_text": _text, "sse_tool_use": _tool_use, "sse_thinking": _thinking}


def vector(name: str) -> bytes:
    return (VECTORS / f"{name}.txt").read_bytes()


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_vector_in_one_chunk_and_one_byte_at_a_time(name: str) -> None:
    data = vector(name)
    assert assemble([data]) == CASES[name]()
    assert assemble([data[i : i + 1] for i in range(len(data))]) == CASES[name]()


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_vector_with_crlf_line_ends(name: str) -> None:
    assert assemble([vector(name).replace(b"\n", b"\r\n")]) == CASES[name]()


@settings(max_examples=150, deadline=None)
@given(name=st.sampled_from(sorted(CASES)), data=st.data())
def test_each_vector_split_anywhere(name: str, data: st.DataObject) -> None:
    raw = vector(name)
    cuts = data.draw(st.lists(st.integers(0, len(raw)), max_size=40), label="cuts")
    points = [0, *sorted(cuts), len(raw)]
    chunks = [raw[a:b] for a, b in pairwise(points)]
    assert assemble(chunks) == CASES[name]()
