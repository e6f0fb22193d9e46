"""AWS event-stream frames written by hand (struct and zlib), for the loopback Bedrock server.

The client decodes with botocore's parser; frames built independently here check that both
agree on the format, checksums included.
"""

from __future__ import annotations

import base64
import json
import struct
import zlib
from typing import Any


def frame(headers: dict[str, str], payload: bytes) -> bytes:
    encoded = b""
    for name, value in headers.items():
        raw_name, raw_value = name.encode(), value.encode()
        # name length, name, type 7 (string), value length, value
        encoded += struct.pack("!B", len(raw_name)) + raw_name
        encoded += struct.pack("!BH", 7, len(raw_value)) + raw_value
    total = 12 + len(encoded) + len(payload) + 4
    prelude = struct.pack("!II", total, len(encoded))
    prelude += struct.pack("!I", zlib.crc32(prelude))
    message = prelude + encoded + payload
    return message + struct.pack("!I", zlib.crc32(message))


def chunk(event: dict[str, Any]) -> bytes:
    """One Messages API event, as Bedrock wraps it."""
    inner = base64.b64encode(json.dumps(event).encode()).decode()
    headers = {
        ":event-type": "chunk",
        ":content-type": "application/json",
        ":message-type": "event",
    }
    return frame(headers, json.dumps({"bytes": inner, "p": "abcdef"}).encode())


def exception(kind: str, message: str) -> bytes:
    headers = {
        ":exception-type": kind,
        ":content-type": "application/json",
        ":message-type": "exception",
    }
    return frame(headers, json.dumps({"message": message}).encode())


def answer_events(text: str, *, speed: str | None = None) -> list[dict[str, Any]]:
    usage: dict[str, Any] = {"output_tokens": 3}
    if speed is not None:
        usage["speed"] = speed
    return [
        {
            "type": "message_start",
            "message": {
                "id": "msg_b1",
                "model": "claude-haiku-4-5-20251001",
                "usage": {"input_tokens": 9, "output_tokens": 1},
            },
        },
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": text}},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": usage},
        {"type": "message_stop"},
    ]
