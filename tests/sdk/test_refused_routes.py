"""Tools the driving program refuses (``disallowed_tools``) are refused whoever answers them:
a model that calls Agent, or TaskOutput and TaskStop with an agent's id, gets the error of a tool
that does not exist, as for a refused tool of the executor, and no agent starts."""

from __future__ import annotations

from typing import TYPE_CHECKING

from claude_agent_sdk import ToolResultBlock, UserMessage

from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls
from tests.sdk.conftest import collect

if TYPE_CHECKING:
    from tests.sdk.conftest import Folder


async def test_refused_conductor_tools_are_unknown_tools(folder: Folder) -> None:
    calls = [
        call("Agent", {"description": "d", "prompt": "p", "subagent_type": "general-purpose"}),
        call("TaskOutput", {"task_id": "agent_1"}),
        call("TaskStop", {"task_id": "agent_1"}),
    ]
    with ScriptedServer([tool_calls(calls), text("done")]) as server:
        options = folder.options(server.url, disallowed_tools=["Agent", "TaskOutput", "TaskStop"])
        messages = await collect("go", options)
        requests = server.requests
    assert len(requests) == 2  # no agent's request
    offered = [tool["name"] for tool in requests[0].body["tools"]]
    assert not {"Agent", "TaskOutput", "TaskStop"} & set(offered)
    results = [
        block
        for message in messages
        if isinstance(message, UserMessage) and isinstance(message.content, list)
        for block in message.content
        if isinstance(block, ToolResultBlock)
    ]
    assert [r.is_error for r in results] == [True, True, True]
    for result, name in zip(results, ["Agent", "TaskOutput", "TaskStop"], strict=True):
        assert str(result.content).startswith(f"Unknown tool {name!r}. The available tools are: ")
