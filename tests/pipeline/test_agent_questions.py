"""A subagent's calls go through the session's broker (its questions name it, and an answer
of 'always' holds for the whole session, for the other agents too) and the session's
checkpoints; a failed agent is its call's error, not the session's."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from actors.protocol import AgentEvent, ToolFinished, Undo
from frontends.demo.scripted_api import ScriptedServer, call, error, text, tool_calls
from tests.pipeline.harness import Recorder, pipeline_session, prompt
from tests.pipeline.test_agents import agent_call, agent_requests, script

if TYPE_CHECKING:
    from pathlib import Path

    from actors.protocol import AskUser
    from frontends.demo.scripted_api import Step
    from tests.frontends.conftest import Project


async def test_a_question_names_the_agent_and_always_holds_for_the_session(
    tmp_path: Path,
) -> None:
    root, home = tmp_path / "project", tmp_path / "home"
    root.mkdir()
    home.mkdir()
    made = root / "made"

    def agent(n: int, turn: int) -> Step:
        if turn == 0:
            return tool_calls([call("Bash", {"command": f"touch {made}"}, id=f"toolu_touch_{n}")])
        return text(f"Agent {n} touched it.")

    async def always(number: int, question: AskUser) -> str:
        return "always"

    # One agent after the other, so that the second asks after the first was answered.
    main = [
        tool_calls([agent_call(0)]),
        tool_calls([agent_call(1)]),
        text("Done."),
    ]
    renderer = Recorder(always)
    with ScriptedServer(script(main, agent)) as server:
        async with pipeline_session(root, home, server.url, renderer) as session:
            outcome = await prompt(session, "go")
        requests = server.requests
    assert outcome.subtype == "success", outcome.error
    assert made.exists()
    (question,) = renderer.asked  # the second agent was not asked again
    assert question.request.tool == "Bash"
    assert question.request.agent == "general-purpose"
    for n in range(2):
        (ran,) = agent_requests(requests, n)[1].body["messages"][-1]["content"]
        assert not ran.get("is_error"), ran
    # The agents' results reached the UI as the agents' own, tied to their Agent calls.
    shown = [
        (e.parent_tool_use_id, e.event.result.tool_use_id)
        for e in renderer.events
        if isinstance(e, AgentEvent) and isinstance(e.event, ToolFinished)
    ]
    assert shown == [("toolu_agent_0", "toolu_touch_0"), ("toolu_agent_1", "toolu_touch_1")]


async def test_undo_puts_back_what_the_agents_wrote(tmp_path: Path) -> None:
    root, home = tmp_path / "project", tmp_path / "home"
    root.mkdir()
    home.mkdir()
    (root / "a.txt").write_text("before a\n")

    def agent(n: int, turn: int) -> Step:
        # Agent 0 reads a.txt, then writes it (Write wants a file read first); agent 1
        # creates b.txt.
        path = str(root / ("a.txt" if n == 0 else "b.txt"))
        if turn == 0 and n == 0:
            return tool_calls([call("Read", {"file_path": path})])
        if turn == 1 - n:
            return tool_calls([call("Write", {"file_path": path, "content": f"agent {n}\n"})])
        return text(f"Agent {n} wrote.")

    main = [tool_calls([agent_call(0), agent_call(1)]), text("Done.")]
    with ScriptedServer(script(main, agent)) as server:
        async with pipeline_session(root, home, server.url, Recorder()) as session:
            outcome = await prompt(session, "go")
            assert (root / "a.txt").read_text() == "agent 0\n"
            assert (root / "b.txt").read_text() == "agent 1\n"
            said = await session.conductor.address.ask(Undo())
    assert outcome.subtype == "success", outcome.error
    assert (root / "a.txt").read_text() == "before a\n"
    assert not (root / "b.txt").exists()
    assert "a.txt" in said


def test_an_agent_whose_answer_fails_reports_it_and_the_main_conversation_goes_on(
    project: Project,
) -> None:
    def agent(n: int, turn: int) -> Step:
        return error(400, message="prompt is too long")

    main = [tool_calls([agent_call(0)]), text("Done anyway.")]
    with ScriptedServer(script(main, agent)) as server:
        done = project.legato(server.url, "--headless", "go", "--output-format", "json")
        requests = server.requests
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["result"] == "Done anyway."
    (result,) = requests[-1].body["messages"][-1]["content"]
    assert result["is_error"] is True
    assert result["content"].startswith("The agent 'general-purpose' stopped: ")
    assert "prompt is too long" in result["content"]
