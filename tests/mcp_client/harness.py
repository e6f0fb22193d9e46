"""Starting an MCP client actor on real servers, and watching their processes from outside."""

from __future__ import annotations

import os
import sys
from contextlib import asynccontextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio

from actors.mcp_client import McpClient
from actors.protocol import CallMcpTool, ListMcpServers, McpServer, McpServerStatus
from runtime import supervise

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from actors.protocol import McpClientMsg, McpToolResult
    from runtime import Address

HERE = Path(__file__).parent
PYTHON = sys.executable


def python(name: str, *args: str) -> McpServer:
    """A stdio server run by the venv's Python: a module (``-m ...``) or a script."""
    return McpServer(name=name, transport="stdio", source="test", command=PYTHON, args=args)


TIME = python("time", "-m", "mcp_server_time", "--local-timezone", "UTC")
GIT = python("git", "-m", "mcp_server_git")
TOY = python("toy", str(HERE / "toy_server.py"))


@asynccontextmanager
async def running(*servers: McpServer, **options: Any) -> AsyncIterator[Client]:
    actor = McpClient(servers, **options)
    async with supervise([actor]):
        yield Client(actor.address)


class Client:
    def __init__(self, address: Address[McpClientMsg]) -> None:
        self.address = address
        self._ids = 0

    async def call(self, name: str, call_id: str | None = None, **arguments: Any) -> McpToolResult:
        self._ids += 1
        request = CallMcpTool(id=call_id or f"call{self._ids}", name=name, arguments=arguments)
        return await self.address.ask(request)

    async def status(self, name: str) -> McpServerStatus:
        statuses = await self.address.ask(ListMcpServers())
        return next(status for status in statuses if status.name == name)


def text(result: McpToolResult) -> str:
    return "\n".join(block["text"] for block in result.content if block["type"] == "text")


def children(marker: str, parent: int | None = None) -> list[int]:
    """The live children of ``parent`` (this process) whose command line holds ``marker``."""
    parent = os.getpid() if parent is None else parent
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit() and _parent(int(entry)) == parent:
            cmdline = _read(int(entry), "cmdline").replace("\0", " ")
            if marker in cmdline and alive(int(entry)):
                found.append(int(entry))
    return found


def alive(pid: int) -> bool:
    """Whether ``pid`` runs: a zombie has ended, and a pid that is gone from /proc too."""
    stat = _read(pid, "stat")
    return bool(stat) and stat.rsplit(")", 1)[1].split()[0] != "Z"


async def started(marker: str, parent: int | None = None) -> int:
    """The pid of the one child of ``parent`` (this process) whose command line holds
    ``marker``, once it has started."""
    with anyio.fail_after(20):
        # A process outside says nothing when it starts: /proc is asked until it is there.
        while not (found := children(marker, parent)):  # noqa: ASYNC110
            await anyio.sleep(0.01)
    (pid,) = found
    return pid


async def still_alive(pids: list[int]) -> list[int]:
    """Those of ``pids`` still running after a moment's grace: a SIGKILL is delivered when the
    process next runs, which a loaded machine may put off for a while."""
    with anyio.move_on_after(5):
        while any(alive(pid) for pid in pids):  # noqa: ASYNC110
            await anyio.sleep(0.01)
    return [pid for pid in pids if alive(pid)]


async def wait_for(path: Path) -> None:
    """Until a server's tool has created ``path`` (the server's own signal that it got there)."""
    with anyio.fail_after(20):
        while not await anyio.Path(path).exists():  # noqa: ASYNC110
            await anyio.sleep(0.01)


def _parent(pid: int) -> int:
    stat = _read(pid, "stat")
    return int(stat.rsplit(")", 1)[1].split()[1]) if stat else -1


def _read(pid: int, name: str) -> str:
    try:
        return Path(f"/proc/{pid}/{name}").read_text(errors="replace")
    except OSError:
        return ""
