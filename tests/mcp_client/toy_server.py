"""A stdio MCP server for the tests, with the misbehaviour the reference servers lack: a tool that
crashes the server, one that never returns, one that starts a child process.

Run as ``python toy_server.py [--garbage]``; ``--garbage`` writes a line that is not JSON-RPC on
stdout before anything else, as a server that prints its banner there would. ``--padding N``
adds N tools with long descriptions (a server whose definitions are large); ``--wait-for FILE``
waits for FILE to exist before it serves (a server slow to start). With
``--http PORT`` it serves Streamable HTTP on 127.0.0.1:PORT at /mcp instead of stdio, with
``--sse PORT`` the older HTTP+SSE transport at /sse.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

import anyio
from mcp.server.mcpserver import Image, MCPServer

server = MCPServer("toy")


@server.tool()
def pid() -> int:
    """The server's process id."""
    return os.getpid()


@server.tool()
def crash() -> str:
    """Write a line on stderr and end the process at once, mid-call."""
    print("toy server: about to crash", file=sys.stderr, flush=True)
    os._exit(3)


@server.tool()
async def hang(started: str) -> str:
    """Create the file ``started``, then never return; create ``started``.cancelled once the
    client cancels the call."""
    await anyio.Path(started).write_text("started")
    try:
        await anyio.sleep_forever()
    finally:
        with anyio.CancelScope(shield=True):
            await anyio.Path(f"{started}.cancelled").write_text("cancelled")
    return "unreachable"


@server.tool()
def spawn() -> int:
    """Start a long sleep in the server's process group and return its pid."""
    return subprocess.Popen(["sleep", "1000"]).pid


@server.tool()
def shout(text: str, times: int) -> str:
    """``text`` repeated ``times`` times."""
    return text * times


# A PNG of one red pixel.
PIXEL = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d4944415478da63f8cfc0f01f0005000201a5d9b3d90000000049454e44ae426082"
)


@server.tool()
def picture() -> Image:
    """One red pixel, as a PNG image."""
    return Image(data=PIXEL, format="png")


def _pad(count: int) -> None:
    def make(number: int) -> None:
        def tool(value: str) -> str:
            return f"padding tool {number} got {value}"

        words = " ".join(f"word{number}x{k}" for k in range(60))
        server.add_tool(tool, name=f"padding_{number}", description=f"Padding {number}: {words}")

    for number in range(count):
        make(number)


if __name__ == "__main__":
    if "--padding" in sys.argv:
        _pad(int(sys.argv[sys.argv.index("--padding") + 1]))
    if "--wait-for" in sys.argv:
        waited = sys.argv[sys.argv.index("--wait-for") + 1]
        while not os.path.exists(waited):
            time.sleep(0.01)
    if "--garbage" in sys.argv:
        print("toy server ready!", flush=True)
    if "--http" in sys.argv:
        port = int(sys.argv[sys.argv.index("--http") + 1])
        server.run("streamable-http", host="127.0.0.1", port=port)
    elif "--sse" in sys.argv:
        port = int(sys.argv[sys.argv.index("--sse") + 1])
        server.run("sse", host="127.0.0.1", port=port)
    else:
        server.run()
