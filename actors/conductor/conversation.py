"""The conversation, kept so that the API will always accept it.

The API's rules: roles alternate, and an assistant message's ``tool_use`` blocks are answered,
every one, by ``tool_result`` blocks in the very next user message. ``Conversation`` keeps them
even when a turn is cut short: ``close_interrupted`` turns whatever a cancelled turn left into
messages the API accepts (partial text kept, each unanswered call answered as interrupted).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from actors.protocol import Block, Message

if TYPE_CHECKING:
    from actors.protocol import ToolResult


class Conversation:
    def __init__(self) -> None:
        self.messages: list[Message] = []

    def add_user_text(self, text: str) -> None:
        self._add_user([{"type": "text", "text": text}])

    def add_prompt(self, text: str, blocks: tuple[Block, ...] = ()) -> None:
        """The person's prompt: its text, then its images and documents in the order given.
        A prompt of only an image has no text block (the API refuses an empty one)."""
        head: list[Block] = [{"type": "text", "text": text}] if text or not blocks else []
        self._add_user([*head, *blocks])

    def add_assistant(self, message: Message) -> None:
        content = [block for block in message.content if not _is_empty_text(block)]
        if not content:
            # The API refuses an empty assistant message; say that nothing was said.
            content = [{"type": "text", "text": "(no content)"}]
        self.messages.append(Message("assistant", content))

    def add_tool_results(self, results: list[ToolResult]) -> None:
        self._add_user([result.block() for result in results])

    def pending_tool_uses(self) -> list[Block]:
        """The last assistant message's tool calls that have no result yet."""
        if not self.messages or self.messages[-1].role != "assistant":
            return []
        return [b for b in self.messages[-1].content if b.get("type") == "tool_use"]

    def close_interrupted(self, partial: list[Block], results: dict[str, ToolResult]) -> None:
        """Make the conversation valid again after a turn cut short.

        ``partial`` is what the conversation keeps of an unfinished message (``PartialMessage``:
        its text and its complete tool calls; a half-received call never ran and is left out);
        ``results`` holds the tool calls that did finish. Calls that did not get an
        interruption notice.
        """
        kept = [b for b in partial if not _is_empty_text(b)]
        if kept:
            self.add_assistant(Message("assistant", kept))
        pending = self.pending_tool_uses()
        if pending:
            blocks: list[Block] = []
            for call in pending:
                done = results.get(call["id"])
                if done is not None:
                    blocks.append(done.block())
                else:
                    blocks.append(
                        {
                            "type": "tool_result",
                            "tool_use_id": call["id"],
                            "content": "Interrupted by the user before this call finished.",
                            "is_error": True,
                        }
                    )
            self._add_user(blocks)

    def _add_user(self, blocks: list[Block]) -> None:
        # Two user messages in a row (a prompt after an interrupted turn's tool results) are
        # merged, as the API wants roles to alternate.
        if self.messages and self.messages[-1].role == "user":
            previous = self.messages.pop()
            blocks = [*previous.content, *blocks]
        self.messages.append(Message("user", blocks))


def _is_empty_text(block: Block) -> bool:
    return block.get("type") == "text" and not block.get("text")
