"""``legato --demo`` at a terminal: the real session against the scripted model, walked as a
new user would (the prompt waiting to be sent, a question with a diff, a slow command stopped
with Esc, /undo, the script's end, /rewind), in a scratch project that is gone afterwards."""

from __future__ import annotations

import os
import re
import time
from typing import TYPE_CHECKING

import pytest

from tests.interactive.conftest import session_env
from tests.interactive.terminal import processes_with

if TYPE_CHECKING:
    from pathlib import Path

    from tests.interactive.terminal import Terminal

pytestmark = pytest.mark.tmux


def test_the_demo_walks_a_question_a_diff_an_interrupted_command_and_undo(
    terminal: Terminal, folders: tuple[Path, Path]
) -> None:
    root, home = folders
    # No server of the test's: the demo starts its own; the URL given here must not be used.
    env = session_env(home, "http://127.0.0.1:9")
    env["ASSISTANT_PERMISSION_MODE"] = "auto"  # the person's own: the demo still asks
    terminal.start(root, env, "--demo")
    screen = terminal.wait_for("› Fix the typo in greet.py.", visible=True)
    found = re.search(r"Project: (\S+)", screen)
    assert found is not None, screen
    project = found.group(1)
    greet = os.path.join(project, "greet.py")
    with open(greet) as file:
        assert 'f"Helo, {name}!"' in file.read()
    assert "Press Enter to send the prompt waiting below" in screen

    terminal.keys("Enter")  # the prompt was waiting in the input, not sent
    # The question and its diff (drawn above it, in the same paint or the next).
    removed, added = '-    return f"Helo, {name}!"', '+    return f"Hello, {name}!"'
    terminal.wait_for(lambda s: "Allow? [" in s and removed in s and added in s)
    terminal.submit("y")
    terminal.wait_for("[demo] Fixed")
    with open(greet) as file:
        assert 'f"Hello, {name}!"' in file.read()

    terminal.submit("run the checks")
    terminal.wait_for("check 2/30")
    terminal.keys("Escape")
    terminal.wait_for("Interrupted")
    deadline = time.monotonic() + 5
    while processes_with("slow_check.py"):
        assert time.monotonic() < deadline, "the slow command outlived Esc"
        time.sleep(0.02)
    terminal.wait_for(lambda s: "esc to interrupt" not in s, visible=True)

    terminal.submit("/undo")
    terminal.wait_for(f"Restored {greet}")
    with open(greet) as file:
        assert 'f"Helo, {name}!"' in file.read()

    terminal.submit("what now?")
    terminal.wait_for("you stopped the slow command")
    terminal.submit("and now?")
    terminal.wait_for("That is the end of the demo's script")

    # Two prompts back: the conversation forgets them, the first comes back in the input, and
    # sent again it gets the reply it got before.
    terminal.submit("/rewind 2")
    terminal.wait_for("to just before prompt 3")
    assert terminal.visible().rstrip().splitlines()[-2].startswith("› what now?")
    terminal.keys("Enter")
    terminal.wait_for(lambda s: s.count("you stopped the slow command") == 2)

    terminal.submit("/quit")
    screen = terminal.wait_for("Demo over")
    assert terminal.exit_code() == 0
    assert not os.path.exists(project)
