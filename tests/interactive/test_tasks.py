"""``/tasks`` in a whole interactive session: it lists the background commands with their id,
state, age and last line; ``/tasks stop <id>`` stops one, and the model hears of it next turn.
Each running one has a status line under the answer while it runs."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from actors.protocol import BackgroundCommand
from frontends.demo.scripted_api import call, text, tool_calls
from frontends.interactive.tasks import age, listing, status_lines
from tests.interactive.test_session import bodies, run
from tests.tool_executor.harness import running_in

if TYPE_CHECKING:
    from pathlib import Path

pytestmark = pytest.mark.anyio


async def test_tasks_lists_and_stops_a_background_command(folders: tuple[Path, Path]) -> None:
    root = folders[0]
    steps = [
        tool_calls([call("Bash", {"command": "sleep 300", "run_in_background": True})]),
        text("It runs."),
        text("Heard."),
    ]
    async for live, server in run(folders, steps):
        await live.submit("/tasks")
        await live.shown("No background commands in this session.")
        await live.submit("start it")
        await live.shown("requested by Bash")
        await live.submit("y")
        await live.shown("It runs.")
        await live.idle()
        await live.shown("◦ bash_1 running 0s · sleep 300")  # its line under the answer
        await live.submit("/tasks")
        await live.shown("bash_1   running")
        assert running_in(root) != []
        await live.submit("/tasks stop bash_1")
        await live.shown("Stopped bash_1, with every process it started: killed by the user")
        assert running_in(root) == []
        screen = live.session.screen
        # Its line goes (the lambda is awaited here, in the iteration that made it).
        await live.until(lambda: screen.background == ())  # noqa: B023
        await live.submit("/tasks halt")
        await live.shown("/tasks does not take 'halt'")
        await live.submit("and now?")
        await live.shown("Heard.")
        note = bodies(server)[-1]["messages"][-1]["content"]
        assert any("bash_1 ('sleep 300') has ended: killed by the user" in b["text"] for b in note)


def test_the_listing_has_id_state_age_and_last_line() -> None:
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
    assert listing(commands) == (
        "Background commands (id, state, age, command; last output line under it):\n"
        "  bash_1   running      1m05s  npm run dev\n"
        "      listening on :3000\n"
        "  bash_2   exited          3s  make"
    )
    assert status_lines(commands) == ("◦ bash_1 running 1m05s · npm run dev · listening on :3000",)
    assert [age(s) for s in (0.4, 59.9, 60, 3599, 3600, 7322)] == [
        "0s", "59s", "1m00s", "59m59s", "1h00m", "2h02m"
    ]  # fmt: skip
