"""One MCP server: its process or HTTP session, held open by one task, and the calls to it.

The SDK's transports and ``ClientSession`` are async context managers holding task groups, so
they must be entered and left by one task: ``Connection.run`` is that task, in the actor's task
group. It starts the server, waits for ``initialize`` and the tool list (bounded by
``start_timeout``), then holds the session until the server goes away or the actor stops it.
Calls come from the actor's handler tasks and share the session, which answers requests from
any task.

How a server's end is noticed without a call: the transport's read stream is relayed through
our own, so the end of the server's stdout (or of the HTTP session) and any line that is not
JSON-RPC are seen as they happen, not when a request times out. The SDK only logs such a line
and leaves the request waiting; here it fails the server, since the specification lets a stdio
server write nothing else on stdout.

A stdio server is a process group of its own (``stdio.py``). Leaving the transport, which happens
however ``run`` ends (a stop, a crash, cancellation), closes the server's stdin, waits, then ends
the group with SIGTERM and SIGKILL, shielded and bounded.
"""

from __future__ import annotations

import contextlib
import math
import os
import re
import tempfile
from typing import IO, TYPE_CHECKING, Any

import anyio
import httpx2
import mcp_types as types
from mcp import ClientSession
from mcp.client.sse import sse_client
from mcp.client.stdio import get_default_environment
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from actors.errors import McpServerFailed
from actors.mcp_client import results
from actors.mcp_client.stdio import stdio_transport
from actors.protocol import McpTool
from actors.telemetry import trace_context

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from anyio.abc import ObjectReceiveStream, ObjectSendStream, TaskGroup

    from actors.protocol import McpServer, McpState, McpToolResult

# The last of a stdio server's stderr that a failure quotes.
STDERR_TAIL = 2000
_NAME = re.compile(r"[^A-Za-z0-9_-]")
_CLIENT = types.Implementation(name="legato", version="1")


def tool_name(server: str, tool: str) -> str:
    """``mcp__<server>__<tool>``, with what the Messages API does not allow in a tool name
    turned into ``_``."""
    return _NAME.sub("_", f"mcp__{server}__{tool}")


