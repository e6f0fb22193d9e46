"""The MCP client: the user's MCP servers as the session's ``mcp__<server>__<tool>`` tools.

Backends: the ``mcp`` SDK is written against anyio and runs unchanged under trio (Legato's
headless backend) and asyncio (the terminal's); the tests run the reference servers on both, and
nothing had to be bridged. Legato uses the SDK's ``ClientSession`` and its Streamable HTTP
transport, but starts stdio servers itself (``stdio.py``): the SDK's stdio transport leaves a
server's children running when the server exits as its stdin closes.

Not here yet: where the servers come from (``.mcp.json``), offering their tools to the model
beside the built-in ones, and asking the permission broker before a call.
"""

from __future__ import annotations

from actors.mcp_client.actor import McpClient

__all__ = ["McpClient"]
