"""Compaction: older turns replaced by a summary, the task ledger re-injected beside it.

Near the window's limit (or on ``/compact``) the conductor asks the model itself, through the
model client, to summarise the older part of the conversation. The compacted conversation is
one user message holding the summary and the ledger, verbatim, then the recent turns as they
were. The cut is made before an assistant message so every tool call kept still has its
results right after it, and the roles still alternate.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import msgspec

from actors.conductor import media_size
from actors.conductor.ledger import render
from actors.errors import SessionError
from actors.media import images
from actors.protocol import (
    COMPACTED_HEADER,
    Message,
    MessageFinished,
    ModelRequest,
    StreamMessage,
)
from actors.reasoning import without_unthought_turn

if TYPE_CHECKING:
    from actors.protocol import Block, ModelClientMsg, TaskLedger, Usage
    from runtime import Address

COMPACT_AT = 0.8  # of the window: room is left for the next answer and its tool results
KEEP_MESSAGES = 4  # recent messages kept as they are
SUMMARY_MAX_TOKENS = 4096
# An image the API has scaled to its limit (about 1.15 megapixels), for an image whose size
# cannot be read; a PDF page as text plus the page's image.
IMAGE_TOKENS = 1600
PAGE_TOKENS = 2000

SUMMARY_INSTRUCTION = """\
The conversation above is about to be compacted to save context. Write a summary that lets \
you carry on the task without it. Do not call any tools. Answer in exactly these three \
sections, each item on its own line starting with "- ":
## Summary
(what was done and found, the state of the work, facts you will need: names, paths, errors)
## Decisions
(choices made and why, one per line)
## Open steps
(what remains to do, in order)"""

_SECTION = re.compile(r"^#+\s*(summary|decisions|open steps)\s*$", re.IGNORECASE | re.MULTILINE)


class Summary(msgspec.Struct, frozen=True):
    text: str
    decisions: list[str]
    open_steps: list[str]


def needs_compaction(context_tokens: int, window: int) -> bool:
    return context_tokens >= COMPACT_AT * window


def split_point(messages: list[Message], keep: int = KEEP_MESSAGES) -> int | None:
    """Index of the first message kept: an assistant message, with something before it to
    summarise; None when the conversation is too short to compact."""
    start = max(1, len(messages) - keep)
    for index in range(start, len(messages)):
        if messages[index].role == "assistant":
            return index
    for index in range(start - 1, 0, -1):  # a long last turn: cut further back instead
        if messages[index].role == "assistant":
            return index
    return None


def summary_request(base: ModelRequest, older: list[Message], ledger: TaskLedger) -> ModelRequest:
    """The request asking for the summary: the same model, system and tools (so the prefix is
    read from the prompt cache), the older messages, then the instruction."""
    ask: list[Block] = [
        {"type": "text", "text": f"{render(ledger)}\n\n{SUMMARY_INSTRUCTION}"},
    ]
    messages = list(older)
    if messages and messages[-1].role == "user":
        last = messages.pop()
        ask = [*last.content, *ask]
    messages.append(Message("user", ask))
    # The older part may end in tool results of a turn that did not think (thinking came on
    # later), which the API takes only without thinking.
    thinking = without_unthought_turn(base.thinking, messages)
    room = SUMMARY_MAX_TOKENS
    if thinking is not None and thinking.get("type") == "enabled":
        room += thinking["budget_tokens"]  # the thinking budget must stay below max_tokens
    return msgspec.structs.replace(
        base,
        messages=messages,
        thinking=thinking,
        max_tokens=min(base.max_tokens, room),
        speed=None,
    )


def parse_summary(text: str) -> Summary:
    """The model's answer split into its sections; an answer without them is all summary."""
    sections: dict[str, str] = {}
    matches = list(_SECTION.finditer(text))
    for number, match in enumerate(matches):
        end = matches[number + 1].start() if number + 1 < len(matches) else len(text)
        sections[match.group(1).lower()] = text[match.end() : end].strip()
    if not matches:
        return Summary(text.strip(), [], [])
    return Summary(
        sections.get("summary", "").strip(),
        _items(sections.get("decisions", "")),
        _items(sections.get("open steps", "")),
    )


def compacted(summary: str, ledger: TaskLedger, kept: list[Message]) -> list[Message]:
    """The new conversation: summary and ledger, then the kept turns."""
    head: list[Block] = [
        {"type": "text", "text": f"{COMPACTED_HEADER}\n{summary or '(no summary)'}"},
        {"type": "text", "text": render(ledger)},
    ]
    if kept and kept[0].role == "user":
        return [Message("user", [*head, *kept[0].content]), *kept[1:]]
    return [Message("user", head), *kept]


def estimate_tokens(messages: list[Message]) -> int:
    """A rough count for a conversation no answer has measured yet: about 4 bytes a token of
    its text, and each image and document by what the model is billed for it (its base64 is
    far longer than its tokens, so counting bytes would compact far too soon)."""
    found = media_blocks(messages)
    encoded = sum(len(_data(block)) for block in found)
    return (len(msgspec.json.encode(messages)) - encoded) // 4 + sum(map(media_tokens, found))


def media_note(older: list[Message]) -> str:
    """A line for the summary when the summarised turns held images or documents: the model
    then knows they were there, though it no longer sees them."""
    found = media_blocks(older)
    pictures = sum(1 for block in found if block.get("type") == "image")
    documents = len(found) - pictures
    parts = [
        f"{n} {word}{'s' if n > 1 else ''}"
        for n, word in ((pictures, "image"), (documents, "PDF document"))
        if n
    ]
    if not parts:
        return ""
    return (
        f"\n(The summarised part of the conversation held {' and '.join(parts)}; they are no "
        "longer attached: ask for them again, or read the file, to see them.)"
    )


def media_blocks(messages: list[Message]) -> list[Block]:
    """The image and document blocks of ``messages``, also those inside tool results."""
    found: list[Block] = []
    for message in messages:
        for block in message.content:
            inner = block.get("content") if block.get("type") == "tool_result" else None
            for part in inner if isinstance(inner, list) else [block]:
                if isinstance(part, dict) and part.get("type") in ("image", "document"):
                    found.append(part)
    return found


def media_tokens(block: Block) -> int:
    """What the model is billed for an image or a document block, about: an image by its
    size (read from its header), a PDF by its pages; a conservative figure when unknown."""
    data = _data(block)
    if block.get("type") == "image":
        size = media_size.image_size(data)
        return images.tokens_for(*size) if size else IMAGE_TOKENS
    return max(1, media_size.pdf_page_count(data)) * PAGE_TOKENS


def _data(block: Block) -> str:
    source = block.get("source")
    data = source.get("data") if isinstance(source, dict) else None
    return data if isinstance(data, str) else ""


def _items(section: str) -> list[str]:
    items = []
    for line in section.splitlines():
        item = line.strip().removeprefix("- ").removeprefix("* ").strip()
        if item and item.lower() not in ("(none)", "none"):
            items.append(item)
    return items


async def summarise(model: Address[ModelClientMsg], request: ModelRequest) -> tuple[Summary, Usage]:
    """Ask the model for the summary; its answer is not shown, only what it says is kept."""
    finished: MessageFinished | None = None
    async with model.stream(StreamMessage(request=request)) as events:
        async for event in events:
            if isinstance(event, MessageFinished):
                finished = event
    if finished is None:
        raise SessionError("the model's summary for compaction ended without its final event")
    text = "".join(b.get("text", "") for b in finished.message.content if b.get("type") == "text")
    return parse_summary(text), finished.usage
