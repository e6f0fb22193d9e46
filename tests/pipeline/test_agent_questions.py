"""A subagent's calls go through the session's broker: its questions name it, and an answer
of 'always' holds for the whole session, for the other agents too."""

from __future__ import annotations

from typing import TYPE_CHECKING

from actors.protocol import AgentEvent, ToolFinished
from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls
from tests.pipeline.harness import Recorder, pipeline_session, prompt
from tests.pipeline.test_agents import agent_call, agent_requests, script

if TYPE_CHECKING:
    from pathlib import Path

    from actors.protocol import AskUser
    from frontends.demo.scripted_api import Step


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
