"""A Streamable HTTP server on loopback, started with the SDK's own server: the same listing and
calls as over stdio, on trio and asyncio, and an address where nothing listens fails its calls."""

from __future__ import annotations

import socket
import subprocess
import time
from typing import TYPE_CHECKING, Literal

import pytest

from actors.protocol import ListMcpTools, McpServer
from tests.mcp_client.harness import HERE, PYTHON, running, text

if TYPE_CHECKING:
    from collections.abc import Iterator


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.fixture
def http_server() -> Iterator[str]:
    """The toy server over Streamable HTTP; a plain fixture, so that both backends can use it."""
    yield from serving("--http", "/mcp")


@pytest.fixture
def sse_server() -> Iterator[str]:
    """The toy server over the older HTTP+SSE transport (``"type": "sse"`` in .mcp.json)."""
    yield from serving("--sse", "/sse")


def serving(option: str, path: str) -> Iterator[str]:
    port = free_port()
    server = subprocess.Popen([PYTHON, str(HERE / "toy_server.py"), option, str(port)])
    try:
        deadline = time.monotonic() + 20
        # The server says nothing when it listens: connecting is the way to know.
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                assert time.monotonic() < deadline, "the HTTP server did not start"
                time.sleep(0.02)
        yield f"http://127.0.0.1:{port}{path}"
    finally:
        server.kill()
        server.wait()


async def lists_and_answers(url: str, transport: Literal["http", "sse"] = "http") -> None:
    web = McpServer(name="web", transport=transport, source="test", url=url, headers={"X-T": "1"})
    async with running(web) as client:
        result = await client.call("mcp__web__shout", text="hi", times=3)
        tools = {tool.name for tool in (await client.address.ask(ListMcpTools())).tools}
        status = await client.status("web")
    assert text(result) == "hihihi"
    assert "mcp__web__pid" in tools
    assert status.state == "ready"


# Under trio (not asyncio) the SDK's HTTP transport leaves httpx2's response and SSE iterators
# to the garbage collector, which trio warns of; trio then closes them itself, so nothing leaks.
@pytest.mark.filterwarnings("ignore:Async generator .* was garbage collected:ResourceWarning")
async def test_a_streamable_http_server_lists_and_answers(http_server: str) -> None:
    await lists_and_answers(http_server)


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_the_same_on_asyncio_with_no_warning(http_server: str, anyio_backend: str) -> None:
    await lists_and_answers(http_server)


@pytest.mark.filterwarnings("ignore:Async generator .* was garbage collected:ResourceWarning")
async def test_an_sse_server_lists_and_answers(sse_server: str) -> None:
    await lists_and_answers(sse_server, "sse")


async def test_an_address_where_nothing_listens_fails_its_calls() -> None:
    nowhere = McpServer(
        name="nowhere", transport="http", source="test", url=f"http://127.0.0.1:{free_port()}/mcp"
    )
    async with running(nowhere) as client:
        failed = await client.call("mcp__nowhere__x")
    assert failed.is_error
    assert "MCP server 'nowhere' is not running:" in text(failed)
    assert "ConnectError" in text(failed)
