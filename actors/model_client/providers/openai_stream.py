"""OpenAI chat-completions chunks -> ``ModelEvent``s and an Anthropic-shaped message.

The conversation is kept in the Messages API's shape whatever the provider, so the assembled
message holds ``text`` and ``tool_use`` blocks, and the stop reason and usage are translated to
their Anthropic names. A chunk carries ``choices[0].delta`` with ``content`` and/or
``tool_calls`` fragments: a call's first fragment has ``index``, ``id`` and ``function.name``;
later ones only ``index`` and a piece of ``arguments`` to append.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

import msgspec

from actors.errors import StreamFailed
from actors.nesting import MAX_DEPTH, too_deep
from actors.protocol import (
    Block,
    BlockFinished,
    Message,
    MessageFinished,
    MessageStarted,
    TextDelta,
    ToolInputDelta,
    ToolUseStarted,
    Usage,
)

if TYPE_CHECKING:
    from actors.model_client.sse import ServerSentEvent
    from actors.protocol import ModelEvent

STOP_REASONS = {
    "stop": "end_turn",
    "length": "max_tokens",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "content_filter": "refusal",
}


class _Function(msgspec.Struct, frozen=True):
    name: str | None = None
    arguments: str | None = None


class _ToolCallPiece(msgspec.Struct, frozen=True):
    index: int = 0
    id: str | None = None
    function: _Function = _Function()


class _Delta(msgspec.Struct, frozen=True):
    content: str | None = None
    tool_calls: list[_ToolCallPiece] | None = None


class _Choice(msgspec.Struct, frozen=True):
    delta: _Delta = _Delta()
    finish_reason: str | None = None


class _Usage(msgspec.Struct, frozen=True):
    prompt_tokens: int = 0
    completion_tokens: int = 0


class _Chunk(msgspec.Struct, frozen=True):
    id: str = ""
    model: str = ""
    choices: list[_Choice] = msgspec.field(default_factory=list)
    usage: _Usage | None = None
    error: Any = None  # some servers report a failure mid-stream this way


_DECODE_CHUNK = msgspec.json.Decoder(_Chunk)


@dataclass(slots=True)
class _Block:
    index: int  # the block's place in the assembled message
    block: Block
    pieces: list[str] = field(default_factory=list)


class ChatAssembler:
    """Feed it every SSE event of one chat-completions stream; the stream ends at ``[DONE]``."""

    def __init__(self, *, request_id: str | None = None) -> None:
        self.request_id = request_id
        self.finished: MessageFinished | None = None
        self._started = False
        self._text: _Block | None = None
        self._calls: dict[int, _Block] = {}  # OpenAI's tool-call index -> its block
        self._blocks: list[_Block] = []
        self._stop_reason: str | None = None
        self._usage = Usage()

    def feed(self, sse: ServerSentEvent) -> list[ModelEvent]:
        if self.finished is not None:
            return []
        if sse.data.strip() == "[DONE]":
            return self._finish()
        if too_deep(sse.data) is not None:  # the decoder would recurse until it gives out
            raise self._failure(f"a chunk nested past {MAX_DEPTH} levels: {sse.data[:200]!r}")
        try:
            chunk = _DECODE_CHUNK.decode(sse.data)
        except msgspec.DecodeError as exc:
            raise self._failure(f"an unreadable chunk ({exc}): {sse.data[:200]!r}") from None
        if chunk.error is not None:
            raise StreamFailed(
                f"The model server reported an error during the answer: {chunk.error}",
                request_id=self.request_id,
            )
        events: list[ModelEvent] = []
        if not self._started:
            self._started = True
            events.append(MessageStarted(id=chunk.id, model=chunk.model))
        if chunk.usage is not None:
            self._usage = Usage(chunk.usage.prompt_tokens, chunk.usage.completion_tokens)
        for choice in chunk.choices[:1]:  # Legato asks for one choice (n defaults to 1)
            if choice.delta.content:
                events += self._add_text(choice.delta.content)
            for piece in choice.delta.tool_calls or ():
                events += self._add_call_piece(piece)
            if choice.finish_reason is not None:
                reason = choice.finish_reason
                self._stop_reason = STOP_REASONS.get(reason, reason)
        return events

    def end(self) -> MessageFinished:
        """The body ended: a stream that gave its finish reason but no ``[DONE]`` still counts."""
        if self.finished is None and self._stop_reason is not None:
            self._finish()
        if self.finished is None:
            raise self._failure("the stream ended before the answer was complete (no [DONE])")
        return self.finished

    def _add_text(self, text: str) -> list[ModelEvent]:
        if self._text is None:
            self._text = self._open({"type": "text", "text": ""})
        self._text.pieces.append(text)
        return [TextDelta(self._text.index, text)]

    def _add_call_piece(self, piece: _ToolCallPiece) -> list[ModelEvent]:
        events: list[ModelEvent] = []
        call = self._calls.get(piece.index)
        if call is None:
            call_id = piece.id or f"call_{piece.index}"
            name = piece.function.name or ""
            call = self._calls[piece.index] = self._open(
                {"type": "tool_use", "id": call_id, "name": name, "input": {}}
            )
            events.append(ToolUseStarted(call.index, call_id, name))
        if piece.function.arguments:
            call.pieces.append(piece.function.arguments)
            events.append(ToolInputDelta(call.index, piece.function.arguments))
        return events

    def _open(self, block: Block) -> _Block:
        opened = _Block(len(self._blocks), block)
        self._blocks.append(opened)
        return opened

    def _finish(self) -> list[ModelEvent]:
        events: list[ModelEvent] = []
        content: list[Block] = []
        for opened in self._blocks:
            block = opened.block
            joined = "".join(opened.pieces)
            if block["type"] == "text":
                block["text"] = joined
            else:
                block["input"] = self._arguments(block, joined)
            content.append(block)
            events.append(BlockFinished(opened.index, block))
        stop = self._stop_reason or ("tool_use" if self._calls else "end_turn")
        self.finished = MessageFinished(Message("assistant", content), stop, self._usage)
        return [*events, self.finished]

    def _arguments(self, block: Block, text: str) -> dict[str, Any]:
        if not text.strip():
            return {}
        name = block["name"]
        if too_deep(text) is not None:  # the decoder, and all that walks the input, would recurse
            raise self._failure(
                f"the arguments of tool call {name!r} nest deeper than {MAX_DEPTH} levels"
            )
        try:
            value = msgspec.json.decode(text)
        except msgspec.DecodeError:
            value = None
        if not isinstance(value, dict):
            raise self._failure(
                f"the arguments of tool call {name!r} are not a JSON object: {text[:200]!r}"
            )
        return value

    def _failure(self, problem: str) -> StreamFailed:
        return StreamFailed(f"The answer stream broke: {problem}", request_id=self.request_id)
