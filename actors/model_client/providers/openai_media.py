"""Images and PDFs for an OpenAI-compatible server: an image as an ``image_url`` part of a user
message (a data URL, which vision models behind such servers take), a PDF as its pages' text,
since chat completions have no document part.

A tool message holds only text there, so the images a tool gave (a Read of a screenshot) go in
a user message right after the tool messages, each introduced by the call it came from.
"""

from __future__ import annotations

import base64
import binascii
import functools
from typing import TYPE_CHECKING, Any

from actors.errors import MediaUnreadable

if TYPE_CHECKING:
    from actors.protocol import Block


def image_part(block: Block) -> dict[str, Any] | None:
    """An image block as a chat ``image_url`` part; None for a block of another source."""
    source = block.get("source") or {}
    if source.get("type") == "base64":
        url = f"data:{source.get('media_type', 'image/png')};base64,{source.get('data', '')}"
    elif source.get("type") == "url":
        url = str(source.get("url", ""))
    else:
        return None
    return {"type": "image_url", "image_url": {"url": url}}


def document_text(block: Block) -> str:
    """A document block as the text of its pages, for a model that reads no PDFs."""
    source = block.get("source") or {}
    if source.get("type") == "text":
        return str(source.get("data", ""))
    if source.get("type") != "base64":
        return "(A document was left out: this provider takes only text and images.)"
    try:
        return _pages(str(source.get("data", "")))
    except binascii.Error:
        return "(A PDF was left out: its data is not valid base64.)"
    except MediaUnreadable as error:
        return f"({error.message.rstrip('.')}.)"


# The conversation is converted again for every request: a PDF's text is extracted once (a
# failure is not kept, so a PDF left out while another was read is tried again next time).
@functools.lru_cache(maxsize=8)
def _pages(data: str) -> str:
    from actors.media import pdf

    # This runs on the event loop: it waits only briefly for a PDF a cancelled Read's thread
    # may still be reading.
    pages = pdf.read_pages(
        base64.b64decode(data, validate=True), name="the PDF", pages=None, documents=False, wait=2
    )
    head = f"(A PDF of {pages.total} pages, as text; pages {pages.first}-{pages.last}"
    head += f"; {pages.note})" if pages.note else ")"
    return f"{head}\n{pages.text}"


def parts(content: str | list[Block]) -> list[dict[str, Any]]:
    """Text, image and document blocks as chat content parts, in order (other blocks are the
    caller's)."""
    if isinstance(content, str):
        return [{"type": "text", "text": content}] if content else []
    out: list[dict[str, Any]] = []
    for block in content:
        kind = block.get("type")
        if kind == "text" and block.get("text"):
            out.append({"type": "text", "text": block["text"]})
        elif kind == "image" and (part := image_part(block)) is not None:
            out.append(part)
        elif kind == "document":
            out.append({"type": "text", "text": document_text(block)})
    return out


def joined_text(content_parts: list[dict[str, Any]]) -> str:
    return "\n".join(part["text"] for part in content_parts if part["type"] == "text")
