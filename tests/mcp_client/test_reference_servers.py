"""The reference servers from the package registry, end to end: their tools listed under
mcp__<server>__<tool>, a call's text and structured content, on trio and on asyncio."""

from __future__ import annotations

from typing import TYPE_CHECKING

import anyio
import pytest

from actors.protocol import ListMcpServers, ListMcpTools, McpServerStatus
from tests.mcp_client.harness import GIT, TIME, TOY, alive, running, started, text

if TYPE_CHECKING:
    from pathlib import Path


async def test_the_time_server_starts_in_the_background_and_answers_a_call() -> None:
    async with running(TIME) as client:
        # on_start returned before the server could have answered initialize.
        assert await client.address.ask(ListMcpServers()) == (
            McpServerStatus(name="time", state="connecting", source="test"),
        )
        assert (await client.address.ask(ListMcpTools())).tools == ()
        result = await client.call("mcp__time__get_current_time", timezone="Asia/Tokyo")
        assert not result.is_error
        assert '"timezone": "Asia/Tokyo"' in text(result)
        assert result.structured is not None
        assert result.structured["timezone"] == "Asia/Tokyo"
        assert await client.status("time") == McpServerStatus(
            name="time", state="ready", source="test", tools=2
        )
        tools = {tool.name: tool for tool in (await client.address.ask(ListMcpTools())).tools}
    assert set(tools) == {"mcp__time__get_current_time", "mcp__time__convert_time"}
    current = tools["mcp__time__get_current_time"]
    assert current.server == "time"
    assert current.description
    assert "timezone" in current.input_schema["properties"]


async def test_a_tool_error_is_an_error_result_and_the_server_goes_on() -> None:
    async with running(TIME) as client:
        bad = await client.call("mcp__time__get_current_time", timezone="Nowhere/Atlantis")
        good = await client.call("mcp__time__get_current_time", timezone="UTC")
        unknown = await client.call("mcp__time__get_weather")
    assert bad.is_error
    assert "Atlantis" in text(bad)
    assert not good.is_error
    assert unknown.is_error
    assert "has no tool 'mcp__time__get_weather'" in text(unknown)


async def test_git_status_of_a_temporary_repository(tmp_path: Path) -> None:
    await anyio.run_process(["git", "init", "-q", str(tmp_path)])
    (tmp_path / "notes.txt").write_text("hello\n")
    async with running(GIT) as client:
        result = await client.call("mcp__git__git_status", repo_path=str(tmp_path))
        tools = {tool.name: tool for tool in (await client.address.ask(ListMcpTools())).tools}
    assert not result.is_error, text(result)
    assert "notes.txt" in text(result)
    assert {"mcp__git__git_status", "mcp__git__git_log"} <= set(tools)
    assert tools["mcp__git__git_status"].read_only
    assert not tools["mcp__git__git_commit"].read_only


@pytest.mark.anyio
@pytest.mark.parametrize("anyio_backend", ["asyncio"])
async def test_the_same_on_asyncio(anyio_backend: str) -> None:
    async with running(TIME) as client:
        result = await client.call("mcp__time__get_current_time", timezone="UTC")
        pid = await started("mcp_server_time")
    assert not alive(pid)
    assert not result.is_error
    assert result.structured is not None
    assert result.structured["timezone"] == "UTC"


async def test_a_result_is_cut_to_the_output_cap() -> None:
    async with running(TOY, output_cap=200) as client:
        short = await client.call("mcp__toy__shout", text="ab", times=50)
        long = await client.call("mcp__toy__shout", text="ab", times=130)
    assert text(short) == "ab" * 50
    assert short.structured == {"result": "ab" * 50}
    assert text(long) == (
        "ab" * 100
        + "\n... [60 characters omitted]"
        + "\n[structured content omitted: over the output cap]"
    )
    assert long.structured is None
