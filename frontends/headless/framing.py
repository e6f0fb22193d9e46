"""The stream events around the deltas, for ``--include-partial-messages``.

The model client hands on the deltas a frontend shows, and the finished block; a program
reading ``stream_event`` lines follows the Messages API's own stream, where every block opens
with ``content_block_start`` naming its type (so that a thinking delta is known for one before
the first arrives), a thinking block's signature comes as a ``signature_delta`` before it
closes, and the message ends with ``message_delta`` (its stop reason and usage) and
``message_stop``. ``Framing`` adds those, once each, per conversation (the main one and each
subagent's stream apart).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from actors.protocol import (
    BlockFinished,
    MessageFinished,
    MessageStarted,
    TextDelta,
    ThinkingDelta,
    ToolUseStarted,
)

if TYPE_CHECKING:
    from actors.protocol import UiEvent

# What an empty block of each streamed kind opens with, as the API sends it.
_EMPTY = {
    TextDelta: {"type": "text", "text": ""},
    ThinkingDelta: {"type": "thinking", "thinking": "", "signature": ""},
}


class Framing:
    def __init__(self) -> None:
        self._opened: dict[str | None, set[int]] = {}  # parent -> the blocks started

    def before(self, event: UiEvent, parent: str | None) -> list[dict[str, Any]]:
        """The API events that come before ``event``'s own stream event."""
        match event:
            case MessageStarted():
                self._opened[parent] = set()
            case ToolUseStarted(index=index):
                self._opened.setdefault(parent, set()).add(index)
            case TextDelta(index=index) | ThinkingDelta(index=index):
                if self._open(parent, index):
                    block = dict(_EMPTY[type(event)])
                    return [{"type": "content_block_start", "index": index, "content_block": block}]
            case BlockFinished(index=index, block=block):
                lines = []
                if self._open(parent, index):
                    # A block that streamed nothing (thinking with its display omitted, a
                    # redacted block): it opens as it is, its signature given below.
                    opened = {k: v for k, v in block.items() if k != "signature"}
                    if opened.get("type") == "thinking":
                        opened["signature"] = ""
                    start = {"type": "content_block_start", "index": index, "content_block": opened}
                    lines.append(start)
                if block.get("type") == "thinking" and block.get("signature"):
                    signed = {"type": "signature_delta", "signature": block["signature"]}
                    lines.append({"type": "content_block_delta", "index": index, "delta": signed})
                return lines
            case _:
                pass
        return []

    def ended(self, event: MessageFinished, parent: str | None) -> list[dict[str, Any]]:
        """The API events that end a streamed message; none for one cut short (no stop
        reason: the stream it came from never ended)."""
        self._opened.pop(parent, None)
        if event.stop_reason is None:
            return []
        delta = {"stop_reason": event.stop_reason, "stop_sequence": None}
        usage = msgspec.to_builtins(event.usage)
        return [{"type": "message_delta", "delta": delta, "usage": usage}, {"type": "message_stop"}]

    def _open(self, parent: str | None, index: int) -> bool:
        """Whether block ``index`` opens now (it had not)."""
        opened = self._opened.setdefault(parent, set())
        if index in opened:
            return False
        opened.add(index)
        return True
