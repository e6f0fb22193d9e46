"""An MCP tool's result as Messages API content blocks, kept within a size cap.

Text and images become ``text`` and ``image`` blocks; what the Messages API has no block for
(audio, resource links, embedded resources) is described in a line of text, and an embedded text
resource keeps its text. A cap, in characters, bounds the blocks together: text past it is cut
with a note saying how much, and an image that does not fit is replaced by a note, since half an
image is no image. Structured content has a cap of its own (as JSON), since the specification
asks a server to send it as text too, and whoever passes the result on will pick one of the two.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from actors.protocol import McpToolResult

if TYPE_CHECKING:
    import mcp_types as types

    from actors.protocol import Block


def convert(result: types.CallToolResult, cap: int) -> McpToolResult:
    room = cap
    blocks: list[Block] = []
    for item in result.content:
        block = _block(item)
        size = _size(block)
        if size <= room:
            blocks.append(block)
            room -= size
        elif block["type"] == "text" and room > 0:
            text = block["text"]
            blocks.append(_text(f"{text[:room]}\n... [{len(text) - room} characters omitted]"))
            room = 0
        else:
            blocks.append(_text(f"[{_kind(item)} omitted: over the {cap}-character output cap]"))
    structured = result.structured_content
    if structured is not None and len(json.dumps(structured)) > cap:
        structured = None
        blocks.append(_text("[structured content omitted: over the output cap]"))
    return McpToolResult(content=tuple(blocks), structured=structured, is_error=result.is_error)


def failure(text: str) -> McpToolResult:
    return McpToolResult(content=(_text(text),), is_error=True)


def _block(item: Any) -> Block:
    import mcp_types as types  # deferred, as in actor.py

    match item:
        case types.TextContent(text=text):
            return _text(text)
        case types.ImageContent(data=data, mime_type=mime):
            return {"type": "image", "source": {"type": "base64", "media_type": mime, "data": data}}
        case types.EmbeddedResource(resource=types.TextResourceContents(uri=uri, text=text)):
            return _text(f"[resource {uri}]\n{text}")
        case types.EmbeddedResource(resource=resource):
            return _text(
                f"[binary resource {resource.uri} ({resource.mime_type or 'unknown type'})]"
            )
        case types.ResourceLink(uri=uri, name=name):
            return _text(f"[resource link {name}: {uri}]")
        case types.AudioContent(mime_type=mime):
            return _text(f"[audio ({mime}) not shown: the model takes no audio]")
    return _text(f"[content of type {getattr(item, 'type', '?')} not shown]")


def _text(text: str) -> Block:
    return {"type": "text", "text": text}


def _size(block: Block) -> int:
    if block["type"] == "image":
        return len(block["source"]["data"])
    return len(block["text"])


def _kind(item: Any) -> str:
    return "image" if getattr(item, "type", None) == "image" else "content"
