"""Permission replies in a real terminal (tmux): questions in the model's order, each shown
once, a search's folder asked about as a folder; what an 'always' or 'never' covers, said when
given and kept to the question's kind; ``/permissions`` listing the replies and ``forget``
undoing one; a mode change saying whether the replies still apply."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls
from tests.interactive.conftest import session_env

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from tests.interactive.terminal import Terminal

pytestmark = pytest.mark.tmux
QUESTION = "Allow? [y/n/always/never]"


def asking(answered: int) -> Callable[[str], bool]:
    """The screen shows a question after ``answered`` answers."""
    return lambda screen: screen.count("→ ") == answered and QUESTION in screen


def said(screen: str) -> str:
    """The screen's words, one space apart: the terminal wraps long lines anywhere."""
    return " ".join(screen.split())


def results(body: dict[str, Any]) -> list[str]:
    return [b["content"] for b in body["messages"][-1]["content"] if b["type"] == "tool_result"]


def test_questions_come_in_the_models_order_once_each(
    terminal: Terminal, folders: tuple[Path, Path]
) -> None:
    root, home = folders
    (root / "src").mkdir()
    (root / "src" / "a.py").write_text("x = 1\n")
    steps = [
        tool_calls(
            [
                call("Write", {"file_path": str(root / "new.txt"), "content": "new\n"}),
                call("Glob", {"pattern": "*.py", "path": str(root / "src")}),
                call("Bash", {"command": "echo third"}),
            ]
        ),
        text("Done."),
    ]
    with ScriptedServer(steps) as server:
        terminal.start(root, session_env(home, server.url))
        terminal.wait_for("tokens", visible=True)
        terminal.submit("make the changes")
        for answered in range(3):
            terminal.wait_for(asking(answered))
            terminal.submit("y")
        screen = terminal.wait_for("Done.")
        asked = [
            "? Create file  " + str(root / "new.txt"),
            "? Read folder  " + str(root / "src") + "/",  # a folder, not a file
            "? Run command  echo third",
        ]
        assert [screen.count(question) for question in asked] == [1, 1, 1]
        places = [screen.index(question) for question in asked]
        assert places == sorted(places)
        assert results(server.requests[1].body)[2].strip() == "third"
        terminal.submit("/quit")
        assert terminal.exit_code() == 0


def test_always_and_never_say_what_they_cover_and_permissions_forgets_them(
    terminal: Terminal, folders: tuple[Path, Path]
) -> None:
    root, home = folders
    (root / "old.txt").write_text("old\n")
    steps = [
        tool_calls([call("Write", {"file_path": str(root / "new.txt"), "content": "new\n"})]),
        tool_calls([call("Read", {"file_path": str(root / "old.txt")})]),
        tool_calls([call("Write", {"file_path": str(root / "old.txt"), "content": "edited\n"})]),
        text("Refused."),
        tool_calls([call("Write", {"file_path": str(root / "old.txt"), "content": "edited\n"})]),
        text("Edited."),
    ]
    with ScriptedServer(steps) as server:
        terminal.start(root, session_env(home, server.url))
        terminal.wait_for("tokens", visible=True)
        terminal.submit("change the files")
        for answered, reply in enumerate(("always", "y", "never")):
            terminal.wait_for(asking(answered))
            terminal.submit(reply)
        screen = said(terminal.wait_for("Refused."))
        assert (
            "→ always: allows creating new files inside the project for the rest of this "
            "session, in every mode (/permissions forget undoes it)" in screen
        )
        # The 'always' for Create file did not cover editing a file that exists: it asked.
        assert "? Write file " + str(root / "old.txt") in screen
        assert "→ never: refuses editing existing files inside the project" in screen
        # The refusal is shown whole, with the one way to undo it.
        assert (
            "denied Permission denied: the user denied editing existing files inside the project "
            "for this session. /permissions lists the reply; /permissions forget <number> "
            "removes it"
        ) in screen
        assert (root / "old.txt").read_text() == "old\n"
        terminal.submit("/permissions")
        screen = said(terminal.wait_for("Your replies this session"))
        assert (
            "Your replies this session (/permissions forget <number> removes one): "
            "1. always creating new files inside the project "
            "2. never editing existing files inside the project"
        ) in screen
        terminal.submit("/permissions forget 2")
        terminal.wait_for("Forgot 'never' for editing existing files")
        terminal.submit("/permissions forget 2")  # the list is one shorter now
        terminal.wait_for("/permissions forget 2: there is no reply 2")
        terminal.submit("edit it after all")
        terminal.wait_for(asking(4))  # asked again (the error above has a → line too)
        terminal.submit("y")
        terminal.wait_for("Edited.")
        assert (root / "old.txt").read_text() == "edited\n"
        terminal.keys("BTab")
        terminal.wait_for("Your 'always'/'never' reply still applies in this mode.")
        terminal.keys("BTab")
        screen = said(terminal.wait_for("In Plan Mode"))
        assert (
            "In Plan Mode writes and commands are refused whatever your 'always'/'never' reply "
            "says; it applies again when you leave it (Shift+Tab)."
        ) in screen
        terminal.submit("/quit")
        assert terminal.exit_code() == 0
