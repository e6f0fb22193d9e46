"""Sessions in a real terminal (tmux): --continue, the --resume picker, /undo, /compact and
the context fill in /cost."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls
from tests.interactive.conftest import folders, session_env, terminal
from tests.interactive.terminal import Terminal

if TYPE_CHECKING:
    from pathlib import Path

pytestmark = pytest.mark.tmux
__all__ = ["folders", "terminal"]


def test_continue_undo_compact_and_the_picker(
    terminal: Terminal, folders: tuple[Path, Path]
) -> None:
    root, home = folders
    target = root / "app.py"
    target.write_text("print('original')\n")
    first = [
        tool_calls([call("Read", {"file_path": str(target)})]),
        tool_calls([call("Write", {"file_path": str(target), "content": "print('new')\n"})]),
        text("Rewrote app.py."),
    ]
    with ScriptedServer(first) as server:
        terminal.start(root, session_env(home, server.url), "--permission-mode", "auto")
        terminal.wait_for("tokens", visible=True)
        terminal.submit("rewrite app.py")
        terminal.wait_for("Rewrote app.py.")
        terminal.submit("/quit")
        assert terminal.exit_code() == 0
    assert target.read_text() == "print('new')\n"

    second = [
        text("Noted."),
        text(
            "## Summary\nRewrote app.py, then undid it.\n## Decisions\n- keep it\n## Open steps\n"
        ),
    ]
    again = Terminal()
    try:
        with ScriptedServer(second) as server:
            again.start(root, session_env(home, server.url), "--continue")
            again.wait_for("tokens", visible=True)
            again.submit("/undo")
            again.wait_for(f"Restored {target}")
            assert target.read_text() == "print('original')\n"
            again.submit("what now?")
            again.wait_for("Noted.")
            body = server.requests[0].body
            said = [b.get("text") for m in body["messages"] for b in m["content"]]
            assert said[0] == "rewrite app.py" and said[-1] == "what now?"
            again.submit("/compact")
            again.wait_for("Compacted")
            again.submit("/cost")
            screen = again.wait_for("Context:")
            assert "of 1,000,000 tokens" in screen
            again.submit("/quit")
            assert again.exit_code() == 0
    finally:
        again.close()

    picker = Terminal()
    try:
        with ScriptedServer([text("Still here.")]) as server:
            picker.start(root, session_env(home, server.url), "--resume")
            picker.wait_for("Resume which session?")
            assert "rewrite app.py" in picker.screen()
            picker.submit("1")
            picker.wait_for("tokens", visible=True)
            picker.submit("and?")
            picker.wait_for("Still here.")
            said = [
                b.get("text") for m in server.requests[0].body["messages"] for b in m["content"]
            ]
            assert said[0].startswith("Earlier turns of this conversation were compacted")
            picker.submit("/quit")
            assert picker.exit_code() == 0
    finally:
        picker.close()
