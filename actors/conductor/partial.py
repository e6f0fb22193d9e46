"""What the model has said of an answer still streaming, kept block by block.

When an answer is cut short (the user interrupts, the stream breaks) after some of its tool calls
started, the conversation must keep what was said and which calls were made, so that each call
that ran is answered by its result. ``content`` is that: the complete blocks in the API's order,
the text of a block still open, and nothing that cannot go back to the API as it is.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from actors.protocol import ToolCall

if TYPE_CHECKING:
    from actors.protocol import Block

# Complete blocks kept in a cut-short answer. A tool_use block is complete once its input is
# (half a call cannot be answered, and was never run); a thinking block once it is signed.
_KEPT = frozenset({"text", "tool_use", "thinking", "redacted_thinking"})


class PartialMessage:
    def __init__(self) -> None:
        self._done: dict[int, Block] = {}
        self._open_text: dict[int, list[str]] = {}

    def add_text(self, index: int, text: str) -> None:
        self._open_text.setdefault(index, []).append(text)

    def finish(self, index: int, block: Block) -> ToolCall | None:
        """A block is complete; returns the tool call it is, if it is one."""
        self._open_text.pop(index, None)
        self._done[index] = block
        return _call_of(block)

    def calls(self) -> list[ToolCall]:
        """The complete tool calls, in the answer's order."""
        return [
            call for _, block in sorted(self._done.items()) if (call := _call_of(block)) is not None
        ]

    def content(self) -> list[Block]:
        """What the conversation keeps of the answer, in the answer's order."""
        blocks: dict[int, Block] = {
            index: block
            for index, block in self._done.items()
            if block.get("type") in _KEPT
            and not (block.get("type") == "text" and not block.get("text"))
            # Thinking the API did not sign (its stream closed the block without it) would
            # have the next request refused.
            and not (block.get("type") == "thinking" and not block.get("signature"))
        }
        for index, pieces in self._open_text.items():
            text = "".join(pieces)
            if text:
                blocks[index] = {"type": "text", "text": text}
        kept = [block for _, block in sorted(blocks.items())]
        # Thinking alone is no message the API takes back: it goes with what it led to.
        if all(b.get("type") in ("thinking", "redacted_thinking") for b in kept):
            return []
        return kept


def _call_of(block: Block) -> ToolCall | None:
    if block.get("type") != "tool_use":
        return None
    call_input = block.get("input")
    return ToolCall(
        str(block.get("id", "")),
        str(block.get("name", "")),
        dict(call_input) if isinstance(call_input, dict) else {},
    )
