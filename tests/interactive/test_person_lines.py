"""``!cmd``, ``#text`` and ``/export`` in a real terminal (tmux) against the scripted model:
a command's output reaches the model's next request, Esc stops a command with all it started,
a line is saved to LEGATO.md, and the conversation is exported as Markdown."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from frontends.demo.scripted_api import ScriptedServer, text
from tests.interactive.conftest import folders, session_env, terminal
from tests.interactive.terminal import processes_with

if TYPE_CHECKING:
    from pathlib import Path

    from tests.interactive.terminal import Terminal

pytestmark = pytest.mark.tmux
READY = "tokens · $"
__all__ = ["folders", "terminal"]


def test_a_command_a_memory_and_an_export(terminal: Terminal, folders: tuple[Path, Path]) -> None:
    root, home = folders
    (root / "marker-file.txt").write_text("x\n")
    with ScriptedServer([text("I see marker-file.txt.")]) as server:
        terminal.start(root, session_env(home, server.url))
        terminal.wait_for(READY, visible=True)

        # The prompt's marker says what Enter will do, before it is pressed.
        terminal.type("!ls")
        terminal.wait_for(lambda s: "! !ls" in s, visible=True)
        terminal.keys("Enter")
        terminal.wait_for("✓ ! ls")
        assert "marker-file.txt" in terminal.screen()

        # A long command: Esc stops it, and every process it started; what it printed before
        # is kept for the model, capped.
        terminal.submit("!seq 1 100000; sleep 31.25 | cat")
        terminal.wait_for("    100000", visible=True)  # its live lines: seq is done
        assert processes_with("sleep 31.25")
        terminal.keys("Escape")
        terminal.wait_for("stopped after")
        # The middle of what it printed, out of sight, was cut for the model too: said so.
        terminal.wait_for("bytes of output between them were left out")
        terminal.wait_for(lambda s: not processes_with("sleep 31.25"))

        terminal.submit("#remember this")
        terminal.wait_for("Save to which memory?")
        terminal.submit("1")
        terminal.wait_for("Saved to")
        assert (root / "LEGATO.md").read_text() == "- remember this\n"

        terminal.submit("what did ls show?")
        terminal.wait_for("I see marker-file.txt.")
        body = server.requests[0].body
        assert [m["role"] for m in body["messages"]] == ["user"]
        said = "\n".join(b["text"] for b in body["messages"][0]["content"])
        assert "<bash-input>ls</bash-input>" in said and "marker-file.txt" in said
        assert "Exit code 0" in said
        stopped = said.split("<bash-input>seq 1 100000; sleep 31.25 | cat</bash-input>")[1]
        stopped = stopped.split("</bash-output>")[0]
        assert "the command and every process it started were stopped" in stopped
        head, tail = stopped.split("bytes omitted")
        assert head.split("Output so far:\n")[1].startswith("1\n2\n3\n")
        assert tail.rstrip().endswith("99999\n100000") and len(stopped) < 31_000
        assert "remember this" in said
        assert said.endswith("what did ls show?")

        terminal.submit("/export out.md")
        terminal.wait_for("Exported the conversation to")
        exported = (root / "out.md").read_text()
        assert "`! ls`" in exported and "marker-file.txt" in exported
        assert "\n\nwhat did ls show?\n\n## Legato\n\nI see marker-file.txt.\n" in exported

        # Once there, the file is replaced only when the person says so.
        terminal.submit("/export out.md")
        terminal.wait_for("exists. Replace it")
        terminal.submit("n")
        terminal.wait_for("the file is as it was")
        assert (root / "out.md").read_text() == exported

        # Alone, /export offers the clipboard: with no clipboard tool, the terminal's OSC 52.
        terminal.submit("/export")
        terminal.wait_for("1. Copy it to the clipboard")
        terminal.submit("1")
        terminal.wait_for("(OSC 52)")

        # A command not found: its remedy, said once under it.
        terminal.submit("!no-such-program-here")
        terminal.wait_for("'no-such-program-here' was not found")
        terminal.submit("!")
        terminal.wait_for("There is no command after '!'")
        assert terminal.screen().count("→ Check that the executable is on your PATH") == 1

        terminal.submit("/quit")
        assert terminal.exit_code() == 0
