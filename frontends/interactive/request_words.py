"""A permission request in words: the header that says what it wants, and what it is about.

The question's first line and its one-line summary in the live part both read these. What
they show comes from the model or the repository, so it is escaped before it reaches the
terminal.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from actors.visible import call_target, escape_controls, shown_for_approval

if TYPE_CHECKING:
    from actors.protocol import PermissionRequest

HEADERS = {
    "read": "Read file",
    "write": "Write file",
    "create": "Create file",
    "run": "Run command",
    "call": "Call MCP tool",
    "fetch": "Fetch",
    "search": "Search the web for",
}


def request_header(request: PermissionRequest) -> str:
    # A search walks a folder: asking to "read file" src/ would misname what is read.
    return "Read folder" if request.kind == "read" and request.folder else HEADERS[request.kind]


def request_target(request: PermissionRequest) -> str:
    """What a question is about: the command, the paths, or the MCP tool and its server."""
    if request.kind == "call":
        return call_target(request)
    # A URL and a query come from the model, which may have read them on a hostile page.
    if request.kind == "fetch":
        return escape_controls(request.url or "", newlines=True)
    if request.kind == "search":
        query = (request.arguments or {}).get("query")
        return f"'{escape_controls(query if isinstance(query, str) else '', newlines=True)}'"
    # A file's name comes from the repository or the model, a command from the model: neither
    # may reach the terminal as control sequences.
    if request.kind == "run":
        return shown_for_approval(request.command or "")
    paths = [p.rstrip("/") + "/" for p in request.paths] if request.folder else request.paths
    return escape_controls(", ".join(paths), newlines=True)
