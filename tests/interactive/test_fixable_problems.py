"""Problems the person can fix, said to the person: a missing key when the session starts,
before any prompt, and a command not on PATH under its call. A real ``legato`` in a real
terminal (tmux)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from actors.errors import REMEDY_COMMAND
from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls
from tests.interactive.conftest import session_env

if TYPE_CHECKING:
    from pathlib import Path

    from tests.interactive.terminal import Terminal

pytestmark = pytest.mark.tmux


def test_a_missing_key_is_said_under_the_banner_before_any_prompt(
    terminal: Terminal, folders: tuple[Path, Path]
) -> None:
    root, home = folders
    env = session_env(home, "http://127.0.0.1:9")
    del env["ASSISTANT_API_KEY"]
    terminal.start(root, env)
    # Nothing is typed: the session says it of itself.
    screen = terminal.wait_for("→ Set ASSISTANT_API_KEY to your API key")
    assert "No API key is set" in screen
    # Under the banner, not in place of the session: it still takes commands.
    assert screen.index("✻ Legato") < screen.index("No API key is set")
    terminal.submit("/quit")
    assert terminal.exit_code() == 0


def test_a_session_with_a_key_starts_without_a_key_problem(
    terminal: Terminal, folders: tuple[Path, Path]
) -> None:
    root, home = folders
    with ScriptedServer([text("Hello.")]) as server:
        terminal.start(root, session_env(home, server.url))
        terminal.wait_for("tokens", visible=True)
        terminal.submit("hi")
        screen = terminal.wait_for("Hello.")
        assert "API key" not in screen
        terminal.submit("/quit")
        assert terminal.exit_code() == 0


def test_a_command_not_found_shows_the_person_its_remedy(
    terminal: Terminal, folders: tuple[Path, Path]
) -> None:
    root, home = folders
    settings = root / ".legato" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(
        json.dumps({"permissionMode": "custom", "allowedCommands": ["legato-no-such-tool"]})
    )
    steps = [tool_calls([call("Bash", {"command": "legato-no-such-tool --x"})]), text("Gone.")]
    with ScriptedServer(steps) as server:
        terminal.start(root, session_env(home, server.url))
        terminal.wait_for("tokens", visible=True)
        terminal.submit("run the tool")
        # Both lines read below: under load, one capture can fall between two paints.
        screen = terminal.wait_for(
            lambda text: "Gone." in text and "legato-no-such-tool: command not found" in text
        )
        terminal.submit("/quit")
        assert terminal.exit_code() == 0
    below = screen.split("legato-no-such-tool: command not found", 1)[1].splitlines()
    assert below[1].strip() == f"→ {REMEDY_COMMAND}"
