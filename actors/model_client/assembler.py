"""Turns the Messages API's stream events into Legato's ``ModelEvent``s and the final message.

The assembled message is what goes back to the API in the next request, so blocks are kept as
the API sent them: thinking with its exact ``signature``, ``redacted_thinking`` untouched, and
block types Legato does not know (server tools, MCP, search results) kept whole, with any delta
it cannot interpret folded in rather than dropped.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from actors.errors import StreamFailed
from actors.model_client import wire
from actors.nesting import MAX_DEPTH, too_deep
from actors.protocol import (
    Block,
    BlockFinished,
    Message,
    MessageFinished,
    MessageStarted,
    TextDelta,
    ThinkingDelta,
    ToolInputDelta,
    ToolUseStarted,
    Usage,
)

if TYPE_CHECKING:
    from actors.model_client.sse import ServerSentEvent
    from actors.protocol import ModelEvent

_DECODE_START = msgspec.json.Decoder(wire.MessageStart)
_DECODE_BLOCK_START = msgspec.json.Decoder(wire.BlockStart)
_DECODE_BLOCK_DELTA = msgspec.json.Decoder(wire.BlockDelta)
_DECODE_BLOCK_STOP = msgspec.json.Decoder(wire.BlockStop)
_DECODE_MESSAGE_DELTA = msgspec.json.Decoder(wire.MessageDelta)
_DECODE_ERROR = msgspec.json.Decoder(wire.ErrorBody)
_DECODE_TYPED = msgspec.json.Decoder(wire.Typed)

_USAGE_FIELDS = (
    "input_tokens",
    "output_tokens",
    "cache_creation_input_tokens",
    "cache_read_input_tokens",
)


class _OpenBlock(msgspec.Struct):
    block: Block
    # input_json_delta pieces, parsed at the stop
    json: list[str] = msgspec.field(default_factory=list)
    # Streamed text and thinking, kept as pieces and joined once at the stop: appending to one
    # growing string would copy it again for every delta.
    pieces: dict[str, list[str]] = msgspec.field(default_factory=dict)

    def add(self, key: str, text: str) -> None:
        pieces = self.pieces.get(key)
        if pieces is None:
            old = self.block.get(key)
            pieces = self.pieces[key] = [old] if isinstance(old, str) else []
        pieces.append(text)

    def settle(self) -> Block:
        """The block with every streamed piece joined in."""
        for key, pieces in self.pieces.items():
            self.block[key] = "".join(pieces)
        self.pieces.clear()
        return self.block


class MessageAssembler:
    """Feed it every event of one stream; it returns the events to show and builds the message.

    ``finished`` is set by ``message_stop``. Raises ``StreamFailed`` for an ``event: error``, a
    malformed event, or (from ``end``) a stream that stopped before ``message_stop``.
    """

    def __init__(self, *, request_id: str | None = None) -> None:
        self.request_id = request_id
        self.finished: MessageFinished | None = None
        self._started = False
        self._blocks: dict[int, _OpenBlock] = {}
        self._done: dict[int, Block] = {}
        self._stop_reason: str | None = None
        self._usage = dict.fromkeys(_USAGE_FIELDS, 0)
        self._speed: str | None = None

    def feed(self, sse: ServerSentEvent) -> list[ModelEvent]:
        if self.finished is not None:
            return []  # nothing follows message_stop; anything that does is not ours to judge
        kind = sse.event
        if kind == "message":  # no `event:` line: the JSON's own type names it
            kind = self._decode(_DECODE_TYPED, sse).type
        if kind == "error":
            error = self._decode(_DECODE_ERROR, sse).error
            failure = StreamFailed(
                f"The API reported an error during the answer: {error.type}: {error.message}",
                request_id=self.request_id,
            )
            failure.error_type = error.type
            raise failure
        if kind == "message_start":
            return self._message_start(self._decode(_DECODE_START, sse))
        if kind not in _MESSAGE_EVENTS:
            return []  # ping, and event types newer than this client
        if not self._started:
            raise self._failure(f"the stream sent {kind} before message_start")
        match kind:
            case "content_block_start":
                return self._block_start(self._decode(_DECODE_BLOCK_START, sse))
            case "content_block_delta":
                return self._block_delta(self._decode(_DECODE_BLOCK_DELTA, sse))
            case "content_block_stop":
                return self._block_stop(self._decode(_DECODE_BLOCK_STOP, sse).index)
            case "message_delta":
                delta = self._decode(_DECODE_MESSAGE_DELTA, sse)
                if delta.delta.stop_reason is not None:
                    self._stop_reason = delta.delta.stop_reason
                self._merge_usage(delta.usage)
                return []
            case _:
                return self._message_stop()

    def end(self) -> MessageFinished:
        """The stream ended: the message after ``message_stop``, a ``StreamFailed`` before it."""
        if self.finished is None:
            raise self._failure("the stream ended before the answer was complete (no message_stop)")
        return self.finished

    # -- one method per event type ----------------------------------------------------------

    def _message_start(self, event: wire.MessageStart) -> list[ModelEvent]:
        if self._started:
            raise self._failure("the stream sent a second message_start")
        self._started = True
        self._merge_usage(event.message.usage)
        return [MessageStarted(id=event.message.id, model=event.message.model)]

    def _block_start(self, event: wire.BlockStart) -> list[ModelEvent]:
        index, block = event.index, event.content_block
        if index in self._blocks or index in self._done:
            raise self._failure(f"the stream started block {index} twice")
        self._blocks[index] = _OpenBlock(block)
        match block.get("type"):
            case "text" if isinstance(block.get("text"), str) and block["text"]:
                return [TextDelta(index, block["text"])]
            case "thinking" if isinstance(block.get("thinking"), str) and block["thinking"]:
                return [ThinkingDelta(index, block["thinking"])]
            case "tool_use":
                return [ToolUseStarted(index, str(block.get("id", "")), str(block.get("name", "")))]
            case _:
                return []

    def _block_delta(self, event: wire.BlockDelta) -> list[ModelEvent]:
        index, delta = event.index, event.delta
        open_block = self._open(index)
        block = open_block.block
        kind = block.get("type")
        if kind == "text" and delta.get("type") == "text_delta":
            # The hot path, one per token: checked before the general match below.
            text = delta.get("text")
            if isinstance(text, str):
                open_block.add("text", text)
                return [TextDelta(index, text)]
        match delta:
            case {"type": "text_delta", "text": str(text)}:
                open_block.add("text", text)
                return [TextDelta(index, text)] if kind == "text" else []
            case {"type": "thinking_delta", "thinking": str(thinking)}:
                open_block.add("thinking", thinking)
                return [ThinkingDelta(index, thinking)] if kind == "thinking" else []
            case {"type": "signature_delta", "signature": str(signature)}:
                block["signature"] = signature  # opaque: sent back byte for byte
                return []
            case {"type": "input_json_delta", "partial_json": str(piece)}:
                # Any block with an input streams it this way: tool_use, but also server
                # and MCP tool calls, which Legato keeps without running them.
                open_block.json.append(piece)
                return [ToolInputDelta(index, piece)] if kind == "tool_use" else []
            case {"type": "citations_delta", "citation": citation}:
                citations = block.get("citations")
                if isinstance(citations, list):
                    citations.append(citation)
                else:
                    block["citations"] = [citation]
                return []
            case _:
                _fold(open_block.settle(), delta)
                return []

    def _block_stop(self, index: int) -> list[ModelEvent]:
        open_block = self._open(index)
        block = open_block.settle()
        if open_block.json:
            block["input"] = self._parse_input(index, block, "".join(open_block.json))
        elif block.get("type") == "tool_use" and not isinstance(block.get("input"), dict):
            block["input"] = {}  # a tool without arguments may stream no input at all
        del self._blocks[index]
        self._done[index] = block
        return [BlockFinished(index, block)]

    def _message_stop(self) -> list[ModelEvent]:
        events: list[ModelEvent] = []
        for index in sorted(self._blocks):  # a block never stopped is still part of the answer
            events += self._block_stop(index)
        content = [self._done[index] for index in sorted(self._done)]
        self.finished = MessageFinished(
            message=Message("assistant", content),
            stop_reason=self._stop_reason,
            usage=Usage(**self._usage, speed=self._speed),
        )
        return [*events, self.finished]

    # -- helpers ----------------------------------------------------------------------------

    def _open(self, index: int) -> _OpenBlock:
        try:
            return self._blocks[index]
        except KeyError:
            problem = f"the stream sent an event for block {index}, which is not open"
            raise self._failure(problem) from None

    def _parse_input(self, index: int, block: Block, text: str) -> Any:
        if not text.strip():
            return block.get("input") if isinstance(block.get("input"), dict) else {}
        name = block.get("name", block.get("type"))
        if too_deep(text) is not None:  # the decoder, and all that walks the input, would recurse
            raise self._failure(
                f"the input of tool call {name!r} (block {index}) nests deeper than "
                f"{MAX_DEPTH} levels"
            )
        try:
            value = msgspec.json.decode(text)
        except msgspec.DecodeError:
            value = None
        if not isinstance(value, dict):
            raise self._failure(
                f"the input of tool call {name!r} (block {index}) is not a JSON object: "
                f"{text[:200]!r}"
            )
        return value

    def _merge_usage(self, usage: wire.WireUsage | None) -> None:
        # message_start carries the input side; message_delta's counts are cumulative, so a
        # count present in a later event replaces the earlier one, and an absent one keeps it.
        if usage is None:
            return
        if usage.speed is not None:
            self._speed = usage.speed
        for name in _USAGE_FIELDS:
            value = getattr(usage, name)
            if value is not None:
                self._usage[name] = value

    def _decode(self, decoder: msgspec.json.Decoder[Any], sse: ServerSentEvent) -> Any:
        if too_deep(sse.data) is not None:  # the decoder would recurse until it gives out
            raise self._failure(f"the API sent a {sse.event} event nested past {MAX_DEPTH} levels")
        try:
            return decoder.decode(sse.data)
        except msgspec.DecodeError as exc:
            raise self._failure(f"the API sent an unreadable {sse.event} event ({exc})") from None

    def _failure(self, problem: str) -> StreamFailed:
        return StreamFailed(f"The answer stream broke: {problem}", request_id=self.request_id)


_MESSAGE_EVENTS = frozenset(
    {
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
    }
)


def _fold(block: Block, delta: dict[str, Any]) -> None:
    """Keep a delta this client cannot interpret: streamed strings are appended, lists extended,
    anything else replaces the block's field, which is how every known delta type behaves."""
    for key, value in delta.items():
        if key == "type":
            continue
        old = block.get(key)
        if isinstance(old, str) and isinstance(value, str):
            block[key] = old + value
        elif isinstance(old, list):
            old.extend(value if isinstance(value, list) else [value])
        else:
            block[key] = value
