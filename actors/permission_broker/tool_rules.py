"""Tool rules: ``allowedTools`` / ``blockedTools`` entries (actors/tool_names.py says what an
entry may be).

An entry covers a request when it is the request's tool name exactly (``Bash``,
``mcp__git__status``), or when it is ``mcp__<server>`` and the request calls a tool of that
server. Which server a tool belongs to is the request's ``server`` (the .mcp.json name), not a
prefix of the tool's name: servers ``a`` and ``a__b`` both make names that start ``mcp__a__``,
and ``mcp__a`` must not cover the tools of ``a__b``. Case counts: ``mcp__Git`` is not ``mcp__git``.

A request that calls a tool but names no server can only be matched by its name: a blocked
``mcp__<server>`` then covers every name that starts ``mcp__<server>__`` (a refusal too many
is safe), an allowed one covers nothing but its exact name.
"""

from __future__ import annotations

from dataclasses import dataclass

from actors.tool_names import MCP_PREFIX, short_name
from actors.visible import escape_controls


@dataclass(frozen=True, slots=True)
class ToolEntry:
    text: str

    def covers(self, tool: str, server: str | None, *, blocking: bool) -> bool:
        if self.text == tool:
            return True
        if not tool.startswith(MCP_PREFIX):
            return False
        if server is None:
            return blocking and tool.startswith(self.text + "__")
        whole = MCP_PREFIX + server
        return self.text == whole and tool.startswith(whole + "__")


def describe_tool(tool: str, server: str | None) -> str:
    """``'mcp__git__push' (tool 'push' of MCP server 'git')``, or ``'Bash'``; escaped, as the
    name comes from the model and the server's from a file."""
    shown = f"'{escape_controls(tool, newlines=True)}'"
    return shown if server is None else f"{shown} ({tool_of_server(tool, server)})"


def tool_of_server(tool: str, server: str) -> str:
    """``tool 'push' of MCP server 'git'`` for ``mcp__git__push``."""
    short = escape_controls(short_name(tool, server), newlines=True)
    return f"tool '{short}' of MCP server '{escape_controls(server, newlines=True)}'"
