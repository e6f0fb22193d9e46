"""Servers that fail: at once, by never answering, by speaking garbage, by crashing mid-call.
Each fails its own calls with a message naming it, the reason and the remedy; the session and
the other servers go on; a crashed server starts again once."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

import anyio
import pytest

from actors.mcp_client import stdio
from actors.protocol import McpServer, McpServerStatus
from tests.mcp_client.harness import HERE, TIME, TOY, alive, python, running, started, text

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from anyio.abc import Process

pytestmark = pytest.mark.usefixtures("short_grace")

REMEDY = "Check the server's command or URL in .mcp.json"
EXITS = python("broken", "-c", "import sys; print('no API token set', file=sys.stderr); exit(3)")


async def test_a_server_that_exits_at_once_fails_its_calls_and_nothing_else() -> None:
    async with running(EXITS, TIME) as client:
        failed = await client.call("mcp__broken__anything")
        working = await client.call("mcp__time__get_current_time", timezone="UTC")
        status = await client.status("broken")
    assert failed.is_error
    assert "MCP server 'broken' is not running: it exited while starting" in text(failed)
    assert "no API token set" in text(failed)  # the end of its stderr
    assert REMEDY in text(failed)
    assert status.state == "failed"
    assert status.error is not None
    assert status.error.startswith("it exited while starting; its stderr ended with:\n")
    assert not working.is_error


async def test_a_missing_command_says_so() -> None:
    missing = McpServer(
        name="gone", transport="stdio", source="test", command="/nonexistent/mcp-server"
    )
    async with running(missing) as client:
        failed = await client.call("mcp__gone__x")
    assert failed.is_error
    assert "MCP server 'gone' is not running: its command was not found" in text(failed)


async def test_a_server_that_never_answers_initialize_fails_after_the_start_timeout() -> None:
    hang = python("hang", str(HERE / "hang_server.py"))
    async with running(hang, start_timeout=0.5) as client:
        pid = await started("hang_server.py")
        failed = await client.call("mcp__hang__x")
        status = await client.status("hang")
    assert failed.is_error
    assert "MCP server 'hang' is not running: did not finish starting within 0.5 s" in text(failed)
    assert status == McpServerStatus(
        name="hang", state="failed", source="test", error="did not finish starting within 0.5 s"
    )
    assert not alive(pid)


async def test_a_server_that_writes_garbage_on_stdout_fails() -> None:
    garbage = python("noisy", str(HERE / "toy_server.py"), "--garbage")
    async with running(garbage) as client:
        failed = await client.call("mcp__noisy__pid")
    assert failed.is_error
    assert "MCP server 'noisy' is not running: it wrote something that is not JSON-RPC" in text(
        failed
    )


async def test_a_server_that_crashes_mid_call_starts_again_once_on_the_next_call() -> None:
    async with running(TOY) as client:
        first = int(text(await client.call("mcp__toy__pid")))
        crashed = await client.call("mcp__toy__crash")
        assert not alive(first)
        assert (await client.status("toy")).state == "failed"
        second = int(text(await client.call("mcp__toy__pid")))
        assert second != first
        assert (await client.status("toy")).state == "ready"
        await client.call("mcp__toy__crash")
        again = await client.call("mcp__toy__pid")
    assert crashed.is_error
    assert "MCP server 'toy' went away during the call to crash: it exited" in text(crashed)
    assert "toy server: about to crash" in text(crashed)
    assert again.is_error
    assert "MCP server 'toy' is not running: it exited" in text(again)


async def test_a_server_with_neither_command_nor_url_says_so() -> None:
    async with running(McpServer(name="empty", transport="http", source="test")) as client:
        failed = await client.call("mcp__empty__x")
    assert text(failed).startswith(
        "MCP server 'empty' is not running: it has neither a command nor a url\n"
    )


async def test_an_endless_line_on_stdout_fails_the_server(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(stdio, "MAX_LINE", 1000)
    endless = python(
        "endless", "-c", "import time; print('x' * 5000, end='', flush=True); time.sleep(60)"
    )
    async with running(endless) as client:
        failed = await client.call("mcp__endless__x")
    assert "it wrote something that is not JSON-RPC: a line longer than 1000 bytes" in text(failed)


class _Chunks:
    """A process whose stdout gives these chunks, as a pipe may cut them."""

    def __init__(self, *chunks: bytes) -> None:
        self.stdout = _aiter(chunks)


async def _aiter(chunks: tuple[bytes, ...]) -> AsyncIterator[bytes]:
    for chunk in chunks:
        yield chunk


async def test_lines_are_whole_however_the_pipe_cuts_them() -> None:
    reply = b'{"jsonrpc": "2.0", "id": 1, "result": {}}'
    pieces = [reply[i : i + 3] for i in range(0, len(reply), 3)]
    process = _Chunks(*pieces, b"\n\n" + reply + b"\n" + reply[:5], reply[5:] + b"\n", b"{x")
    send, receive = anyio.create_memory_object_stream[Any](10)
    await stdio._read_lines(cast("Process", process), send)
    with receive:
        got = [item async for item in receive]
    assert [item.message.id for item in got] == [1, 1, 1]  # "{x" never ended: not a line
