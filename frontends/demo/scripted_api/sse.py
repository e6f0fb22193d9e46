"""Turning a Step into the bytes the real Messages API would send.

Events are shaped like the recorded vectors in ``shared/vectors/anthropic``: ``event:`` equal to
the JSON ``type``, message_start with a placeholder usage, a ping after the first block start,
content_block_start/delta/stop per block, message_delta with the cumulative usage, message_stop.

Speed matters (a benchmark streams tens of thousands of deltas), so the fixed part of every
delta is encoded once per block and only the changing piece goes through the JSON encoder.
"""

from __future__ import annotations

import base64
import hashlib
import re
from typing import TYPE_CHECKING, Any

import msgspec

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from frontends.demo.scripted_api.steps import Step

_encode = msgspec.json.encode
_WORD = re.compile(r"\s*\S+")  # a word with the whitespace before it, as the API splits text
JSON_PIECE_CHARS = 16  # the API sends tool input in small pieces; several per call here too
PLACEHOLDER_OUTPUT_TOKENS = 1  # message_start's output_tokens, as the API sends it


def estimate_tokens(text: str) -> int:
    """A deterministic stand-in for a tokenizer: about four characters per token."""
    return (len(text) + 3) // 4


def count_input_tokens(body: Mapping[str, Any]) -> int:
    """Input tokens of a request: what the model reads (system, tools, messages), at least 1."""
    parts = {key: body[key] for key in ("system", "tools", "messages") if key in body}
    return max(1, estimate_tokens(_encode(parts).decode()))


def signature_for(thinking: str) -> str:
    """A stable stand-in for the API's signature over a thinking block."""
    return base64.b64encode(hashlib.sha256(thinking.encode()).digest() * 2).decode()


def word_pieces(text: str, words_per_piece: int) -> list[str]:
    """``text`` split into pieces of ``words_per_piece`` words that join back to ``text``."""
    words = _WORD.findall(text)
    if not words:
        return [text] if text else []
    tail = text[sum(map(len, words)) :]  # trailing whitespace belongs to the last word
    if tail:
        words[-1] += tail
    if words_per_piece == 1:
        return words
    return ["".join(words[i : i + words_per_piece]) for i in range(0, len(words), words_per_piece)]


def json_pieces(value: Mapping[str, Any]) -> list[str]:
    """A tool input as input_json_delta pieces; the API's first piece is empty."""
    encoded = _encode(value).decode()
    return [
        "",
        *(encoded[i : i + JSON_PIECE_CHARS] for i in range(0, len(encoded), JSON_PIECE_CHARS)),
    ]


def content_blocks(step: Step, tool_ids: Sequence[str]) -> list[dict[str, Any]]:
    """The finished content of the message a step plays, as the non-streaming API returns it."""
    blocks: list[dict[str, Any]] = []
    if step.thinking is not None:
        signature = step.signature if step.signature is not None else signature_for(step.thinking)
        blocks.append({"type": "thinking", "thinking": step.thinking, "signature": signature})
    if step.text is not None:
        blocks.append({"type": "text", "text": step.text})
    blocks.extend(step.blocks)
    for tool_id, tool_call in zip(tool_ids, step.tool_calls, strict=True):
        blocks.append(
            {"type": "tool_use", "id": tool_id, "name": tool_call.name, "input": tool_call.input}
        )
    return blocks


def usage_for(step: Step, input_tokens: int, cached: tuple[int, int] = (0, 0)) -> dict[str, int]:
    """The final usage of a step: computed from its content, then the step's overrides.

    ``cached`` is the prompt cache's (creation, read) tokens; ``input_tokens`` the rest."""
    output = 0
    if step.thinking is not None:
        output += estimate_tokens(step.thinking)
    if step.text is not None:
        output += estimate_tokens(step.text)
    for block in step.blocks:
        output += estimate_tokens(_encode(block).decode())
    for tool_call in step.tool_calls:
        output += estimate_tokens(tool_call.name) + estimate_tokens(
            _encode(tool_call.input).decode()
        )
    usage = {
        "input_tokens": input_tokens,
        "cache_creation_input_tokens": cached[0],
        "cache_read_input_tokens": cached[1],
        "output_tokens": max(1, output),
    }
    if step.usage:
        usage.update(step.usage)
    return usage


