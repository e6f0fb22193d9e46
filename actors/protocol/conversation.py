"""What a conversation is made of, as every actor sees it.

The messages and content blocks in the Messages API's own JSON shape, the tokens an answer used,
and how the text the conductor itself writes into a conversation begins, so that a view of a
saved conversation tells it from what the person typed.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

Block = dict[str, Any]
"""One content block in the Messages API's JSON shape (``{"type": "text", "text": ...}``)."""


class Message(msgspec.Struct, frozen=True):
    role: Literal["user", "assistant"]
    content: list[Block]


# How the text blocks the conductor itself writes into a user message begin, besides notes in
# parentheses: a view of a saved conversation (a resumed session's) tells them from prompts.
COMPACTED_HEADER = "Earlier turns of this conversation were compacted. Summary of them:"
LEDGER_START = "<task-ledger>"
# How the note of a shell command the person ran themselves (``!cmd``) begins: the command
# follows in ``<bash-input>``, its output and how it ended in ``<bash-output>``.
PERSON_COMMAND_NOTE = "The user ran a shell command themselves"

# How the result of a call the permission broker refused begins: a saved conversation's view
# shows such a call as denied, as the live session did.
DENIED_PREFIX = "Permission denied: "


class Usage(msgspec.Struct, frozen=True):
    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0
    # "fast" or "standard": the speed the API actually ran (fast mode may silently fall back);
    # None when the provider does not say. A sum keeps the latest answer's.
    speed: str | None = None

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cache_creation_input_tokens + other.cache_creation_input_tokens,
            self.cache_read_input_tokens + other.cache_read_input_tokens,
            other.speed if other.speed is not None else self.speed,
        )

    @property
    def context_tokens(self) -> int:
        """How much of the context window the answer used: everything it read, and what it
        wrote (the usage of one answer; a sum of several means nothing here)."""
        return (
            self.input_tokens
            + self.cache_creation_input_tokens
            + self.cache_read_input_tokens
            + self.output_tokens
        )
