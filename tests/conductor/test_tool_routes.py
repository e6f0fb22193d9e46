"""The route table: who answers each tool call, the two kinds of background ids read back from
their text, and the order of a request's tools."""

from __future__ import annotations

from typing import Any

import pytest

from actors.protocol import AgentId, CommandId, ToolCall
from actors.tool_executor.tools import TOOLS
from actors.tool_routes import (
    AgentJobCall,
    no_such_job,
    offered_tools,
    parse_job_id,
    route,
)


@pytest.mark.parametrize("number", [1, 2, 9, 10, 123, 10**17])
def test_an_id_reads_back_from_its_text(number: int) -> None:
    assert str(CommandId(number)) == f"bash_{number}"
    assert str(AgentId(number)) == f"agent_{number}"
    assert parse_job_id(str(CommandId(number))) == CommandId(number)
    assert parse_job_id(str(AgentId(number))) == AgentId(number)
    assert len({CommandId(number), AgentId(number)}) == 2  # never the same key


@pytest.mark.parametrize(
    "text",
    [
        "", "bash_", "agent_", "bash_0", "agent_01", "bash_-1", "bash_+1", " bash_1", "bash_1 ",
        "agent_1\n", "BASH_1", "Agent_1", "bash1", "bash_1_2", "shell_1", "1", "bash_١",
        "bash_" + "9" * 19, 1, None, ["agent_1"], {"id": "agent_1"},
    ],
)  # fmt: skip
def test_anything_else_is_no_id(text: Any) -> None:
    assert parse_job_id(text) is None


def _call(name: str, **given: Any) -> ToolCall:
    return ToolCall(id="toolu_1", name=name, input=given)


def test_the_executor_answers_its_tools_and_mcp_tools() -> None:
    for name in [*TOOLS, "mcp__git__push", "Nonesuch"]:
        assert route(_call(name)) == "executor", name


def test_task_tools_go_by_the_kind_of_their_id() -> None:
    for tool in ("TaskOutput", "TaskStop"):
        assert route(_call(tool, task_id="agent_3")) == AgentJobCall(AgentId(3))
        assert route(_call(tool, task_id="bash_3")) == "executor"
        # Malformed but begun as an agent's: the conductor's error names the agents there are.
        assert route(_call(tool, task_id="agent_x")) == AgentJobCall("agent_x")
        assert route(_call(tool, task_id="agent_1 ")) == AgentJobCall("agent_1 ")
        # Any other: the executor's error names the commands there are.
        assert route(_call(tool, task_id="bash_x")) == "executor"
        assert route(_call(tool, task_id="Agent_1")) == "executor"
        assert route(_call(tool, task_id=3)) == "executor"
        assert route(_call(tool)) == "executor"


def test_the_conductor_answers_agent_and_tool_search() -> None:
    assert route(_call("Agent", task_id="bash_1")) == "Agent"
    assert route(_call("ToolSearch", query="git")) == "ToolSearch"


def test_a_request_offers_the_executors_tools_then_agent_then_mcp() -> None:
    read, bash, agent = {"name": "Read"}, {"name": "Bash"}, {"name": "Agent"}
    git, search = {"name": "mcp__git__push"}, {"name": "ToolSearch"}
    assert offered_tools([read, bash]) == [read, bash]
    assert offered_tools([read, bash], agent=agent, mcp=[git, search]) == [
        read, bash, agent, git, search,
    ]  # fmt: skip
    assert offered_tools([read], mcp=[git]) == [read, git]


def test_an_unknown_id_is_told_with_the_ids_there_are() -> None:
    assert no_such_job("command", "bash_9", ["bash_1", "bash_2"]) == (
        "No background command 'bash_9'; the ids are: bash_1, bash_2."
    )
    assert no_such_job("agent", "agent_1", []) == (
        "No background agent 'agent_1'; the ids are: none has been started in this session."
    )
