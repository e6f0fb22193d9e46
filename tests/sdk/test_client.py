"""``ClaudeSDKClient`` driving one long Legato session: several prompts, ``interrupt()`` in the
middle of a command, and the session's controls (mode, model, context usage, MCP status)."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING, Any

import trio
from claude_agent_sdk import ClaudeSDKClient, Message, ResultMessage, ToolResultBlock, UserMessage

from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls
from tests.tool_executor.harness import running_in

if TYPE_CHECKING:
    from tests.sdk.conftest import Folder


async def answer(client: ClaudeSDKClient) -> list[Message]:
    return [message async for message in client.receive_response()]


async def test_several_prompts_share_one_session(folder: Folder) -> None:
    steps = [text("Noted: 42."), text("You said 42."), text("Still 42.")]
    with ScriptedServer(steps) as server:
        async with ClaudeSDKClient(folder.options(server.url)) as client:
            results = []
            for prompt in ("remember 42", "what did I say?", "and now?"):
                await client.query(prompt)
                said = await answer(client)
                assert isinstance(said[-1], ResultMessage)
                results.append(said[-1])
        requests = server.requests
    assert [r.result for r in results] == ["Noted: 42.", "You said 42.", "Still 42."]
    assert len({r.session_id for r in results}) == 1
    assert [len(r.body["messages"]) for r in requests] == [1, 3, 5]
    # Each result counts its own prompt: one turn each.
    assert [r.num_turns for r in results] == [1, 1, 1]


async def test_interrupt_stops_a_running_command_and_the_next_prompt_works(
    folder: Folder,
) -> None:
    marker = folder.root / "started"
    command = f"touch {marker}; sleep 60; echo never"
    steps = [tool_calls([call("Bash", {"command": command})]), text("Fresh answer.")]
    with ScriptedServer(steps) as server:
        options = folder.options(server.url, allowed_tools=["Bash"])
        async with ClaudeSDKClient(options) as client:
            await client.query("run the long thing")
            with trio.fail_after(30):
                # The marker comes just before the sleep starts: wait for the sleep itself,
                # which the check below must then find gone.
                while not marker.exists() or not _sleeping(folder):  # noqa: ASYNC110
                    await trio.sleep(0.01)
            with trio.fail_after(10):  # answered while the prompt runs, not after it
                usage = await client.get_context_usage()
            assert usage["totalTokens"] > 0
            await client.interrupt()
            with trio.fail_after(10):  # the command's 60 s are not waited for
                stopped = await answer(client)
            left = _sleeping(folder)
            await client.query("something else")
            after = await answer(client)
        requests = server.requests
    result = stopped[-1]
    assert isinstance(result, ResultMessage)
    assert (result.subtype, result.is_error) == ("error_during_execution", True)
    assert result.errors == ["interrupted by the program's interrupt request"]
    block = next(m for m in stopped if isinstance(m, UserMessage)).content[0]
    assert isinstance(block, ToolResultBlock) and block.is_error
    assert "Interrupted after" in str(block.content)
    assert left == []  # the command and its sleep are gone, not left running
    final = after[-1]
    assert isinstance(final, ResultMessage) and final.result == "Fresh answer."
    # The conversation the API got next is one it accepts: the call has its result.
    messages = requests[1].body["messages"]
    uses = [b["id"] for m in messages for b in _blocks(m) if b.get("type") == "tool_use"]
    results = [
        b["tool_use_id"] for m in messages for b in _blocks(m) if b.get("type") == "tool_result"
    ]
    assert len(uses) == 1 and uses == results
    assert "something else" in json.dumps(messages[-1])


async def test_mode_and_model_change_between_prompts(folder: Folder) -> None:
    target = folder.root / "plan.txt"
    steps = [
        tool_calls([call("Write", {"file_path": str(target), "content": "x"})]),
        text("I would write plan.txt."),
        text("Haiku here."),
    ]
    with ScriptedServer(steps) as server:
        async with ClaudeSDKClient(
            folder.options(server.url, permission_mode="acceptEdits")
        ) as client:
            await client.set_permission_mode("plan")
            await client.query("write plan.txt")
            planned = await answer(client)
            await client.set_model("haiku")
            await client.query("who are you?")
            await answer(client)
            usage = await client.get_context_usage()
        requests = server.requests
    assert not target.exists()
    refused = next(m for m in planned if isinstance(m, UserMessage)).content[0]
    assert isinstance(refused, ToolResultBlock) and "plan mode" in str(refused.content)
    assert [r.body["model"] for r in requests] == [
        "claude-sonnet-4-6", "claude-sonnet-4-6", "claude-haiku-4-5-20251001"
    ]  # fmt: skip
    assert usage["model"] == "claude-haiku-4-5-20251001"
    assert usage["maxTokens"] == 200_000
    assert 0 < usage["totalTokens"] < usage["maxTokens"]
    assert usage["percentage"] == round(100 * usage["totalTokens"] / usage["maxTokens"], 2)


async def test_an_unknown_model_is_an_error_for_the_program_not_a_crash(folder: Folder) -> None:
    with ScriptedServer([text("still here")]) as server:
        async with ClaudeSDKClient(folder.options(server.url)) as client:
            try:
                await client.set_model("gpt-nonsense")
            except Exception as error:
                assert "unknown model 'gpt-nonsense'" in str(error)
            else:
                raise AssertionError("set_model accepted an unknown model")
            await client.query("hi")
            said = await answer(client)
    assert isinstance(said[-1], ResultMessage) and said[-1].result == "still here"


async def test_mcp_status_lists_the_users_servers(folder: Folder) -> None:
    config = {
        "mcpServers": {
            "time": {
                "command": sys.executable,
                "args": ["-m", "mcp_server_time", "--local-timezone", "UTC"],
            }
        }
    }
    path = folder.home / ".config" / "legato" / "config.json"
    path.parent.mkdir(parents=True)
    path.write_text(json.dumps(config))
    with ScriptedServer([]) as server:
        async with ClaudeSDKClient(folder.options(server.url)) as client:
            with trio.fail_after(30):
                while True:
                    status = await client.get_mcp_status()
                    servers = status["mcpServers"]
                    if servers and servers[0]["status"] != "pending":
                        break
                    await trio.sleep(0.05)
    (time_server,) = servers
    assert time_server["name"] == "time"
    assert time_server["status"] == "connected"
    assert "get_current_time" in [tool["name"] for tool in time_server.get("tools", [])]


def _blocks(message: dict[str, Any]) -> list[dict[str, Any]]:
    content = message["content"]
    return content if isinstance(content, list) else []


def _command(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as file:
            return file.read().replace(b"\0", b" ").decode().strip()
    except OSError:
        return ""


async def test_mcp_servers_given_in_the_options_run_without_approval(folder: Folder) -> None:
    given: dict[str, Any] = {
        "clock": {
            "type": "stdio",
            "command": sys.executable,
            "args": ["-m", "mcp_server_time", "--local-timezone", "UTC"],
        }
    }
    # A project server of the same name, never approved: the program's entry wins.
    folder.write(".mcp.json", json.dumps({"mcpServers": {"clock": {"command": "false"}}}))
    with ScriptedServer([]) as server:
        options = folder.options(server.url, mcp_servers=given, strict_mcp_config=True)
        async with ClaudeSDKClient(options) as client:
            with trio.fail_after(30):
                while True:
                    servers = (await client.get_mcp_status())["mcpServers"]
                    if servers and servers[0]["status"] != "pending":
                        break
                    await trio.sleep(0.05)
    assert [(s["name"], s["status"], s["scope"]) for s in servers] == [
        ("clock", "connected", "--mcp-config")
    ]


def _sleeping(folder: Folder) -> list[int]:
    """The command's ``sleep 60``, found by its working folder (its pid is its sandbox's)."""
    return [pid for pid in running_in(folder.root) if _command(pid) == "sleep 60"]


async def test_a_model_of_unknown_prices_is_refused_under_a_budget(folder: Folder) -> None:
    with ScriptedServer([text("still on sonnet")]) as server:
        async with ClaudeSDKClient(folder.options(server.url, max_budget_usd=1.0)) as client:
            try:
                await client.set_model("claude-future-9")  # a newer id: accepted, unpriced
            except Exception as error:
                assert "--max-budget-usd cannot be kept with claude-future-9" in str(error)
            else:
                raise AssertionError("set_model took a model the budget cannot price")
            await client.query("hi")
            said = await answer(client)
        requests = server.requests
    assert isinstance(said[-1], ResultMessage) and said[-1].result == "still on sonnet"
    assert [r.body["model"] for r in requests] == ["claude-sonnet-4-6"]
