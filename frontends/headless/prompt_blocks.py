"""The image and document blocks of a prompt a program sent (the Agent SDK, stream-json),
checked before they reach the model.

A base64 image is decoded and made ready by ``actors.media.images.prepare`` (proved whole,
scaled to the API's limits), as an image Read from a file is; a base64 document must be a PDF
within the API's size. A ``url`` source is passed on as is, for the API to fetch: Legato
fetches nothing for it (fetching is WebFetch's, under its own rules). A bad block is left out
with a note naming it; the rest of the prompt still goes.
"""

from __future__ import annotations

import base64
import binascii
from typing import TYPE_CHECKING, Any

from actors.errors import MediaUnreadable
from actors.media import images, pdf

if TYPE_CHECKING:
    from actors.protocol import Block


def media_block(block: dict[str, Any], number: int) -> tuple[Block | None, str]:
    """The block as it goes to the model, or None and why it was left out. ``number`` counts
    the content's blocks from 1, to name the bad one."""
    kind = block.get("type")
    name = f"{kind} block {number}"
    source = block.get("source")
    if not isinstance(source, dict):
        return None, f"the {name} was left out: it has no 'source' object"
    origin = source.get("type")
    if origin == "url":
        url = source.get("url")
        if not isinstance(url, str) or not url.startswith(("https://", "http://")):
            return None, f"the {name} was left out: its 'source.url' must be an http(s) URL"
        return {"type": kind, "source": {"type": "url", "url": url}}, ""
    if origin != "base64":
        said = f"its source type {str(origin)[:20]!r} is not 'base64' or 'url'"
        return None, f"the {name} was left out: {said}"
    encoded = source.get("data")
    if not isinstance(encoded, str):
        return None, f"the {name} was left out: its 'source.data' must be a base64 string"
    # Bounded before decoding: the API takes no larger document, and an image this large
    # would be scaled down to a fraction of it anyway.
    if len(encoded) > pdf.MAX_BYTES * 4 // 3 + 4:
        return None, f"the {name} was left out: it is over {pdf.MAX_BYTES // 2**20} MB"
    try:
        data = base64.b64decode(encoded, validate=True)
    except (binascii.Error, ValueError):
        return None, f"the {name} was left out: its 'source.data' is not valid base64"
    if kind == "document":
        if not pdf.is_pdf(data[:1024]):
            return None, f"the {name} was left out: Legato sends PDF documents only"
        return {
            "type": "document",
            "source": {"type": "base64", "media_type": "application/pdf", "data": encoded},
        }, ""
    try:
        return images.prepare(data, name=f"the {name}").block, ""
    except MediaUnreadable as error:
        return None, f"{error.message}; it was left out ({error.remedy})"
