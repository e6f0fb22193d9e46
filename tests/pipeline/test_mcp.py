"""MCP tools in real headless sessions: servers from the configuration, started beside the
first request, their tools offered to the scripted model and called through the executor.

The scripted model decides from each request what it sees (which tools are offered, what the
last result said), so nothing depends on how fast a server starts.
"""

from __future__ import annotations

import json
import signal
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls
from tests.tool_executor.harness import is_running, running_in

if TYPE_CHECKING:
    from frontends.demo.scripted_api import RecordedRequest, Step
    from tests.frontends.conftest import Project

TOY = str(Path(__file__).parents[1] / "mcp_client" / "toy_server.py")
TIME = ["-m", "mcp_server_time", "--local-timezone", "UTC"]


def servers(project: Project, **entries: list[str]) -> None:
    """Global-config servers (the user's own, so approved), each run by this Python."""
    config = {
        "mcpServers": {
            name: {"command": sys.executable, "args": args} for name, args in entries.items()
        }
    }
    path = project.home / ".config" / "legato" / "config.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(config))


def offered(request: RecordedRequest) -> dict[str, dict[str, Any]]:
    return {tool["name"]: tool for tool in request.body.get("tools", [])}


def first_result(request: RecordedRequest) -> dict[str, Any]:
    block: dict[str, Any] = request.body["messages"][-1]["content"][0]
    return block


def test_a_server_still_starting_is_searched_for_and_its_tool_called(project: Project) -> None:
    go = project.root / "go"
    servers(project, toy=[TOY, "--wait-for", str(go)])
    project.settings(permissionMode="custom", allowedTools=["mcp__toy"])
    seen: list[dict[str, dict[str, Any]]] = []

    def model(request: RecordedRequest) -> Step:
        tools = offered(request)
        seen.append(tools)
        turn = len(request.body["messages"])
        if turn == 1:
            # The server cannot have started: it waits for a file nobody has written yet.
            go.touch()
            return tool_calls([call("ToolSearch", {"query": "shout repeated"})])
        if turn == 3:
            return tool_calls([call("mcp__toy__shout", {"text": "ab", "times": 3})])
        return text("Done.")

    with ScriptedServer(model) as server:
        done = project.legato(server.url, "--headless", "go", "--output-format", "json")
        requests = server.requests
    assert done.returncode == 0, done.stderr
    first = seen[0]
    assert "mcp__toy__shout" not in first
    assert "toy" in first["ToolSearch"]["description"]  # named as still starting
    found = first_result(requests[1])
    assert found["content"].startswith("Loaded 1 MCP tool; call it")
    assert "mcp__toy__shout" in found["content"]
    assert "mcp__toy__shout" in seen[1]  # offered once the server was ready
    assert "ToolSearch" not in seen[1]  # nothing left to search for: all are offered
    shouted = first_result(requests[2])
    assert shouted["content"] == "ababab"
    assert not shouted.get("is_error")


def test_a_tool_of_a_server_still_starting_waits_for_it(project: Project) -> None:
    go = project.root / "go"
    servers(project, toy=[TOY, "--wait-for", str(go)])
    project.settings(permissionMode="custom", allowedTools=["mcp__toy__shout"])

    def model(request: RecordedRequest) -> Step:
        if len(request.body["messages"]) == 1:
            go.touch()
            # Named before the server has listed it: the call waits for the server.
            return tool_calls([call("mcp__toy__shout", {"text": "x", "times": 2})])
        return text("Done.")

    with ScriptedServer(model) as server:
        done = project.legato(server.url, "--headless", "go")
        requests = server.requests
    assert done.returncode == 0, done.stderr
    assert first_result(requests[1])["content"] == "xx"


