"""The MCP client actor: the session's MCP servers, their tools, and the calls to them.

One actor owns every server, one task each (``Connection.run``), rather than one actor per
server. The servers come from the configuration when the session starts, and the supervisor
starts a fixed list of actors in order; a failing server must fail its own calls, never the
session, which an actor's crash would do; and the conductor and the broker want one address
that answers "which MCP tools are there" across servers. The actor is concurrent, so a slow call
to one server holds up neither the listing nor calls to the others.

The servers are the configuration's (``GetContext``, when the actor is given the memory store)
or a list given to it. A server the user has not approved (a project's, see docs/mcp.md) is
listed as ``unapproved`` and starts only on ``ApproveMcpServers``.

``on_start`` only reads the configuration and starts a task; that task imports the SDK and starts
the connections. The SDK (pydantic, httpx2, the protocol's types) takes most of a second to
import, and the supervisor waits for each ``on_start`` before it starts the next actor: imported
there, it held up the conductor and so the first request. It is imported in a worker thread, so
the other actors start and the first request goes out meanwhile; until the import is done the
approved servers are listed as connecting, as they are. A server that takes seconds to start (or
never answers) delays nothing else either. The actor's stop ends every connection, and each
one's process.
"""

from __future__ import annotations

import importlib
import logging
from typing import TYPE_CHECKING, Any

import anyio

from actors.errors import McpServerFailed
from actors.mcp_client import results
from actors.protocol import (
    ApproveMcpServers,
    CallMcpTool,
    GetContext,
    InterruptMcpCalls,
    ListMcpServers,
    ListMcpTools,
    McpClientMsg,
    McpServerStatus,
    McpToolListing,
)
from runtime import Actor

if TYPE_CHECKING:
    from collections.abc import Sequence

    from actors.mcp_client.connection import Connection
    from actors.protocol import McpServer, McpToolResult, MemoryStoreMsg
    from runtime import Address, Reply

# What one call may return, in characters (an image's base64 counts in full).
DEFAULT_OUTPUT_CAP = 25_000
# How long a server may take from its start to its tool list.
DEFAULT_START_TIMEOUT = 30.0
# The module that imports the SDK; importing this package imports none of it.
CONNECTION_MODULE = "actors.mcp_client.connection"


def import_sdk() -> None:
    """Import the SDK (run in a worker thread; replaced by a test to hold the import)."""
    importlib.import_module(CONNECTION_MODULE)


