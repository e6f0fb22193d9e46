"""A subagent's calls: the executor holds it to its tools whatever it asks for, names it to the
broker, and shows its progress as the agent's."""

from __future__ import annotations

from typing import TYPE_CHECKING

from actors.protocol import AgentEvent, AgentScope, RunTools, ToolFinished, ToolStarted
from actors.tool_executor import ToolExecutor
from runtime import supervise
from tests.tool_executor.harness import Broker, call
from tests.tool_executor.test_progress import Screen

if TYPE_CHECKING:
    from pathlib import Path

SCOPE = AgentScope(name="reader", parent_tool_use_id="toolu_agent", tools=frozenset({"Read"}))


async def test_a_call_outside_the_agents_tools_is_refused_and_nothing_runs(
    tmp_path: Path,
) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    screen, broker = Screen(), Broker()
    executor = ToolExecutor(broker.address, project_root=str(tmp_path), ui=screen.address)
    made = tmp_path / "made"
    calls = (
        call("Bash", command=f"touch {made}"),
        call("Write", file_path=str(made), content="x"),
        call("Agent", prompt="more"),
        call("Read", file_path=str(tmp_path / "a.txt")),
    )
    async with (
        supervise([screen, broker, executor]),
        executor.address.stream(RunTools(calls=calls, agent=SCOPE)) as stream,
    ):
        events = [event async for event in stream]
    results = {e.result.tool_use_id: e.result for e in events if isinstance(e, ToolFinished)}
    bash, write, agent, read = (results[c.id] for c in calls)
    assert not made.exists()
    for refused, name in ((bash, "Bash"), (write, "Write")):
        assert refused.is_error
        assert refused.content == (
            f"The tool '{name}' is not available to the agent 'reader'; its tools are: Read. "
            "Nothing was done."
        )
    assert agent.content == "Unknown tool 'Agent'. The available tools are: Read."
    assert not read.is_error and "a" in read.content
    # Only the call it may make reached the broker, named as the agent's.
    assert [(r.tool, r.agent) for r in broker.requests] == [("Read", "reader")]
    # Its progress went to the UI as the agent's, tied to its Agent call.
    started = [e for e in screen.shown if isinstance(e, AgentEvent)]
    assert {e.parent_tool_use_id for e in started} == {"toolu_agent"}
    assert {e.event.name for e in started if isinstance(e.event, ToolStarted)} == {
        "Bash", "Write", "Agent", "Read",
    }  # fmt: skip
    assert not [e for e in screen.shown if isinstance(e, ToolStarted)]
