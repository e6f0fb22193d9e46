"""``/tasks`` in a whole interactive session: it lists the background commands and agents with
their id, kind, state, age and latest line; ``/tasks stop <id>`` stops one, and the model hears
of it next turn. Each running one has a status line under the answer while it runs."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from actors.protocol import BackgroundAgent, BackgroundCommand
from frontends.demo.scripted_api import Gate, call, text, tool_calls
from frontends.interactive.tasks import age, listing, status_lines
from tests.interactive.test_session import bodies, run
from tests.pipeline.test_agents import agent_call, script
from tests.tool_executor.harness import is_running, running_in

if TYPE_CHECKING:
    from pathlib import Path

    from frontends.demo.scripted_api import Step

pytestmark = pytest.mark.anyio


def commands_of(pids: list[int]) -> dict[int, str]:
    found = {}
    for pid in pids:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as file:
                found[pid] = file.read().replace(b"\0", b" ").decode().strip()
        except OSError:
            continue  # it has ended
    return found


async def test_tasks_lists_a_command_and_an_agent_and_stops_the_agent(
    folders: tuple[Path, Path],
) -> None:
    root = folders[0]
    (root / ".legato").mkdir()
    (root / ".legato" / "settings.json").write_text(
        json.dumps(
            {
                "permissionMode": "custom",
                "allowedPaths": ["**"],
                "allowedCommands": ["sleep", "touch"],
            }
        )
    )
    started = root / "started"

    def agent(n: int, turn: int) -> Step:
        return tool_calls([call("Bash", {"command": f"touch {started}; sleep 301"})])

    both = [
        call("Bash", {"command": "sleep 300", "run_in_background": True}),
        agent_call(0, run_in_background=True),
    ]
    main = [tool_calls(both), text("Both run."), text("Heard.")]
    async for live, server in run(folders, script(main, agent)):
        await live.submit("start both")
        await live.shown("Both run.")
        await live.idle()
        await live.until(started.exists)
        await live.shown("◦ bash_1 running")
        await live.shown("◦ agent_1 running")
        await live.submit("/tasks")
        await live.shown("bash_1   command running")
        await live.shown("agent_1  agent   running")
        await live.shown("\n      Bash: touch ")  # its latest activity
        agents_own = [p for p, c in commands_of(running_in(root)).items() if "301" in c]
        assert agents_own
        await live.submit("/tasks stop agent_1")
        await live.shown("Stopped agent_1 (general-purpose: job 0): stopped by the user after")
        # Its command is gone (the reply came once its group had ended; a zombie is reaped
        # a moment later).
        await live.until(lambda: not any(is_running(pid) for pid in agents_own))  # noqa: B023
        assert any("300" in c for c in commands_of(running_in(root)).values())  # bash_1 runs on
        await live.submit("and now?")
        await live.shown("Heard.")
        note = bodies(server)[-1]["messages"][-1]["content"]
        assert any(
            "agent_1 (general-purpose: job 0) has ended: stopped by the user" in b.get("text", "")
            for b in note
        )


async def test_a_background_agent_asks_at_the_idle_prompt_and_its_line_goes_when_done(
    folders: tuple[Path, Path],
) -> None:
    root = folders[0]
    # Its call comes only once the turn that started it is over: the question finds no turn.
    hold = Gate(path=str(root / "go"), before_block=1, timeout=30)

    def agent(n: int, turn: int) -> Step:
        if turn == 0:
            command = f"touch {root}/ran"
            return tool_calls([call("Bash", {"command": command})], text="Looking.", gate=hold)
        return text("Agent done.")

    main = [tool_calls([agent_call(0, run_in_background=True)]), text("It runs.")]
    async for live, _ in run(folders, script(main, agent)):
        await live.submit("start it")
        await live.shown("It runs.")
        await live.idle()
        await live.shown("◦ agent_1 running")
        (root / "go").touch()
        await live.shown("requested by Bash (agent: general-purpose)")
        await live.shown("Allow? [y/n/always/never]")
        await live.submit("y")
        await live.until((root / "ran").exists)
        screen = live.session.screen
        await live.until(lambda: screen.background == ())  # noqa: B023
        await live.submit("/tasks")
        await live.shown("agent_1  agent   completed")


async def test_tasks_lists_and_stops_a_background_command(folders: tuple[Path, Path]) -> None:
    root = folders[0]
    steps = [
        tool_calls([call("Bash", {"command": "sleep 300", "run_in_background": True})]),
        text("It runs."),
        text("Heard."),
    ]
    async for live, server in run(folders, steps):
        await live.submit("/tasks")
        await live.shown("No background commands or agents in this session.")
        await live.submit("start it")
        await live.shown("requested by Bash")
        await live.submit("y")
        await live.shown("It runs.")
        await live.idle()
        await live.shown("◦ bash_1 running 0s · sleep 300")  # its line under the answer
        await live.submit("/tasks")
        await live.shown("bash_1   command running")
        assert running_in(root) != []
        await live.submit("/tasks stop bash_1")
        await live.shown("Stopped bash_1, with every process it started: killed by the user")
        assert running_in(root) == []
        screen = live.session.screen
        # Its line goes (the lambda is awaited here, in the iteration that made it).
        await live.until(lambda: screen.background == ())  # noqa: B023
        await live.submit("/tasks halt")
        await live.shown("/tasks does not take 'halt'")
        await live.submit("/tasks stop bash_01")  # an id of neither kind: no command's
        await live.shown("No background command 'bash_01'; the ids are: bash_1.")
        await live.submit("/tasks stop agent_1")  # an agent's: the conductor has none
        await live.shown("No background agent 'agent_1'; the ids are: none")
        await live.submit("/tasks stop agent_01")  # meant as an agent's: the agents are named
        await live.shown("No background agent 'agent_01'; the ids are: none")
        await live.submit("and now?")
        await live.shown("Heard.")
        note = bodies(server)[-1]["messages"][-1]["content"]
        assert any("bash_1 ('sleep 300') has ended: killed by the user" in b["text"] for b in note)


def test_the_listing_has_id_kind_state_age_and_last_line() -> None:
    commands = [
        BackgroundCommand(
            id="bash_1", command="npm run dev\n--port 3000", state="running",
            status="running for 65.2 s", age=65.2, last_line="listening on :3000",
        ),
        BackgroundCommand(
            id="bash_2", command="make", state="exited", status="exited with code 0 after 3.0 s",
            age=3.0, last_line="",
        ),
    ]  # fmt: skip
    agents = [
        BackgroundAgent(
            id="agent_1", agent="general-purpose", description="find the bug", state="running",
            status="running for 4.0 s", age=4.0, activity="Bash: pytest -x",
        ),
        BackgroundAgent(
            id="agent_2", agent="reviewer", description="review", state="completed",
            status="completed after 9.0 s", age=9.0, activity="",
        ),
    ]  # fmt: skip
    assert listing(commands, agents) == (
        "Background tasks (id, kind, state, age, what it runs; its latest output or activity "
        "under it):\n"
        "  bash_1   command running      1m05s  npm run dev\n"
        "      listening on :3000\n"
        "  bash_2   command exited          3s  make\n"
        "  agent_1  agent   running         4s  general-purpose: find the bug\n"
        "      Bash: pytest -x\n"
        "  agent_2  agent   completed       9s  reviewer: review"
    )
    assert status_lines(commands, agents) == (
        "◦ bash_1 running 1m05s · npm run dev · listening on :3000",
        "◦ agent_1 running 4s · general-purpose: find the bug · Bash: pytest -x",
    )
    assert [age(s) for s in (0.4, 59.9, 60, 3599, 3600, 7322)] == [
        "0s", "59s", "1m00s", "59m59s", "1h00m", "2h02m"
    ]  # fmt: skip