def error_body(error_type: str, message: str, request_id: str | None = None) -> dict[str, Any]:
    body: dict[str, Any] = {"type": "error", "error": {"type": error_type, "message": message}}
    if request_id is not None:
        body["request_id"] = request_id
    return body


def event(payload: Mapping[str, Any]) -> bytes:
    return b"event: %s\ndata: %s\n\n" % (payload["type"].encode(), _encode(payload))


def _deltas(index: int, delta_type: str, field: str, pieces: Sequence[str]) -> list[bytes]:
    head = b'event: content_block_delta\ndata: {"type":"content_block_delta","index":%d,' % index
    head += b'"delta":{"type":"%s","%s":' % (delta_type.encode(), field.encode())
    return [head + _encode(piece) + b"}}\n\n" for piece in pieces]


def _block_events(step: Step, tool_ids: Sequence[str]) -> list[tuple[dict[str, Any], list[bytes]]]:
    """Per content block: its content_block_start payload and its delta events."""
    out: list[tuple[dict[str, Any], list[bytes]]] = []
    if step.thinking is not None:
        signature = step.signature if step.signature is not None else signature_for(step.thinking)
        deltas = _deltas(
            len(out), "thinking_delta", "thinking", word_pieces(step.thinking, step.chunk_words)
        )
        deltas += _deltas(len(out), "signature_delta", "signature", [signature])
        out.append(({"type": "thinking", "thinking": ""}, deltas))
    if step.text is not None:
        deltas = _deltas(len(out), "text_delta", "text", word_pieces(step.text, step.chunk_words))
        out.append(({"type": "text", "text": ""}, deltas))
    for block in step.blocks:
        out.append((dict(block), []))
    for tool_id, tool_call in zip(tool_ids, step.tool_calls, strict=True):
        start = {"type": "tool_use", "id": tool_id, "name": tool_call.name, "input": {}}
        out.append(
            (
                start,
                _deltas(len(out), "input_json_delta", "partial_json", json_pieces(tool_call.input)),
            )
        )
    return out


def stream_events(
    step: Step,
    *,
    message_id: str,
    model: str,
    input_tokens: int,
    tool_ids: Sequence[str],
    cached: tuple[int, int] = (0, 0),
) -> list[bytes]:
    """Every SSE event of a streamed step, ``event: error`` included where the step fails."""
    usage = usage_for(step, input_tokens, cached)
    start_usage = {**usage, "output_tokens": PLACEHOLDER_OUTPUT_TOKENS}
    message: dict[str, Any] = {
        "id": message_id,
        "type": "message",
        "role": "assistant",
        "model": model,
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": start_usage,
    }
    events = [event({"type": "message_start", "message": message})]
    ping = event({"type": "ping"})
    for index, (start, deltas) in enumerate(_block_events(step, tool_ids)):
        events.append(
            event({"type": "content_block_start", "index": index, "content_block": start})
        )
        if index == 0:
            events.append(ping)
        events.extend(deltas)
        events.append(event({"type": "content_block_stop", "index": index}))
    if len(events) == 1:
        events.append(ping)
    delta = {"stop_reason": step.final_stop_reason, "stop_sequence": step.stop_sequence}
    events.append(event({"type": "message_delta", "delta": delta, "usage": usage}))
    events.append(event({"type": "message_stop"}))
    if step.stream_error is not None:
        # By default the error takes the place of message_delta and message_stop.
        after = len(events) - 2 if step.error_after is None else step.error_after
        error_type, message_text = step.stream_error
        events = [*events[:after], event(error_body(error_type, message_text))]
    return events


def message_json(
    step: Step,
    *,
    message_id: str,
    model: str,
    input_tokens: int,
    tool_ids: Sequence[str],
    cached: tuple[int, int] = (0, 0),
) -> bytes:
    """The step as one non-streamed Message (``"stream": false``)."""
    return _encode(
        {
            "id": message_id,
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": content_blocks(step, tool_ids),
            "stop_reason": step.final_stop_reason,
            "stop_sequence": step.stop_sequence,
            "usage": usage_for(step, input_tokens, cached),
        }
    )


def block_start_position(events: Sequence[bytes], index: int) -> int | None:
    """Where block ``index``'s content_block_start is in ``events`` (None: it is not there)."""
    head = b'event: content_block_start\ndata: {"type":"content_block_start","index":%d,' % index
    return next((n for n, data in enumerate(events) if data.startswith(head)), None)