def test_the_time_servers_tool_end_to_end(project: Project) -> None:
    servers(project, time=TIME)
    project.settings(permissionMode="custom", allowedTools=["mcp__time"])

    def model(request: RecordedRequest) -> Step:
        turn = len(request.body["messages"])
        if turn == 1 and "mcp__time__get_current_time" not in offered(request):
            return tool_calls([call("ToolSearch", {"query": "select:mcp__time__get_current_time"})])
        if "Tokyo" not in json.dumps(request.body["messages"]):
            args = {"timezone": "Asia/Tokyo"}
            return tool_calls([call("mcp__time__get_current_time", args)])
        return text("It is late in Tokyo.")

    with ScriptedServer(model) as server:
        done = project.legato(server.url, "--headless", "go")
        requests = server.requests
    assert done.returncode == 0, done.stderr
    result = first_result(requests[-1])
    assert json.loads(result["content"])["timezone"] == "Asia/Tokyo"
    schema = offered(requests[-1])["mcp__time__get_current_time"]["input_schema"]
    assert "timezone" in schema["properties"]


def test_an_image_comes_back_as_an_image_block(project: Project) -> None:
    servers(project, toy=[TOY])
    project.settings(permissionMode="custom", allowedTools=["mcp__toy__picture"])

    def model(request: RecordedRequest) -> Step:
        if len(request.body["messages"]) == 1:
            return tool_calls([call("mcp__toy__picture", {})])
        return text("A red pixel.")

    with ScriptedServer(model) as server:
        done = project.legato(server.url, "--headless", "go")
        requests = server.requests
    assert done.returncode == 0, done.stderr
    content = first_result(requests[1])["content"]
    assert isinstance(content, list)
    image = next(block for block in content if block["type"] == "image")
    assert image["source"]["media_type"] == "image/png"
    assert image["source"]["data"].startswith("iVBOR")  # base64 of PNG's signature


def test_tools_past_the_budget_are_loaded_on_demand(project: Project) -> None:
    # 400 tools of about 150 tokens each: three times a tenth of haiku's 200,000-token window.
    servers(project, toy=[TOY, "--padding", "400"])
    project.settings(permissionMode="custom", allowedTools=["mcp__toy"])
    seen: list[dict[str, dict[str, Any]]] = []

    def model(request: RecordedRequest) -> Step:
        seen.append(offered(request))
        turn = len(request.body["messages"])
        if turn == 1:
            return tool_calls([call("ToolSearch", {"query": "word7x3"})])
        if turn == 3:
            return tool_calls([call("mcp__toy__padding_7", {"value": "v"})])
        return text("Done.")

    with ScriptedServer(model) as server:
        done = project.legato(server.url, "--headless", "go", "--model", "haiku")
        requests = server.requests
    assert done.returncode == 0, done.stderr
    # Whether the server was still starting or ready, none of its tools went up front.
    assert not any(name.startswith("mcp__") for name in seen[0])
    assert "ToolSearch" in seen[0]
    # 400 padding tools and the toy's own 6, one of them loaded.
    assert "405 MCP tools are not listed up front" in seen[1]["ToolSearch"]["description"]
    mcp_after = [name for name in seen[1] if name.startswith("mcp__")]
    assert mcp_after == ["mcp__toy__padding_7"]  # only what the search found
    assert "ToolSearch" in seen[1]
    assert first_result(requests[2])["content"] == "padding tool 7 got v"
    assert len(json.dumps(requests[0].body["tools"])) < 40_000


