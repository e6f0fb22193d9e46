"""The interactive session end to end: a real terminal (tmux), a real ``legato``, the scripted
server. Tests type with send-keys and read the screen with capture-pane."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
import uuid
from typing import TYPE_CHECKING, Any

import pytest

from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls
from tests.interactive.conftest import session_env
from tests.interactive.terminal import REPO, processes_with

if TYPE_CHECKING:
    from pathlib import Path

    from tests.interactive.terminal import Terminal

pytestmark = pytest.mark.tmux


def tool_results(body: dict[str, Any]) -> list[dict[str, Any]]:
    message = body["messages"][-1]
    assert message["role"] == "user"
    return [b for b in message["content"] if b.get("type") == "tool_result"]


def test_an_answer_streams_and_cost_and_quit_work(
    terminal: Terminal, folders: tuple[Path, Path]
) -> None:
    root, home = folders
    answer = "Here is the **plan**:\n\n- first step\n- second step\n\n```python\nprint('hi')\n```\n"
    with ScriptedServer([text(answer, delay=0.005)]) as server:
        terminal.start(root, session_env(home, server.url))
        terminal.wait_for("tokens", visible=True)
        terminal.submit("explain the plan")
        # The finished answer: its list is drawn as the stream ends, not always before the
        # code block's last line shows, so both are waited for.
        screen = terminal.wait_for(lambda s: "print('hi')" in s and "• second step" in s)
        assert "Here is the plan:" in screen
        assert screen.count("• first step") == 1  # printed once into the scrollback
        assert screen.count("Here is the plan:") == 1
        terminal.wait_for(lambda s: "tokens" in s and "$0.0000" not in s, visible=True)
        terminal.submit("/cost")
        screen = terminal.wait_for("Total cost:")
        usage = server.requests[0]
        assert usage.body["messages"][0]["content"][0]["text"] == "explain the plan"
        assert "Input tokens:" in screen
        assert "Output tokens:" in screen
        terminal.submit("/quit")
        assert terminal.exit_code() == 0


def test_shift_tab_cycles_normal_auto_accept_plan(
    terminal: Terminal, folders: tuple[Path, Path]
) -> None:
    root, home = folders
    with ScriptedServer([]) as server:
        terminal.start(root, session_env(home, server.url))
        terminal.wait_for("tokens", visible=True)
        assert "accept edits on" not in terminal.status_line()
        assert "plan mode on" not in terminal.status_line()
        terminal.keys("BTab")
        terminal.wait_for(lambda s: "⏵⏵ accept edits on" in s, visible=True)
        terminal.keys("BTab")
        terminal.wait_for(lambda s: "⏸ plan mode on" in s, visible=True)
        assert "accept edits on" not in terminal.status_line()
        terminal.keys("BTab")
        terminal.wait_for(
            lambda s: "plan mode on" not in s and "accept edits on" not in s, visible=True
        )
        terminal.keys("C-d")
        assert terminal.exit_code() == 0


def test_permission_replies_y_n_always_never(
    terminal: Terminal, folders: tuple[Path, Path]
) -> None:
    root, home = folders
    steps = [
        tool_calls([call("Bash", {"command": "echo first-y"})]),
        tool_calls([call("Bash", {"command": "echo second-n"})]),
        tool_calls([call("Bash", {"command": "echo third-always"})]),
        tool_calls([call("Bash", {"command": "echo fourth-remembered"})]),
        tool_calls([call("Bash", {"command": "ls -d never-dir"})]),
        tool_calls([call("Bash", {"command": "ls -d also-never"})]),
        text("Finished."),
    ]
    with ScriptedServer(steps) as server:
        terminal.start(root, session_env(home, server.url))
        terminal.wait_for("tokens", visible=True)
        terminal.submit("run the commands")
        for reply in ("y", "n", "always"):
            terminal.wait_for(lambda s: "Allow? [y/n/always/never]" in s, visible=True)
            terminal.wait_for("Run command")
            terminal.submit(reply)
            terminal.wait_for(f"→ {reply}")
        terminal.wait_for(lambda s: s.count("→ ") == 3 and "Allow?" in s, visible=True)
        terminal.submit("never")
        screen = terminal.wait_for("Finished.")
        assert screen.count("Allow? [") == 0  # no question left on screen
        assert screen.count("→ ") == 4  # 'always' and 'never' were not asked again
        results = [tool_results(r.body)[0] for r in server.requests[1:]]
        assert "first-y" in results[0]["content"]
        assert results[1].get("is_error") and "denied" in results[1]["content"]
        assert "third-always" in results[2]["content"]
        assert "fourth-remembered" in results[3]["content"]
        assert results[4].get("is_error") and results[5].get("is_error")
        assert "for this session" in results[5]["content"]
        terminal.submit("/quit")
        assert terminal.exit_code() == 0


def test_escape_stops_a_long_command_and_leaves_no_process(
    terminal: Terminal, folders: tuple[Path, Path]
) -> None:
    root, home = folders
    marker = f"{uuid.uuid4().int % 10**6 + 10**6}"
    steps = [
        tool_calls([call("Bash", {"command": f"sleep {marker}"})], text="Sleeping."),
        text("Back again."),
    ]
    with ScriptedServer(steps) as server:
        terminal.start(root, session_env(home, server.url))
        terminal.wait_for("tokens", visible=True)
        terminal.submit("sleep a long time")
        terminal.wait_for("Allow? [", visible=True)
        terminal.submit("y")
        terminal.wait_for(f"● Bash(sleep {marker})", visible=True)
        deadline = time.monotonic() + 10
        while not processes_with(f"sleep {marker}"):
            assert time.monotonic() < deadline, "the command never started"
            time.sleep(0.02)
        terminal.keys("Escape")
        screen = terminal.wait_for("Interrupted")
        assert f"Bash(sleep {marker})" in screen
        deadline = time.monotonic() + 5
        while processes_with(f"sleep {marker}"):
            assert time.monotonic() < deadline, "the command outlived the interrupt"
            time.sleep(0.02)
        terminal.wait_for(lambda s: "esc to interrupt" not in s, visible=True)
        terminal.submit("are you back?")
        terminal.wait_for("Back again.")
        # The interrupted tool call was closed in the conversation: the API accepted it.
        assert len(server.requests) == 2
        terminal.keys("C-c")
        terminal.wait_for("Press Ctrl-C again", visible=True)
        terminal.keys("C-c")
        assert terminal.exit_code() == 0


def test_the_terminal_is_restored_after_sigterm_mid_answer(
    terminal: Terminal, folders: tuple[Path, Path]
) -> None:
    root, home = folders
    words = " ".join(f"w{i}" for i in range(2_000))
    with ScriptedServer([text(words, delay=0.01)]) as server:
        terminal.start(root, session_env(home, server.url))
        terminal.wait_for("tokens", visible=True)
        terminal.submit("talk")
        terminal.wait_for("w20")
        shell = terminal.pane_pid()
        legato = [pid for pid in processes_with("frontends.cli") if _parent(pid) == shell]
        assert len(legato) == 1
        os.kill(legato[0], signal.SIGTERM)
        assert terminal.exit_code() == 0
        assert terminal.stty("after") == terminal.stty("before")


def _parent(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as file:
        return int(file.read().rsplit(")", 1)[1].split()[1])


def test_without_a_terminal_it_says_to_use_headless(folders: tuple[Path, Path]) -> None:
    root, home = folders
    done = subprocess.run(
        [sys.executable, "-c", "from frontends.cli import main; main()", str(root)],
        input="hello\n",
        capture_output=True,
        text=True,
        cwd=REPO,
        env=session_env(home, "http://127.0.0.1:9"),
        timeout=30,
    )
    assert done.returncode == 2
    assert "needs a terminal" in done.stderr
    assert 'legato -p "<prompt>"' in done.stderr
    assert done.stdout == ""


def test_the_screen_starts_with_the_banner_and_menus_leave_the_status_line_in_sight(
    terminal: Terminal, folders: tuple[Path, Path]
) -> None:
    root, home = folders
    (root / "x.py").write_text("a = 1\n")
    steps = [
        # No new_string: refused before it runs, and the failure names the file.
        tool_calls([call("Edit", {"file_path": "x.py", "old_string": "a"})]),
        text("# Title\n\nDone.\n"),
    ]
    with ScriptedServer(steps) as server:
        terminal.start(root, session_env(home, server.url))
        screen = terminal.wait_for("tokens", visible=True)
        # Nothing above the banner: no copy of the prompt or the status line.
        assert screen.lstrip("\n").startswith("✻ Legato")
        assert screen.count("tokens") == 1
        terminal.type("/")
        terminal.wait_for("/clear", visible=True)
        assert "tokens" in terminal.status_line()  # the menu is drawn above it, not over it
        terminal.keys("C-u")
        terminal.submit("fix x.py")
        screen = terminal.wait_for("Done.")
        lines = screen.splitlines()
        assert any(line.startswith("✗ Edit(x.py)") for line in lines), screen
        assert "Title" in lines  # a heading starts at the left edge, as rich would not have it
        assert screen.lstrip("\n").startswith("✻ Legato")
        terminal.submit("/quit")
        assert terminal.exit_code() == 0
