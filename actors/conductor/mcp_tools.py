"""Which MCP tools each request offers the model, and ``ToolSearch``, which loads the others.

Tool definitions are part of every request's fixed prefix: each one costs its tokens on every
turn, called or not. Before each answer the conductor asks the MCP client which tools are ready
(``refresh``) and offers them:

- all of them, when their definitions together stay within ``BUDGET_SHARE`` of the context
  window (estimated at four bytes of JSON a token, as compaction does);
- past that, none up front: ``ToolSearch`` is offered instead, the model searches by keywords or
  names the tools it wants (``select:a,b``), and those found are offered from the next answer on,
  for the rest of the session. This is what the reference assistant does past the same budget.

Servers still starting never delay a request. While any is, ``ToolSearch`` is offered too and
says which: a search waits for them (bounded by each server's start timeout), then answers, so
a prompt's first answer streams while servers connect and can still reach their tools.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import msgspec

from actors.counts import counted
from actors.protocol import ListMcpTools, McpToolListing, ToolResult
from actors.settings.rule_check import mcp_tool_removed
from actors.tool_names import TOOL_SEARCH
from actors.tool_routes import route

if TYPE_CHECKING:
    from actors.protocol import Block, McpClientMsg, McpTool, ToolCall
    from runtime import Address

BUDGET_SHARE = 0.10  # of the context window, for every MCP tool definition together
BYTES_PER_TOKEN = 4
DEFAULT_RESULTS = 5
MAX_RESULTS = 20
_WORD = re.compile(r"[a-z0-9]+")


def definition(tool: McpTool) -> Block:
    return {"name": tool.name, "description": tool.description, "input_schema": tool.input_schema}


def search_definition(listing: McpToolListing, deferred: int) -> Block:
    parts = ["Find and load tools of the user's MCP servers (mcp__<server>__<tool>)."]
    if deferred:
        parts.append(
            f"{deferred} MCP tools are not listed up front, to keep requests small: search for "
            "what the task needs."
        )
    if listing.connecting:
        parts.append(
            "These MCP servers are still starting and their tools are not listed yet: "
            f"{', '.join(listing.connecting)}. A search waits for them."
        )
    parts.append(
        'query: keywords matched against tool names and descriptions, or "select:<name>,<name>" '
        "for exact tool names. The tools found can be called from your next message on."
    )
    return {
        "name": TOOL_SEARCH,
        "description": " ".join(parts),
        "input_schema": {
            "type": "object",
            "properties": {
                "query": {"type": "string", "description": "keywords, or select:<name>,<name>"},
                "max_results": {
                    "type": "integer",
                    "description": f"how many tools at most (default {DEFAULT_RESULTS})",
                },
            },
            "required": ["query"],
        },
    }


class McpOffer(msgspec.Struct):
    """The MCP tools of one session's requests (see the module's docstring)."""

    client: Address[McpClientMsg]
    window: int  # the model's context window, in tokens
    listing: McpToolListing = msgspec.field(default_factory=lambda: McpToolListing(tools=()))
    # found by ToolSearch: offered from then on
    loaded: set[str] = msgspec.field(default_factory=set)
    # Bare-name deny rules that can name MCP tools (``mcp__git``): what they cover is never
    # offered nor found, as a bare deny of a built-in tool removes it.
    removed: tuple[str, ...] = ()

    async def refresh(self) -> None:
        self.listing = self._offerable(await self.client.ask(ListMcpTools()))

    def _offerable(self, listing: McpToolListing) -> McpToolListing:
        if not self.removed:
            return listing
        kept = tuple(
            tool
            for tool in listing.tools
            if not mcp_tool_removed(self.removed, tool.name, tool.server)
        )
        return msgspec.structs.replace(listing, tools=kept)

    def budget(self) -> int:
        return int(self.window * BUDGET_SHARE)

    def specs(self) -> list[Block]:
        """The definitions for the next request, after the built-in tools."""
        every = [definition(tool) for tool in self.listing.tools]
        if _tokens(every) <= self.budget():
            offered, deferred = every, 0
        else:
            offered = [d for d in every if d["name"] in self.loaded]
            deferred = len(every) - len(offered)
        if deferred or self.listing.connecting:
            offered = [*offered, search_definition(self.listing, deferred)]
        return offered

    async def search(self, call: ToolCall) -> ToolResult:
        query = call.input.get("query")
        limit = call.input.get("max_results", DEFAULT_RESULTS)
        if not isinstance(query, str) or not query.strip():
            return _error(call, 'ToolSearch needs a "query": keywords, or select:<name>,<name>.')
        if not isinstance(limit, int) or isinstance(limit, bool) or limit < 1:
            limit = DEFAULT_RESULTS
        self.listing = self._offerable(await self.client.ask(ListMcpTools(wait=True)))
        found = _matches(self.listing.tools, query.strip(), min(limit, MAX_RESULTS))
        if not found:
            names = ", ".join(tool.name for tool in self.listing.tools) or "none"
            return _error(call, f"No MCP tool matches {query!r}. The MCP tools are: {names}.")
        self.loaded.update(tool.name for tool in found)
        them = "it" if len(found) == 1 else "them"
        loaded = counted(len(found), "MCP tool")
        lines = [f"Loaded {loaded}; call {them} from your next message on:"]
        lines += [f"- {tool.name}: {_first_line(tool.description)}" for tool in found]
        return ToolResult(tool_use_id=call.id, content="\n".join(lines))


def _matches(tools: tuple[McpTool, ...], query: str, limit: int) -> list[McpTool]:
    if query.startswith("select:"):
        wanted = {name.strip() for name in query.removeprefix("select:").split(",")}
        return [tool for tool in tools if tool.name in wanted][:MAX_RESULTS]
    terms = set(_WORD.findall(query.lower()))
    scored: list[tuple[int, int, McpTool]] = []
    for order, tool in enumerate(tools):
        name_words = set(_WORD.findall(tool.name.lower()))
        text_words = set(_WORD.findall(tool.description.lower()))
        score = 2 * len(terms & name_words) + len(terms & text_words)
        if score:
            scored.append((-score, order, tool))
    return [tool for _, _, tool in sorted(scored, key=lambda s: (s[0], s[1]))[:limit]]


def _tokens(definitions: list[Block]) -> int:
    return len(msgspec.json.encode(definitions)) // BYTES_PER_TOKEN


def _first_line(text: str) -> str:
    line = text.strip().split("\n", 1)[0]
    return line if len(line) <= 200 else line[:199] + "…"


def _error(call: ToolCall, text: str) -> ToolResult:
    return ToolResult(tool_use_id=call.id, content=text, is_error=True)


def takes(call: ToolCall) -> bool:
    return route(call) == "ToolSearch"


def summary(call: ToolCall) -> str:
    query: Any = call.input.get("query", "")
    return str(query)[:120]