class Connection:
    def __init__(self, launch: McpServer, *, start_timeout: float, cwd: str | None) -> None:
        self.launch = launch
        self.prefix = tool_name(launch.name, "")
        self.state: McpState = "connecting" if launch.approved else "unapproved"
        self.error: str | None = None
        self.tools: dict[str, types.Tool] = {}  # by the name the model calls
        self._start_timeout = start_timeout
        self._cwd = cwd
        self._session: ClientSession | None = None
        self._settled = anyio.Event()  # set once the state leaves "connecting"
        self._ended = anyio.Event()  # set once ``run`` has returned, its process gone
        self._scope: anyio.CancelScope | None = None  # the running ``run``'s, to stop it
        self._closed = False
        self._restarts = 1  # a server that crashed after it was ready starts again, once
        self._crashed = False
        self._lost: str | None = None  # why the server went away, as the relay saw it
        self._stderr: IO[str] | None = None

    # -- the task that holds the connection ---------------------------------------------------

    def start(self, tasks: TaskGroup) -> None:
        self.state, self.error, self.tools = "connecting", None, {}
        self._settled = anyio.Event()
        self._ended = anyio.Event()
        self._crashed = False
        self._lost = None
        tasks.start_soon(self.run)

    @property
    def restarts(self) -> bool:
        """Whether the next call starts the server again: it crashed after it was ready, and
        has not been started again since."""
        return self.state == "failed" and self._crashed and self._restarts > 0 and not self._closed

    async def settle(self) -> None:
        """Wait until a connecting server is ready or has failed (bounded by the start
        timeout); at once for one in any other state."""
        if self.state == "connecting":
            await self._settled.wait()

    def stop(self) -> None:
        """End the connection and its process; ``run`` returns once the process is gone."""
        self._closed = True
        if self._scope is not None:
            self._scope.cancel()

    async def run(self) -> None:
        try:
            await self._run()
        finally:
            self._ended.set()  # also when cancelled from outside, for no call to wait on it

    async def _run(self) -> None:
        with anyio.CancelScope() as stop:
            self._scope = stop
            if self._closed:
                stop.cancel()
            try:
                with anyio.CancelScope(deadline=anyio.current_time() + self._start_timeout) as body:
                    await self._serve(body)
                if body.cancelled_caught:
                    if self._lost is None:
                        self._fail(f"did not finish starting within {self._start_timeout:g} s")
                    else:
                        self._fail(self._lost, crashed=self.state == "ready")
            except Exception as exc:
                self._fail(self._lost or _describe(exc), crashed=self.state == "ready")
            finally:
                self._session = None
                if self._stderr is not None:
                    self._stderr.close()
                    self._stderr = None
        if stop.cancelled_caught:
            self._fail("stopped")

    async def _serve(self, body: anyio.CancelScope) -> None:
        async with contextlib.AsyncExitStack() as stack:
            read, write = await stack.enter_async_context(self._transport())
            relays = await stack.enter_async_context(anyio.create_task_group())
            # Left before the task group: the relay waits on the transport, which closes later.
            stack.callback(relays.cancel_scope.cancel)
            ours, relayed = anyio.create_memory_object_stream[Any](0)
            stack.callback(relayed.close)  # the relay and the session close them, if they ran
            stack.callback(ours.close)
            relays.start_soon(self._relay, read, ours, body)
            session = await stack.enter_async_context(
                ClientSession(relayed, write, client_info=_CLIENT)
            )
            await session.initialize()
            tools = await _list_tools(session)
            body.deadline = math.inf
            self._session = session
            self.tools = {tool_name(self.launch.name, tool.name): tool for tool in tools}
            self.state = "ready"
            self._settled.set()
            await anyio.sleep_forever()

    @contextlib.asynccontextmanager
    async def _transport(self) -> AsyncIterator[Any]:
        launch = self.launch
        if launch.transport == "stdio":
            # A file, not a pipe: nobody has to read it while the server runs, and a failure
            # quotes its end. Closed when ``run`` ends, after the failure has quoted it.
            self._stderr = tempfile.TemporaryFile("w+", errors="replace")  # noqa: SIM115
            # Only the variables the SDK deems safe to pass on, the trace context Legato was
            # started in (what the server traces joins its caller's trace), and the server's own.
            env = get_default_environment() | trace_context(os.environ) | launch.env
            argv = [launch.command, *launch.args]
            async with stdio_transport(
                argv, env=env, cwd=self._cwd, stderr=self._stderr
            ) as streams:
                yield streams
            return
        if not launch.url:
            raise McpServerFailed("it has neither a command nor a url")
        if launch.transport == "sse":  # the older HTTP transport, still served by many
            async with sse_client(launch.url, headers=launch.headers, timeout=30.0) as streams:
                yield streams
            return
        timeout = httpx2.Timeout(30.0, read=300.0)  # a server may hold a stream open a while
        async with (
            httpx2.AsyncClient(headers=launch.headers, timeout=timeout) as http,
            streamable_http_client(launch.url, http_client=http) as streams,
        ):
            yield streams

    async def _relay(
        self,
        read: ObjectReceiveStream[Any],
        ours: ObjectSendStream[Any],
        body: anyio.CancelScope,
    ) -> None:
        async with ours:
            with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
                async for item in read:
                    if isinstance(item, Exception):
                        self._lose(f"it wrote something that is not JSON-RPC: {item}"[:300], body)
                        return
                    await ours.send(item)
        end = "exited" if self.launch.transport == "stdio" else "closed the connection"
        self._lose(f"it {end}" if self.state == "ready" else f"it {end} while starting", body)

    def _lose(self, why: str, body: anyio.CancelScope) -> None:
        if self._lost is None:
            self._lost = why
        body.cancel()

    def _fail(self, why: str, *, crashed: bool = False) -> None:
        if self.state == "failed":
            return
        tail = self._stderr_tail()
        self.error = f"{why}; its stderr ended with:\n{tail}" if tail else why
        self.state = "failed"
        self._crashed = crashed
        self.tools = {}
        self._settled.set()

    def _stderr_tail(self) -> str:
        if self._stderr is None:
            return ""
        fd = self._stderr.fileno()
        size = os.fstat(fd).st_size
        # A few kilobytes of a local file: read in place rather than in a worker thread.
        data = os.pread(fd, STDERR_TAIL, max(0, size - STDERR_TAIL))
        return data.decode("utf-8", errors="replace").strip()

    # -- calls ------------------------------------------------------------------------------------

    def listing(self) -> list[McpTool]:
        return [
            McpTool(
                name=name,
                server=self.launch.name,
                description=tool.description or "",
                input_schema=tool.input_schema,
                read_only=bool(tool.annotations and tool.annotations.read_only_hint),
            )
            for name, tool in self.tools.items()
        ]

    async def call(
        self, name: str, arguments: dict[str, Any], cap: int, tasks: TaskGroup
    ) -> McpToolResult:
        session = await self._ready(tasks)
        tool = self.tools.get(name)
        if tool is None:
            known = ", ".join(sorted(self.tools)) or "none"
            return results.failure(
                f"MCP server {self.launch.name!r} has no tool {name!r} (its tools: {known})"
            )
        try:
            result = await session.call_tool(tool.name, arguments)
        except MCPError as exc:
            if exc.code != types.CONNECTION_CLOSED:
                return results.failure(f"{tool.name} failed on MCP server: {exc.error.message}")
            # Once ``run`` has ended, the failure carries the end of the server's stderr.
            await self._ended.wait()  # bounded: every wait of the transport's end is
            raise McpServerFailed(
                f"MCP server {self.launch.name!r} went away during the call to {tool.name}: "
                f"{self.error or 'the connection closed'}"
            ) from None
        return results.convert(result, cap)

    async def _ready(self, tasks: TaskGroup) -> ClientSession:
        if self.state == "unapproved":
            name = self.launch.name
            raise McpServerFailed(
                f"MCP server {name!r} ({self.launch.source}) has not been approved, so it was "
                f"not started; the user can approve it with /mcp approve {name} or "
                f"`legato mcp approve {name}`"
            )
        if self._lost is not None:
            await self._ended.wait()  # bounded: every wait of the transport's end is
        if self.restarts:
            self._restarts -= 1
            self.start(tasks)
        await self._settled.wait()  # bounded: the start fails after start_timeout
        if self._session is None or self.state != "ready":
            raise McpServerFailed(f"MCP server {self.launch.name!r} is not running: {self.error}")
        return self._session


async def _list_tools(session: ClientSession) -> list[types.Tool]:
    tools: list[types.Tool] = []
    cursor: str | None = None
    while True:
        params = None if cursor is None else types.PaginatedRequestParams(cursor=cursor)
        page = await session.list_tools(params=params)
        tools.extend(page.tools)
        cursor = page.next_cursor
        if cursor is None:
            return tools


def _describe(exc: BaseException) -> str:
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    if isinstance(exc, McpServerFailed):
        return exc.message
    if isinstance(exc, FileNotFoundError):
        return f"its command was not found: {exc.filename or exc}"
    if isinstance(exc, MCPError):
        return f"it answered with an error: {exc.error.message}"
    return f"{type(exc).__name__}: {exc}"
