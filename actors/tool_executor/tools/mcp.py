"""The MCP servers' tools: a call to ``mcp__<server>__<tool>`` is put to the permission broker
like a command (kind "call", naming the server and showing the arguments), then to the MCP
client, which owns the servers.

The executor knows no MCP tool in advance: the servers start while the session runs and their
tools change. ``plan_call`` asks the client which tools there are when a call arrives. A call to
a server that is still starting is planned too, and waits for it inside the client (bounded by
the server's start timeout); a name no server offers is an unknown tool, refused before anyone
is asked about it.

An interrupted call (Esc, or the turn cancelled) abandons its ask, which cancels the client's
handler: the server gets MCP's cancellation (``tests/tool_executor/test_mcp_calls.py``).
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import msgspec

from actors.protocol import CallMcpTool, ListMcpServers, ListMcpTools
from actors.tool_executor.context import Tool, ToolOutcome
from actors.visible import escape_controls

if TYPE_CHECKING:
    from actors.protocol import (
        Block,
        McpClientMsg,
        McpServerStatus,
        McpToolListing,
        McpToolResult,
        ToolCall,
    )
    from actors.tool_executor.context import CallContext
    from runtime import Address

PREFIX = "mcp__"
# The arguments shown beside a running call, in characters.
_SUMMARY = 120


class McpInput(msgspec.Struct, frozen=True):
    """A call's arguments as the model wrote them: the server checks them against its schema."""

    arguments: dict[str, Any]


def is_mcp(name: str) -> bool:
    return name.startswith(PREFIX)


async def plan_call(client: Address[McpClientMsg], call: ToolCall) -> Tool[McpInput] | str:
    """The tool for ``call`` (``mcp__<server>__<tool>``), or why there is none."""
    listing = await client.ask(ListMcpTools())
    for tool in listing.tools:
        if tool.name == call.name:
            return _tool(client, call.id, call.name, tool.server, tool.description)
    # A server still starting: its tools are not known yet. The longest prefix, so that a
    # server "a" does not take the calls of one named "a__b".
    starting = [s for s in listing.connecting if call.name.startswith(f"{PREFIX}{s}__")]
    if starting:
        server = max(starting, key=len)
        return _tool(client, call.id, call.name, server, "")
    # Not a tool of a server that is ready or starting: say why, naming the server if one
    # matches. A server that crashed after it was ready is started again by this call.
    statuses = await client.ask(ListMcpServers())
    matching = [s for s in statuses if call.name.startswith(f"{PREFIX}{s.name}__")]
    if not matching:
        known = ", ".join(tool.name for tool in listing.tools) or "none are ready"
        return f"Unknown tool {call.name!r}: no MCP server offers it. The MCP tools are: {known}."
    status = max(matching, key=lambda s: len(s.name))
    if status.restarts:
        return _tool(client, call.id, call.name, status.name, "")
    return f"{call.name} was not called: {_why_not(status, listing)}"


def _why_not(status: McpServerStatus, listing: McpToolListing) -> str:
    name = status.name
    if status.state == "unapproved":
        return (
            f"MCP server {name!r} ({status.source}) has not been approved, so it was not "
            f"started. The user can approve it with /mcp approve {name} or "
            f"`legato mcp approve {name}`."
        )
    if status.state == "failed":
        return (
            f"MCP server {name!r} is not running: {status.error}. The user can see why with "
            "/mcp or `legato doctor`; a new session starts it again."
        )
    tools = ", ".join(t.name for t in listing.tools if t.server == name) or "none"
    return f"MCP server {name!r} has no such tool (its tools: {tools})."


def _tool(
    client: Address[McpClientMsg], call_id: str, name: str, server: str, description: str
) -> Tool[McpInput]:
    async def run(args: McpInput, ctx: CallContext) -> ToolOutcome:
        await ctx.check("call", arguments=args.arguments, server=server)
        # Interrupted (Esc), the ask is abandoned and the kernel cancels the client's handler:
        # the server gets MCP's cancellation, and its late answer is dropped.
        result = await client.ask(CallMcpTool(id=call_id, name=name, arguments=args.arguments))
        return outcome(result)

    return Tool(
        name=name,
        description=description,
        input_type=McpInput,
        run=run,
        summary=lambda args, root: summary(server, name, args.arguments),
        access=lambda args, root: None,
    )


def summary(server: str, name: str, arguments: dict[str, Any]) -> str:
    """``time: get_current_time {"timezone": "UTC"}``, cut to one short line."""
    tool = name.removeprefix(f"{PREFIX}{server}__")
    shown = json.dumps(arguments, ensure_ascii=False, separators=(", ", ": "))
    if len(shown) > _SUMMARY:
        shown = shown[: _SUMMARY - 1] + "…"
    return escape_controls(f"{server}: {tool} {shown}", newlines=True)


def outcome(result: McpToolResult) -> ToolOutcome:
    """The client's blocks as a tool result: the text, and the images beside it."""
    texts = [block["text"] for block in result.content if block["type"] == "text"]
    images: tuple[Block, ...] = tuple(b for b in result.content if b["type"] == "image")
    if not texts and result.structured is not None:
        # A server that sends only structured content: the model reads it as JSON.
        texts = [json.dumps(result.structured, ensure_ascii=False)]
    text = "\n".join(texts)
    if not text and not images:
        text = "(the tool returned nothing)"
    return ToolOutcome(text, is_error=result.is_error, images=images)
