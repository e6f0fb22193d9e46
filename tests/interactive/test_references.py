"""``@path`` in the terminal, end to end: a real ``legato`` in tmux, the real executor and
broker, the scripted server. It is the headless behaviour (tests/frontends/test_references.py):
the same executor message, the same notes; only a file outside the project is asked about
here, where a person can answer."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from frontends.demo.scripted_api import ScriptedServer, text
from tests.interactive.conftest import session_env

if TYPE_CHECKING:
    from pathlib import Path

    from tests.interactive.terminal import Terminal

pytestmark = pytest.mark.tmux


def prompt_sent(body: dict[str, Any]) -> str:
    message = body["messages"][-1]
    assert message["role"] == "user"
    return "".join(b["text"] for b in message["content"] if b.get("type") == "text")


def test_named_files_are_attached_completed_and_refused_as_headless(
    terminal: Terminal, folders: tuple[Path, Path]
) -> None:
    root, home = folders
    (root / "src").mkdir()
    (root / "src" / "main.py").write_text("print('hello main')\n")
    (root / "secrets").mkdir()
    (root / "secrets" / "key.txt").write_text("TOKEN=abc\n")
    (root / "data.bin").write_bytes(b"\0\1\2 not text")
    (root / ".legato").mkdir()
    (root / ".legato" / "settings.json").write_text('{"blockedPaths": ["/secrets/"]}')
    outside = home / "notes.txt"
    outside.write_text("private notes\n")
    with ScriptedServer([text("Seen main."), text("Seen notes.")]) as server:
        terminal.start(root, session_env(home, server.url))
        terminal.wait_for("tokens", visible=True)
        terminal.type("look at @smai")
        terminal.wait_for("src/main.py", visible=True)  # the completion menu, as one types
        terminal.keys("Tab")
        terminal.wait_for("look at @src/main.py", visible=True)
        terminal.submit(" @src/mian.py @secrets/key.txt @data.bin")
        screen = " ".join(terminal.wait_for("Seen main.").split())  # notes wrap
        # Normal mode, yet nothing was asked: naming a file inside the project is the yes.
        assert "requested by Read" not in screen
        assert "@src/mian.py not found; did you mean @src/main.py?" in screen
        assert (
            "@secrets/key.txt was not attached: blocked by blockedPaths entry '/secrets/' "
            "(path 'secrets/key.txt')"
        ) in screen
        assert "@data.bin was not attached: it is a binary file" in screen
        prompt = "look at @src/main.py @src/mian.py @secrets/key.txt @data.bin"
        assert prompt_sent(server.requests[0].body) == (
            f"{prompt}\n\nReferenced files:\n"
            "<file path=\"src/main.py\">\nprint('hello main')\n\n</file>"
        )
        # Outside the project the person is asked, as for any read there.
        terminal.submit(f"and @{outside}")
        terminal.wait_for("requested by Read")
        terminal.submit("y")
        terminal.wait_for("Seen notes.")
        assert prompt_sent(server.requests[1].body) == (
            f"and @{outside}\n\nReferenced files:\n"
            f'<file path="{outside}">\nprivate notes\n\n</file>'
        )
        terminal.submit("/quit")
        assert terminal.exit_code() == 0
