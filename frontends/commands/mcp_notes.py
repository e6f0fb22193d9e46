"""What every frontend says of a project's MCP server the user has not approved: one wording
for ``legato -p``, the interactive session, ``legato mcp list`` and ``legato doctor``; and what
a server runs, as its file writes it, for every approval."""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING

from actors.counts import counted
from actors.visible import escape_controls

if TYPE_CHECKING:
    from actors.protocol import McpServer

MCP_FILE = ".mcp.json"  # as actors/memory_store/mcp_servers.py reads it
# ``${VAR}`` and ``${VAR:-default}``, as actors/memory_store/mcp_servers.py expands them.
_VAR = re.compile(r"\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}")
# The longest text written beside a variable that an approval shows ("Bearer ", "https://"...):
# longer may be a token written out, and shows as "(hidden)".
SHOWN_LITERAL = 8


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


def server_target(server: McpServer) -> str:
    """What a server runs (its command and args) or reaches (its url), as its file writes
    them: ``${VAR}`` shows the variable's name, not its value. On one line, escaped."""
    written = server.written
    if server.transport == "stdio":
        parts = (
            [written.command, *written.args] if written.command else [server.command, *server.args]
        )
        return escape_controls(" ".join(parts or [""]), newlines=True)
    return escape_controls(written.url or server.url, newlines=True)


def server_value_lines(server: McpServer, indent: str) -> list[str]:
    """A line for each env variable (``TOKEN=${GITHUB_TOKEN}``) or header
    (``Authorization: Bearer ${GH_TOKEN}``): the variables its value comes from by name, while
    a value written out, which may be a token, stays hidden."""
    written = server.written
    if server.transport == "stdio":
        values, label, between = written.env or dict.fromkeys(server.env, ""), "env", "="
    else:
        values, label, between = (
            written.headers or dict.fromkeys(server.headers, ""),
            "header",
            ": ",
        )
    return [
        f"{indent}{label} {escape_controls(name, newlines=True)}{between}{shown_value(value)}"
        for name, value in values.items()
    ]


def shown_value(value: str) -> str:
    """``value`` as an approval shows it: each ``${VAR}`` by name, a short text beside one as
    written, and anything else (a value with no variable, a long text, a long default) as
    "(hidden)"."""
    if not _VAR.search(value):
        return "(value hidden)"
    shown, end = [], 0
    for match in _VAR.finditer(value):
        shown.append(_literal(value[end : match.start()]))
        name, default = match.group(1), match.group(2)
        shown.append(f"${{{name}}}" if default is None else f"${{{name}:-{_literal(default)}}}")
        end = match.end()
    shown.append(_literal(value[end:]))
    return escape_controls("".join(shown), newlines=True)


def _literal(text: str) -> str:
    return text if len(text) <= SHOWN_LITERAL else "(hidden)"
