"""The MCP client's inbox.

The MCP client actor runs the user's MCP servers and offers their tools as
``mcp__<server>__<tool>``; its calls answer with content blocks in the Messages API's shape.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from actors.protocol.conversation import Block
from runtime import Ask

# "unapproved": a project's server the user has not approved yet; it is not started.
McpState = Literal["connecting", "ready", "failed", "unapproved"]


class McpServerStatus(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    state: McpState
    source: str = ""  # the file that declares it
    transport: Literal["stdio", "http", "sse"] = "stdio"
    tools: int = 0  # how many tools it offers once ready
    error: str | None = None  # why it failed, with a stdio server's last lines of stderr
    restarts: bool = False  # failed after it was ready: the next call starts it again


class McpTool(msgspec.Struct, frozen=True, kw_only=True):
    name: str  # mcp__<server>__<tool>, as the model calls it
    server: str
    description: str
    input_schema: dict[str, Any]
    # The server's readOnlyHint: what it says of its tool, a hint for the broker, not a promise.
    read_only: bool = False


class McpToolResult(msgspec.Struct, frozen=True, kw_only=True):
    content: tuple[Block, ...]  # text and image blocks, within the actor's output cap
    structured: dict[str, Any] | None = None  # the tool's structuredContent, if any
    is_error: bool = False


class ListMcpServers(Ask[tuple[McpServerStatus, ...]], frozen=True, tag=True):
    """Each server's state, at once (a server still connecting says so)."""


class McpToolListing(msgspec.Struct, frozen=True, kw_only=True):
    tools: tuple[McpTool, ...]  # of the servers that are ready
    connecting: tuple[str, ...] = ()  # the servers still starting


class ListMcpTools(Ask[McpToolListing], frozen=True, tag=True):
    """The tools of the servers that are ready, and which are still connecting.

    ``wait``: first wait (bounded by each server's start timeout) for every connecting server
    to be ready or to fail."""

    wait: bool = False


class ApproveMcpServers(Ask[tuple[McpServerStatus, ...]], frozen=True, tag=True):
    """Start these unapproved servers (the user has just approved them); answers their states."""

    names: tuple[str, ...]


class CallMcpTool(Ask[McpToolResult], frozen=True, tag=True):
    """Call ``name`` (``mcp__<server>__<tool>``); a failure is an ``is_error`` result naming the
    server and the remedy. ``id`` is what ``InterruptMcpCalls`` names."""

    id: str
    name: str
    arguments: dict[str, Any]


class InterruptMcpCalls(msgspec.Struct, frozen=True, tag=True):
    """Stop these calls: each answers at once that it was interrupted."""

    ids: tuple[str, ...]


McpClientMsg = ListMcpServers | ListMcpTools | CallMcpTool | InterruptMcpCalls | ApproveMcpServers
