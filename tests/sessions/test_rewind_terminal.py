"""/rewind in a real terminal (tmux): prompts that write files, Esc Esc, the list, both put back
and the prompt back in the input, /undo of the rewind; then the session killed between prompts
and rewound with --continue."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from typing import TYPE_CHECKING

import pytest

from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls
from tests.interactive.conftest import folders, session_env, terminal
from tests.interactive.terminal import EXITED, REPO

if TYPE_CHECKING:
    from pathlib import Path

    from tests.interactive.terminal import Terminal

pytestmark = pytest.mark.tmux
READY = "tokens · $"
__all__ = ["folders", "terminal"]


def input_line(screen: str) -> str:
    return [line for line in screen.splitlines() if line.strip()][-2]


def legato_pid(terminal: Terminal) -> int:
    """The legato process under the pane's shell."""
    pane = terminal.pane_pid()
    with open(f"/proc/{pane}/task/{pane}/children") as file:
        return int(file.read().split()[0])


def test_esc_esc_rewinds_both_and_undo_puts_them_back_then_a_crash_and_continue(
    terminal: Terminal, folders: tuple[Path, Path]
) -> None:
    root, home = folders
    a, b = root / "a.txt", root / "b.txt"
    steps = [
        tool_calls([call("Write", {"file_path": str(a), "content": "one\n"})]),
        text("Made a."),
        tool_calls([call("Write", {"file_path": str(b), "content": "two\n"})]),
        text("Made b."),
    ]
    with ScriptedServer(steps) as server:
        terminal.start(root, session_env(home, server.url), "--permission-mode", "auto")
        terminal.wait_for(READY, visible=True)
        terminal.submit("make a")
        terminal.wait_for("Made a.")
        terminal.submit("make b")
        terminal.wait_for("Made b.")
        assert (a.read_text(), b.read_text()) == ("one\n", "two\n")

        terminal.keys("Escape", "Escape")
        shown = terminal.wait_for("Enter or a number to pick", visible=True)
        rows = [line for line in shown.splitlines() if "to restore" in line]
        assert "❯ 1. make b" in rows[0] and "2. make a" in rows[1], shown
        terminal.keys("Down")
        terminal.wait_for(lambda screen: "❯ 2. make a" in screen, visible=True)
        terminal.keys("Enter")
        shown = terminal.wait_for("Restore what?", visible=True)
        assert "Restore code and conversation" in shown and "Never mind" in shown
        terminal.keys("Enter")
        terminal.wait_for("Rewound the code and the conversation to just before prompt 1")
        assert not a.exists() and not b.exists()
        # The rewound prompt waits in the input, ready to send again or edit.
        terminal.wait_for(lambda screen: input_line(screen) == "› make a", visible=True)

        # Esc Esc with text typed clears it; the list's first row now undoes the rewind.
        terminal.keys("Escape", "Escape")
        terminal.wait_for(lambda screen: input_line(screen) == "›", visible=True)
        terminal.keys("Escape", "Escape")
        terminal.wait_for("❯ 1. ↶ Undo the rewind to before prompt 1", visible=True)
        terminal.keys("Enter")
        terminal.wait_for("Undid the rewind to before prompt 1")
        assert (a.read_text(), b.read_text()) == ("one\n", "two\n")

        # /rewind N without the lists, then /undo puts it back.
        terminal.submit("/rewind 2")
        terminal.wait_for(lambda screen: input_line(screen) == "› make a", visible=True)
        assert not a.exists()
        terminal.keys("C-u")
        terminal.submit("/undo")
        terminal.wait_for(lambda screen: screen.count("Undid the rewind to before prompt 1") == 2)
        assert (a.read_text(), b.read_text()) == ("one\n", "two\n")

        # A crash between prompts: the next run goes on from the session file.
        os.kill(legato_pid(terminal), signal.SIGKILL)
        terminal.wait_for(f"{EXITED}{128 + signal.SIGKILL}")
    with ScriptedServer([]) as server:
        rewound = subprocess.run(
            [sys.executable, "-c", "from frontends.cli import main; main()", str(root),
             "--continue", "--headless", "/rewind 1"],
            cwd=REPO, env=session_env(home, server.url), capture_output=True, text=True,
            timeout=60,
        )  # fmt: skip
    assert rewound.returncode == 0, rewound.stderr
    assert rewound.stdout.splitlines()[0] == (
        "Rewound the code and the conversation to just before prompt 2 (“make b”)."
    )
    assert a.read_text() == "one\n" and not b.exists()
