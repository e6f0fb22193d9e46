"""Ctrl+V in a real terminal (tmux) with a fake clipboard tool on PATH: a real process that
prints a PNG the test made. The image shows as [Image #1] and reaches the model."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from frontends.demo.scripted_api import ScriptedServer, text
from tests.interactive.conftest import session_env
from tests.interactive.test_clipboard import fake_xclip, png_file

if TYPE_CHECKING:
    from pathlib import Path

    from tests.interactive.terminal import Terminal

pytestmark = pytest.mark.tmux


def test_ctrl_v_pastes_the_clipboards_image(terminal: Terminal, folders: tuple[Path, Path]) -> None:
    root, home = folders
    tools = home / "tools"
    tools.mkdir()
    fake_xclip(tools, f'exec /bin/cat "{png_file(tools)}"')
    with ScriptedServer([text("A red box.")]) as server:
        env = session_env(home, server.url)
        env["PATH"] = f"{tools}:{env.get('PATH', '/usr/bin:/bin')}"
        terminal.start(root, env)
        terminal.wait_for("tokens", visible=True)
        terminal.type("what is this? ")
        terminal.keys("C-v")
        terminal.wait_for(lambda s: "what is this? [Image #1]" in s, visible=True)
        terminal.keys("Enter")
        terminal.wait_for("A red box.")
        content = server.requests[0].body["messages"][0]["content"]
        assert [b["type"] for b in content] == ["text", "image"]
        assert content[0]["text"] == "what is this? [Image #1]"
        terminal.submit("/quit")
        assert terminal.exit_code() == 0
