"""The tools of a request, in a real headless session with an MCP server and an agent: the
executor's, then Agent, then the MCP tools, the same bytes on every request once nothing offered
changes (they open the cached prefix); an agent's are the executor's and the MCP tools."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from actors.tool_executor.tools import TOOLS
from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls
from tests.pipeline.test_mcp import TOY, offered, servers

if TYPE_CHECKING:
    from frontends.demo.scripted_api import RecordedRequest, Step
    from tests.frontends.conftest import Project


def test_the_tools_come_in_one_order_with_the_same_bytes(project: Project) -> None:
    servers(project, toy=[TOY])
    project.settings(permissionMode="custom", allowedTools=["mcp__toy"])
    agent = {"description": "look", "prompt": "task look", "subagent_type": "general-purpose"}

    def model(request: RecordedRequest) -> Step:
        if request.body["messages"][0]["content"][0]["text"] == "task look":
            return text("Looked.")
        if "mcp__toy__shout" not in offered(request):
            return tool_calls([call("ToolSearch", {"query": "select:mcp__toy__shout"})])
        if "Looked." not in json.dumps(request.body["messages"]):
            return tool_calls([call("Agent", agent)])
        return text("Done.")

    with ScriptedServer(model) as server:
        done = project.legato(server.url, "--headless", "go")
        requests = server.requests
    assert done.returncode == 0, done.stderr
    [looked] = [r for r in requests if r.body["messages"][0]["content"][0]["text"] == "task look"]
    main = [r for r in requests if r is not looked and "mcp__toy__shout" in offered(r)]
    assert len(main) == 2  # the Agent call's request and the last
    assert json.dumps(main[0].body["tools"]) == json.dumps(main[1].body["tools"])
    names = [tool["name"] for tool in main[0].body["tools"]]
    mcp = [name for name in names if name.startswith("mcp__toy__")]
    assert "mcp__toy__shout" in mcp
    assert names == [*TOOLS, "Agent", "WebSearch", *mcp]
    assert [tool["name"] for tool in looked.body["tools"]] == [*TOOLS, *mcp]
