"""Background commands in a real terminal (tmux): Esc stops the answer's command, not the
background one (the hint under the prompt says so), which ``/tasks`` still lists as running;
quitting stops it."""

from __future__ import annotations

import time
import uuid
from typing import TYPE_CHECKING

import pytest

from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls
from tests.interactive.conftest import session_env
from tests.interactive.terminal import processes_with

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from tests.interactive.terminal import Terminal

pytestmark = pytest.mark.tmux


def wait_until(condition: Callable[[], object], what: str, timeout: float = 10) -> None:
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, what
        time.sleep(0.02)


def test_escape_spares_background_commands_and_quitting_stops_them(
    terminal: Terminal, folders: tuple[Path, Path]
) -> None:
    root, home = folders
    kept, stopped = (f"{uuid.uuid4().int % 10**6 + 10**6}" for _ in range(2))
    steps = [
        tool_calls(
            [
                call("Bash", {"command": f"sleep {kept}", "run_in_background": True}),
                call("Bash", {"command": f"sleep {stopped}"}),
            ]
        ),
        text("Back again."),
    ]
    with ScriptedServer(steps) as server:
        terminal.start(root, session_env(home, server.url))
        terminal.wait_for("tokens", visible=True)
        terminal.submit("start both")
        for answered in range(2):

            def asked(screen: str, answered: int = answered) -> bool:
                return screen.count("→ ") == answered and "Allow? [" in screen

            terminal.wait_for(asked, visible=True)
            terminal.submit("y")
        wait_until(lambda: processes_with(f"sleep {stopped}"), "the command never started")
        assert processes_with(f"sleep {kept}")
        # While background work runs too, the hint says what Esc stops.
        terminal.wait_for("esc to interrupt (background tasks run on)", visible=True)
        terminal.keys("Escape")
        terminal.wait_for("Interrupted")
        wait_until(lambda: not processes_with(f"sleep {stopped}"), "it outlived the interrupt")
        assert processes_with(f"sleep {kept}"), "Esc stopped the background command"
        terminal.wait_for(lambda s: "esc to interrupt" not in s, visible=True)
        terminal.submit("/tasks")
        screen = terminal.wait_for("Background tasks (")
        assert "bash_1   command running" in screen
        terminal.submit("/quit")
        assert terminal.exit_code() == 0
        wait_until(lambda: not processes_with(f"sleep {kept}"), "it outlived the session", 5)
        assert len(server.requests) == 1
