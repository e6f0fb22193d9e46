"""A model's TaskOutput and TaskStop with ids it was never given: malformed, of the other kind,
or from another session (ids count from 1 in each session, so one from elsewhere is an id this
session has not given). Each is a clear tool error from the actor that owns the kind; none
reaches the wrong actor or stops anything.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from actors.protocol import ListBackgroundAgents, RunPrompt
from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls
from tests.pipeline.harness import Recorder, pipeline_session
from tests.pipeline.test_agents import agent_call, first_text, script

if TYPE_CHECKING:
    from pathlib import Path

    from frontends.demo.scripted_api import Step

NO_COMMANDS = "the ids are: none has been started in this session."

# (tool, task_id, the result's text)
HOSTILE: list[tuple[str, Any, str]] = [
    # Of the other kind, or from another session: each kind's owner names its own ids.
    ("TaskOutput", "bash_1", f"No background command 'bash_1'; {NO_COMMANDS}"),
    ("TaskStop", "bash_1", f"No background command 'bash_1'; {NO_COMMANDS}"),
    ("TaskOutput", "agent_2", "No background agent 'agent_2'; the ids are: agent_1."),
    ("TaskStop", "agent_2", "No background agent 'agent_2'; the ids are: agent_1."),
    # Malformed but begun as an agent's id: the model meant an agent, so the conductor answers,
    # naming the agents there are.
    ("TaskOutput", "agent_01", "No background agent 'agent_01'; the ids are: agent_1."),
    ("TaskStop", "agent_1 ", "No background agent 'agent_1 '; the ids are: agent_1."),
    ("TaskOutput", "agent_1\n", "No background agent 'agent_1\\n'; the ids are: agent_1."),
    # Malformed otherwise: no kind's id, answered by the executor as no command's.
    ("TaskOutput", "Agent_1", f"No background command 'Agent_1'; {NO_COMMANDS}"),
    ("TaskOutput", "1", f"No background command '1'; {NO_COMMANDS}"),
    ("TaskStop", "", f"No background command ''; {NO_COMMANDS}"),
]


async def test_ids_never_given_get_a_clear_error_and_stop_nothing(tmp_path: Path) -> None:
    root, home = tmp_path / "project", tmp_path / "home"
    root.mkdir()
    home.mkdir()
    calls = [
        call(tool, {"task_id": task_id}, id=f"toolu_{n}")
        for n, (tool, task_id, _) in enumerate(HOSTILE)
    ]
    calls.append(call("TaskStop", {"task_id": 1}, id="toolu_number"))

    def agent(n: int, turn: int) -> Step:
        return text("Agent 0 is done.")

    main = [tool_calls([agent_call(0, run_in_background=True)]), tool_calls(calls), text("Ok.")]
    with ScriptedServer(script(main, agent)) as server:
        async with pipeline_session(root, home, server.url, Recorder()) as session:
            conductor = session.conductor.address
            await conductor.ask(RunPrompt(text="go"))
            agents = await conductor.ask(ListBackgroundAgents())
        requests = [r for r in server.requests if not first_text(r).startswith("task ")]
    results = [b for b in requests[2].body["messages"][-1]["content"] if b["type"] == "tool_result"]
    assert [r["tool_use_id"] for r in results] == [
        *(f"toolu_{n}" for n in range(len(HOSTILE))),
        "toolu_number",
    ]
    assert all(r.get("is_error") for r in results)
    assert [r["content"] for r in results[:-1]] == [said for _, _, said in HOSTILE]
    assert results[-1]["content"].startswith("Invalid input for TaskStop: ")
    # The one agent there is was not stopped by any of them.
    [listed] = agents
    assert listed.state != "stopped"