class McpClient(Actor[McpClientMsg]):
    name = "mcp_client"
    concurrent = True

    def __init__(
        self,
        servers: Sequence[McpServer] = (),
        *,
        memory: Address[MemoryStoreMsg]
        | None = None,  # the configuration's servers, not ``servers``
        cwd: str | None = None,  # where stdio servers start; None: Legato's own directory
        start_timeout: float = DEFAULT_START_TIMEOUT,
        output_cap: int = DEFAULT_OUTPUT_CAP,
    ) -> None:
        super().__init__()
        self._memory = memory
        self._servers = tuple(servers)
        self._cwd = cwd
        self._start_timeout = start_timeout
        self._connections: list[Connection] = []
        self._output_cap = output_cap
        self._calls: dict[str, anyio.CancelScope] = {}
        # Made in on_start, in the event loop (the actor is made before it runs):
        self._loaded: anyio.Event  # set once the connections exist (or never will)
        self._loading: anyio.CancelScope | None = None  # the import's and the connections' start
        # The SDK logs a server's stray output and its own teardown at warning level; with no
        # handler configured Python would print that on the user's terminal.
        for logger in ("mcp", "client"):
            logging.getLogger(logger).addHandler(logging.NullHandler())

    async def on_start(self) -> None:
        self._loaded = anyio.Event()
        self._loading = anyio.CancelScope()
        if self._memory is not None:
            self._servers = (await self._memory.ask(GetContext())).mcp_servers
        if not self._servers:
            self._loaded.set()  # a session with no MCP server never imports the SDK
            return
        self.tasks.start_soon(self._load)

    async def _load(self) -> None:
        try:
            assert self._loading is not None  # made in on_start, before this task starts
            with self._loading:
                # Abandoned when the actor stops first: the thread finishes the import unwatched.
                await anyio.to_thread.run_sync(import_sdk, abandon_on_cancel=True)
                from actors.mcp_client.connection import Connection

                self._connections = [
                    Connection(launch, start_timeout=self._start_timeout, cwd=self._cwd)
                    for launch in self._servers
                ]
                for connection in self._connections:
                    if connection.state == "connecting":
                        connection.start(self.tasks)
        finally:
            self._loaded.set()

    def close_inbox(self) -> None:
        # The connections are the actor's tasks that never end by themselves.
        super().close_inbox()
        if self._loading is not None:
            self._loading.cancel()
        for connection in self._connections:
            connection.stop()

    async def on_stop(self) -> None:
        for connection in self._connections:
            connection.stop()  # also when the actor ends without its inbox closed (a crash)

    async def handle(self, msg: McpClientMsg, reply: Reply) -> None:
        match msg:
            case ListMcpServers():
                await self._loaded.wait()  # bounded: the import takes about a second
                await reply.answer(msg, self._statuses(self._connections))
            case ListMcpTools(wait=False) if not self._loaded.is_set():
                # The SDK is still importing: no tool is known, and every approved server is
                # still to start. Never waited for, so no request waits on the import.
                starting = tuple(s.name for s in self._servers if s.approved)
                await reply.answer(msg, McpToolListing(tools=(), connecting=starting))
            case ListMcpTools(wait=wait):
                if wait:
                    await self._loaded.wait()
                    async with anyio.create_task_group() as waits:
                        for connection in self._connections:
                            waits.start_soon(connection.settle)
                tools = tuple(tool for c in self._connections for tool in c.listing())
                connecting = tuple(
                    c.launch.name for c in self._connections if c.state == "connecting"
                )
                await reply.answer(msg, McpToolListing(tools=tools, connecting=connecting))
            case ApproveMcpServers(names=names):
                await self._loaded.wait()
                chosen = [c for c in self._connections if c.launch.name in names]
                for connection in chosen:
                    if connection.state == "unapproved":
                        connection.start(self.tasks)
                await reply.answer(msg, self._statuses(chosen))
            case CallMcpTool(id=call_id, name=name, arguments=arguments):
                await reply.answer(msg, await self._call(call_id, name, arguments))
            case InterruptMcpCalls(ids=ids):
                for call_id in ids:
                    if (scope := self._calls.get(call_id)) is not None:
                        scope.cancel()

    @staticmethod
    def _statuses(connections: Sequence[Connection]) -> tuple[McpServerStatus, ...]:
        return tuple(
            McpServerStatus(
                name=c.launch.name,
                state=c.state,
                source=c.launch.source,
                transport=c.launch.transport,
                tools=len(c.tools),
                error=c.error,
                restarts=c.restarts,
            )
            for c in connections
        )

    async def _call(self, call_id: str, name: str, arguments: dict[str, Any]) -> McpToolResult:
        with anyio.CancelScope() as scope:
            self._calls[call_id] = scope
            try:
                await self._loaded.wait()
                # The longest prefix: a server named "a" must not take the calls of one named
                # "a__b".
                offering = [c for c in self._connections if name.startswith(c.prefix)]
                if not offering:
                    return results.failure(f"No MCP server offers {name!r}")
                connection = max(offering, key=lambda c: len(c.prefix))
                return await connection.call(name, arguments, self._output_cap, self.tasks)
            except McpServerFailed as exc:
                return results.failure(exc.describe())
            finally:
                self._calls.pop(call_id, None)
        return results.failure(f"Interrupted: the call to {name} was stopped before it finished")