def test_a_name_no_server_offers_is_refused_without_a_question(project: Project) -> None:
    servers(project, toy=[TOY])
    project.settings(permissionMode="custom", allowedTools=["mcp__toy"])

    def model(request: RecordedRequest) -> Step:
        if len(request.body["messages"]) == 1:
            return tool_calls([call("mcp__toy__nothing", {}), call("mcp__other__x", {})])
        return text("Done.")

    with ScriptedServer(model) as server:
        done = project.legato(server.url, "--headless", "go")
        requests = server.requests
    assert done.returncode == 0, done.stderr
    results = requests[1].body["messages"][-1]["content"]
    assert all(r["is_error"] for r in results)
    assert "mcp__toy__nothing" in results[0]["content"]  # unknown, or not one of toy's tools
    assert "no MCP server offers it" in results[1]["content"]


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_leaves_no_server_process(
    project: Project, signum: signal.Signals, code: int
) -> None:
    marker = project.root / "hanging"
    # One server mid-call with a child of its own, one that never finishes starting.
    servers(project, toy=[TOY], slow=[TOY, "--wait-for", str(project.root / "never")])
    project.settings(permissionMode="custom", allowedTools=["mcp__toy"])
    step = tool_calls(
        [call("mcp__toy__spawn", {}), call("mcp__toy__hang", {"started": str(marker)})]
    )
    with ScriptedServer([step]) as server:
        process = project.start(server.url, "--headless", "go", "--output-format", "json")
        deadline = time.monotonic() + 30
        # Servers start in the project: the two servers and the toy's sleep.
        while (not marker.exists() or len(running_in(project.root)) < 3) and (
            time.monotonic() < deadline
        ):
            time.sleep(0.02)
        children = running_in(project.root)
        assert marker.exists() and len(children) >= 3, children
        process.send_signal(signum)
        out, err = process.communicate(timeout=15)
    assert process.returncode == code, err
    assert "Traceback" not in err
    assert json.loads(out)["subtype"] == "interrupted"
    deadline = time.monotonic() + 3
    while any(is_running(pid) for pid in children) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not [pid for pid in children if is_running(pid)]


def test_headless_in_ask_mode_denies_a_call_and_lists_it(project: Project) -> None:
    marker = project.root / "started"
    servers(project, toy=[TOY])
    arguments = {"started": str(marker)}

    def model(request: RecordedRequest) -> Step:
        if len(request.body["messages"]) == 1:
            return tool_calls([call("mcp__toy__hang", arguments, id="toolu_hang")])
        return text("Denied, then.")

    with ScriptedServer(model) as server:
        done = project.legato(server.url, "--headless", "go", "--output-format", "json")
        requests = server.requests
    assert done.returncode == 0, done.stderr
    refused = first_result(requests[1])
    assert refused["is_error"]
    assert "mcp__toy__hang" in refused["content"]
    assert json.loads(done.stdout)["permission_denials"] == [
        {"tool_name": "mcp__toy__hang", "tool_use_id": "toolu_hang", "tool_input": arguments}
    ]
    assert not marker.exists()  # the server was never asked


def test_an_agent_gets_the_mcp_tools_its_type_allows(project: Project) -> None:
    servers(project, toy=[TOY])
    project.settings(permissionMode="custom", allowedTools=["mcp__toy"])
    agent = {"description": "shout", "prompt": "task shout", "subagent_type": "general-purpose"}
    agent_tools: list[dict[str, dict[str, Any]]] = []

    def model(request: RecordedRequest) -> Step:
        opening = request.body["messages"][0]["content"][0]["text"]
        turn = len(request.body["messages"])
        if opening == "task shout":
            agent_tools.append(offered(request))
            if turn == 1:
                return tool_calls([call("mcp__toy__shout", {"text": "yo", "times": 2})])
            return text(f"The agent heard: {first_result(request)['content']}")
        if turn == 1 and "mcp__toy__shout" not in offered(request):
            return tool_calls([call("ToolSearch", {"query": "select:mcp__toy__shout"})])
        if not any("Agent" in json.dumps(m) for m in request.body["messages"][1:]):
            return tool_calls([call("Agent", agent)])
        return text("Done.")

    with ScriptedServer(model) as server:
        done = project.legato(server.url, "--headless", "go")
        requests = server.requests
    assert done.returncode == 0, done.stderr
    assert "mcp__toy__shout" in agent_tools[0]
    assert "ToolSearch" not in agent_tools[0]  # only the main conversation searches
    assert "The agent heard: yoyo" in json.dumps(requests[-1].body["messages"][-1])
