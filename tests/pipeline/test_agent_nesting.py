"""Agents that start agents (agents.maxDepth), refused calls, Plan Mode passed down, and an
interrupt that comes while agents are answering."""

from __future__ import annotations

from typing import TYPE_CHECKING

import anyio

from actors.conductor.prompt import PLAN_MODE_NOTE
from actors.protocol import AgentEvent, RunPrompt, TextDelta
from frontends.demo.scripted_api import Gate, ScriptedServer, call, text, tool_calls
from tests.cancellation.harness import conversation_problems
from tests.pipeline.harness import Recorder, conversation, pipeline_session, prompt
from tests.pipeline.test_agents import agent_call, agent_requests, script

if TYPE_CHECKING:
    from pathlib import Path

    from actors.protocol import UiEvent
    from frontends.demo.scripted_api import Step
    from tests.frontends.conftest import Project


def test_with_max_depth_2_a_type_that_lists_agent_starts_one_and_no_deeper(
    project: Project,
) -> None:
    project.settings(agents={"maxDepth": 2})
    project.write(
        ".legato/agents/lead.md",
        "---\nname: lead\ndescription: Splits work.\ntools: Agent, Read\n---\nLead.\n",
    )

    def agent(n: int, turn: int) -> Step:
        if turn == 0 and n < 2:  # the lead starts agent 1, which tries to start agent 2
            return tool_calls([agent_call(n + 1, "lead")])
        return text(f"Agent {n} done.")

    main = [tool_calls([agent_call(0, "lead")]), text("Done.")]
    with ScriptedServer(script(main, agent)) as server:
        done = project.legato(server.url, "--headless", "go")
        requests = server.requests
    assert done.returncode == 0, done.stderr
    lead, child = agent_requests(requests, 0)[0].body, agent_requests(requests, 1)[0].body
    assert sorted(t["name"] for t in lead["tools"]) == ["Agent", "Read"]
    assert [t["name"] for t in child["tools"]] == ["Read"]  # the deepest is not offered Agent
    assert agent_requests(requests, 2) == []
    (refusal,) = agent_requests(requests, 1)[1].body["messages"][-1]["content"]
    assert "The agent 'lead' may not start agents" in refusal["content"]
    (answer,) = agent_requests(requests, 0)[1].body["messages"][-1]["content"]
    assert answer["content"] == "Agent 1 done."


def test_an_agent_in_the_background_and_a_turned_off_agent_tool_are_refused(
    project: Project,
) -> None:
    # A background agent of an agent would outlive it, with nobody to read it.
    project.settings(agents={"maxDepth": 2})
    project.write(
        ".legato/agents/lead.md",
        "---\nname: lead\ndescription: Splits work.\ntools: Agent, Read\n---\nLead.\n",
    )

    def agent(n: int, turn: int) -> Step:
        if turn == 0 and n == 0:
            return tool_calls([agent_call(1, "lead", run_in_background=True)])
        return text(f"Agent {n} done.")

    main = [tool_calls([agent_call(0, "lead")]), text("Done.")]
    with ScriptedServer(script(main, agent)) as server:
        done = project.legato(server.url, "--headless", "go")
        requests = server.requests
    assert done.returncode == 0, done.stderr
    assert agent_requests(requests, 1) == []
    (result,) = agent_requests(requests, 0)[1].body["messages"][-1]["content"]
    assert result["is_error"] is True
    assert result["content"].startswith("An agent cannot start an agent in the background")
    project.settings(agents={"maxDepth": 0})
    main = [tool_calls([agent_call(0)]), text("Done.")]
    with ScriptedServer(script(main, lambda n, turn: text("never"))) as server:
        done = project.legato(server.url, "--headless", "go")
        requests = server.requests
    assert done.returncode == 0, done.stderr
    assert "Agent" not in [t["name"] for t in requests[0].body["tools"]]
    (result,) = requests[1].body["messages"][-1]["content"]
    assert result["content"] == (
        "The Agent tool is turned off in this project (agents.maxDepth is 0)."
    )


async def test_in_plan_mode_an_agent_is_told_so(tmp_path: Path) -> None:
    root, home = tmp_path / "project", tmp_path / "home"
    root.mkdir()
    home.mkdir()
    main = [tool_calls([agent_call(0)]), text("The plan.")]
    with ScriptedServer(script(main, lambda n, turn: text("Looked."))) as server:
        async with pipeline_session(root, home, server.url, Recorder()) as session:
            await session.conductor.address.ask(RunPrompt(text="plan it", plan=True))
        requests = server.requests
    (mine,) = agent_requests(requests, 0)
    assert mine.body["system"].endswith(PLAN_MODE_NOTE)


async def test_an_interrupt_while_an_agent_is_answering_leaves_a_valid_conversation(
    tmp_path: Path,
) -> None:
    root, home = tmp_path / "project", tmp_path / "home"
    root.mkdir()
    home.mkdir()
    # The agent's answer stops after its first block and stays silent: it is still answering.
    hold = Gate(path=str(root / "never"), before_block=1, timeout=60)
    main = [tool_calls([agent_call(0), agent_call(1)])]

    def agent(n: int, turn: int) -> Step:
        return tool_calls([call("Glob", {"pattern": "*"})], text=f"Agent {n} looks.", gate=hold)

    renderer = Recorder()
    with ScriptedServer(script(main, agent)) as server:
        async with pipeline_session(root, home, server.url, renderer) as session:
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(prompt, session, "go")
                # Both agents have begun their answers (their first text arrived).
                while len(answering(renderer.events)) < 2:
                    await renderer.changed.wait()
                tasks.cancel_scope.cancel()
            messages = await conversation(session)
    assert conversation_problems(messages) == []
    results = {b["tool_use_id"]: b for b in messages[-1].content}
    assert sorted(results) == ["toolu_agent_0", "toolu_agent_1"]
    for block in results.values():
        assert block["content"].startswith("Interrupted after ")
        assert "before the agent finished" in block["content"]
    # Nothing of the agents' own conversations reached the main one.
    assert "looks" not in str(messages)


def answering(events: list[UiEvent]) -> set[str]:
    """The Agent calls whose agents have begun an answer."""
    return {
        e.parent_tool_use_id
        for e in events
        if isinstance(e, AgentEvent) and isinstance(e.event, TextDelta)
    }


def test_an_agent_cannot_read_nor_stop_the_main_conversations_background_agents(
    project: Project,
) -> None:
    """Background agents are the main conversation's: a subagent whose tools leave TaskOutput
    and TaskStop out cannot reach them through the conductor either."""
    project.write(
        ".legato/agents/reader.md",
        "---\nname: reader\ndescription: Reads.\ntools: Read\n---\nRead.\n",
    )

    def agent(n: int, turn: int) -> Step:
        if n == 1 and turn == 0:
            reads = [
                call("TaskOutput", {"task_id": "agent_1", "block": False}),
                call("TaskStop", {"task_id": "agent_1"}),
            ]
            return tool_calls(reads)
        return text(f"Agent {n} done.")

    main = [
        tool_calls([agent_call(0, run_in_background=True), agent_call(1, "reader")]),
        text("Done."),
    ]
    with ScriptedServer(script(main, agent)) as server:
        done = project.legato(server.url, "--headless", "go")
        requests = server.requests
    assert done.returncode == 0, done.stderr
    results = agent_requests(requests, 1)[1].body["messages"][-1]["content"]
    assert [r["is_error"] for r in results] == [True, True]
    assert all("belong to the main conversation" in r["content"] for r in results)
