"""Shared by the scripted server's tests: a valid request body, its headers, an SSE parser."""

from __future__ import annotations

from typing import Any

import msgspec

MODEL = "claude-sonnet-4-6"
HEADERS = {"anthropic-version": "2023-06-01"}


def body(*messages: dict[str, Any], stream: bool = True, **fields: Any) -> dict[str, Any]:
    """A valid Messages API body; one user message "hi" unless messages are given."""
    return {
        "model": MODEL,
        "max_tokens": 1024,
        "messages": list(messages) or [{"role": "user", "content": "hi"}],
        "stream": stream,
        **fields,
    }


def parse_sse(raw: bytes) -> list[tuple[str, dict[str, Any]]]:
    """(event name, data) pairs; asserts the framing is exactly the API's."""
    events = []
    for frame in raw.split(b"\n\n"):
        if not frame.strip():
            continue
        name_line, data_line = frame.strip(b"\n").split(b"\n")
        assert name_line.startswith(b"event: ")
        assert data_line.startswith(b"data: ")
        data = msgspec.json.decode(data_line[len(b"data: ") :])
        events.append((name_line[len(b"event: ") :].decode(), data))
    return events


def streamed_text(raw: bytes) -> str:
    """The text a stream's text deltas add up to."""
    return "".join(
        data["delta"]["text"]
        for name, data in parse_sse(raw)
        if name == "content_block_delta" and data["delta"]["type"] == "text_delta"
    )
