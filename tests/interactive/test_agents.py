"""Subagents in the terminal: the agent's line with its latest call, its question naming it,
and Ctrl-C stopping it with every process it started."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from frontends.demo.scripted_api import call, text, tool_calls
from tests.interactive.test_session import bodies, run
from tests.pipeline.test_agents import agent_call, script
from tests.tool_executor.harness import is_running, running_in

if TYPE_CHECKING:
    from pathlib import Path

    from frontends.demo.scripted_api import Step

pytestmark = pytest.mark.anyio
CTRL_C = "\x03"


async def test_an_agent_asks_as_itself_shows_its_call_and_stops_on_ctrl_c(
    folders: tuple[Path, Path],
) -> None:
    root, _ = folders
    started = root / "started"

    def agent(n: int, turn: int) -> Step:
        command = f"touch {started}; sleep 30"
        return tool_calls([call("Bash", {"command": command})])

    main = [tool_calls([agent_call(0)]), text("Not reached.")]
    async for live, server in run(folders, script(main, agent)):
        await live.submit("review it")
        await live.shown("requested by Bash (agent: general-purpose)")
        await live.submit("y")
        await live.until(started.exists)
        # The agent's line, with its running call under it.
        await live.shown("Agent(general-purpose: job 0)")
        await live.shown("    Bash(touch ")
        sleeping = running_in(root)
        assert sleeping
        live.pipe.send_text(CTRL_C)
        await live.shown("Interrupted. What should Legato do instead?")
        await live.idle()

        def gone(pids: list[int] = sleeping) -> bool:
            return not any(is_running(pid) for pid in pids)

        await live.until(gone)  # every process the agent started
        assert len(bodies(server)) == 2  # the main answer and the agent's: nothing after


async def test_a_broken_agent_file_is_warned_of_under_the_banner(
    folders: tuple[Path, Path],
) -> None:
    agents = folders[0] / ".legato" / "agents"
    agents.mkdir(parents=True)
    (agents / "bad.md").write_text("---\nname: bad\n---\nHi.\n")
    async for live, _ in run(folders, [text("unused")]):
        await live.shown("Skipped agent file that could not be read")
        shown = live.text()
        assert shown.index("✻ Legato") < shown.index("Skipped agent file")
        assert shown.count("Skipped agent file") == 1
