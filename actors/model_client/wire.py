"""The Messages API's stream events and error bodies, as msgspec shapes.

Only the fields Legato reads are declared; msgspec skips the rest, so the API may add fields
freely. Content blocks and deltas stay dicts: their shape is open (new block types appear, and
blocks must go back to the API exactly as they came).
"""

from __future__ import annotations

from typing import Any

import msgspec


class WireUsage(msgspec.Struct, frozen=True):
    """A usage object; ``None`` where the event left a count out (it keeps its earlier value)."""

    input_tokens: int | None = None
    output_tokens: int | None = None
    cache_creation_input_tokens: int | None = None
    cache_read_input_tokens: int | None = None
    speed: str | None = None  # "fast" or "standard", when fast mode was asked for


class WireMessage(msgspec.Struct, frozen=True):
    id: str
    model: str
    usage: WireUsage | None = None


class MessageStart(msgspec.Struct, frozen=True):
    message: WireMessage


class BlockStart(msgspec.Struct, frozen=True):
    index: int
    content_block: dict[str, Any]


class BlockDelta(msgspec.Struct, frozen=True):
    index: int
    delta: dict[str, Any]


class BlockStop(msgspec.Struct, frozen=True):
    index: int


class MessageDeltaFields(msgspec.Struct, frozen=True):
    stop_reason: str | None = None


class MessageDelta(msgspec.Struct, frozen=True):
    delta: MessageDeltaFields = MessageDeltaFields()
    usage: WireUsage | None = None


class ErrorDetail(msgspec.Struct, frozen=True):
    type: str = "api_error"
    message: str = ""


class ErrorBody(msgspec.Struct, frozen=True):
    """Both an ``event: error`` payload and the body of an HTTP error response."""

    error: ErrorDetail


class Typed(msgspec.Struct, frozen=True):
    """Just the ``type`` of an event, for a stream whose events carry no ``event:`` name."""

    type: str
