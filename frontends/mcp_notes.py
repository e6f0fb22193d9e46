"""What every frontend says of a project's MCP server the user has not approved: one wording
for ``legato -p``, the interactive session, ``legato mcp list`` and ``legato doctor``."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from actors.counts import counted
from actors.visible import escape_controls

if TYPE_CHECKING:
    from actors.protocol import McpServer

MCP_FILE = ".mcp.json"  # as actors/memory_store/mcp_servers.py reads it


def is_project_server(server: McpServer) -> bool:
    """Whether the project's .mcp.json declares it (the global config's need no approval)."""
    return os.path.basename(server.source) == MCP_FILE


def approve_remedy(name: str) -> str:
    return f"Read what it runs with 'legato mcp list', then approve it: 'legato mcp approve {name}'"


def not_started(name: str, source: str) -> str:
    """One line: the server, its file, and the remedy."""
    return (
        f"MCP server '{name}' ({source}) is not approved, so it was not started. "
        f"{approve_remedy(name)}"
    )


# A failed server's error can carry the tail of its stderr: shown, but never a screenful.
ERROR_LINES = 8
ERROR_WIDTH = 200


def error_lines(error: str | None, indent: str) -> list[str]:
    """A failure's reason, indented under its server, at most ERROR_LINES lines (the last
    ones, where a traceback says what went wrong) of at most ERROR_WIDTH characters."""
    lines = [line.rstrip() for line in (error or "no reason given").splitlines() if line.strip()]
    if len(lines) > ERROR_LINES:
        lines = [
            lines[0],
            f"... ({counted(len(lines) - ERROR_LINES + 1, 'line')} left out)",
            *lines[2 - ERROR_LINES :],
        ]
    # A program's stderr, its control characters shown rather than obeyed.
    return [
        indent
        + escape_controls(line if len(line) <= ERROR_WIDTH else line[: ERROR_WIDTH - 1] + "…")
        for line in lines
    ]
