"""The MCP client: the user's MCP servers as the session's ``mcp__<server>__<tool>`` tools.

Backends: the ``mcp`` SDK is written against anyio and runs unchanged under trio (Legato's
headless backend) and asyncio (the terminal's); nothing had to be bridged. Its stdio transport
starts each server in a session of its own and ends the whole process group when the transport
is left, also under cancellation, so the actor relies on that rather than on a process owner of
its own.
"""

from __future__ import annotations

from actors.mcp_client.actor import McpClient

__all__ = ["McpClient"]
