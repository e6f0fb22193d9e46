"""``/context``, ``/add-dir`` and ``/resume`` in a real terminal, one story: the bar after an
answer, a folder beside the project added and read by the model with no question, then an
older session picked and its last exchange on the screen."""

from __future__ import annotations

import subprocess
import sys
from typing import TYPE_CHECKING

import pytest

from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls
from tests.interactive.conftest import session_env
from tests.interactive.terminal import REPO

if TYPE_CHECKING:
    from pathlib import Path

    from tests.interactive.terminal import Terminal

pytestmark = pytest.mark.tmux


def test_context_add_dir_and_resume_in_one_session(
    terminal: Terminal, folders: tuple[Path, Path]
) -> None:
    root, home = folders
    other = root.parent / "other"
    other.mkdir()
    (other / "notes.txt").write_text("notes kept beside the project\n")
    read = call("Read", {"file_path": str(other / "notes.txt")})
    steps = [
        text("the older answer"),  # the session to go back to, made headless first
        text("the newer answer"),
        tool_calls([read]),
        text("read the notes beside it"),
    ]
    with ScriptedServer(steps) as server:
        env = session_env(home, server.url)
        older = subprocess.run(
            [sys.executable, "-c", "from frontends.cli import main; main()", str(root),
             "--headless", "the older prompt"],
            capture_output=True, text=True, cwd=REPO, env=env, timeout=60,
        )  # fmt: skip
        assert older.returncode == 0, older.stderr
        # Edits accepted in the project: a Read there needs no question, outside it one would.
        terminal.start(root, env, "--permission-mode", "acceptEdits")
        terminal.wait_for("tokens", visible=True)
        terminal.submit("the newer prompt")
        terminal.wait_for("the newer answer")

        terminal.submit("/context")
        terminal.wait_for("Auto-compact reserve")
        bar = next(line for line in terminal.styled().splitlines() if line.count("█") >= 2)
        # A row of cells, each part in a colour of its own: several colours in the one row.
        assert bar.count("\x1b[38;") >= 3, bar
        assert "Messages" in terminal.screen()

        terminal.submit("/add-dir ../other")
        terminal.wait_for(f"Added {other}")
        terminal.submit("read the notes")
        terminal.wait_for("read the notes beside it")
        assert "Allow?" not in terminal.screen()
        result = server.requests[3].body["messages"][-1]["content"][0]
        assert "notes kept beside the project" in str(result["content"])

        terminal.submit("/resume")
        terminal.wait_for("Resume which session?")
        terminal.keys("Escape")  # let go: this session goes on
        terminal.wait_for("No session picked; this one goes on.")
        terminal.submit("/resume")
        terminal.wait_for(lambda screen: screen.count("Resume which session?") == 1)
        assert "the older prompt" in terminal.screen()
        terminal.submit("1")
        screen = terminal.wait_for("Resumed session")
        assert "the older answer" in screen.split("Resumed session")[-1]
        terminal.submit("/quit")
        assert terminal.exit_code() == 0
