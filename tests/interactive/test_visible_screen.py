"""The terminal shows what others wrote, never obeys it: a real ``legato`` in real tmux, the
scripted server playing a model that lists and reads a file named with a title sequence
(OSC 2) and answers with a clipboard write (OSC 52) and a title of its own. tmux takes both
from whatever runs in its pane (with ``set-clipboard on``), so the pane's title and tmux's
buffers say whether any got through; the markdown around them is still rendered."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import pytest

from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls
from tests.interactive.conftest import session_env

if TYPE_CHECKING:
    from pathlib import Path

    from tests.interactive.terminal import Terminal

pytestmark = pytest.mark.tmux

FILE_NAME = "\x1b]2;FILE-TITLE\x07notes.txt"
FILE_TEXT = "\x1b]52;c;ZmlsZQ==\x07first line\n"
ANSWER = (
    "Read it.\x1b]52;c;cG93bmVk\x07 \x1b]2;MODEL TITLE\x07 The **bold** word and `code` "
    "stay.\x1b[2K\rEND\n"
)


def _title(terminal: Terminal) -> str:
    return terminal.tmux("display-message", "-p", "-t", "legato", "#{pane_title}").strip()


def test_a_file_name_and_the_models_text_set_no_title_and_no_clipboard(
    terminal: Terminal, folders: tuple[Path, Path]
) -> None:
    root, home = folders
    (root / FILE_NAME).write_text(FILE_TEXT)
    calls = [call("Glob", {"pattern": "*.txt"}), call("Read", {"file_path": str(root / FILE_NAME)})]
    with ScriptedServer([tool_calls(calls), text(ANSWER), text("second answer")]) as server:
        terminal.start(root, session_env(home, server.url), "--permission-mode", "auto")
        terminal.wait_for("tokens", visible=True)
        # tmux's default only passes a clipboard write on to the terminal outside; "on" lets a
        # program in the pane set tmux's own buffer, which the test can read.
        terminal.tmux("set-option", "-g", "set-clipboard", "on")
        before = _title(terminal)
        terminal.submit("look at the notes")
        terminal.wait_for("END")
        # Once more round the loop: everything the first turn wrote has reached tmux.
        terminal.submit("again")
        screen = terminal.wait_for("second answer")
        # The title and tmux's buffers (where a clipboard write lands) as they were.
        assert (_title(terminal), terminal.tmux("list-buffers")) == (before, "")
        assert "\\x1b]52;c;cG93bmVk\\x07 \\x1b]2;MODEL TITLE\\x07 The bold word" in screen
        assert "\\rEND" in screen
        assert "\\x1b]2;FILE-TITLE\\x07notes.txt" in screen  # the tool lines name the file
        styled = terminal.styled()
        # rich's rendering of the model's markdown stays: bold is bold, code is styled.
        assert re.search(r"\x1b\[[0-9;]*1[0-9;]*mbold", styled), styled
        code_line = next(line for line in styled.splitlines() if "code" in line and "bold" in line)
        assert re.search(r"\x1b\[[0-9;]*m`?code", code_line), repr(code_line)


def test_a_file_name_alone_sets_no_title(terminal: Terminal, folders: tuple[Path, Path]) -> None:
    root, home = folders
    name = "\x1b]2;FILE-TITLE\x1b\\\x1b]52;c;ZmlsZQ==\x1b\\notes.txt"  # ended by ST, not BEL
    (root / name).write_text("plain\n")
    calls = [call("Glob", {"pattern": "*.txt"}), call("Read", {"file_path": str(root / name)})]
    with ScriptedServer([tool_calls(calls), text("Read it."), text("second answer")]) as server:
        terminal.start(root, session_env(home, server.url), "--permission-mode", "auto")
        terminal.wait_for("tokens", visible=True)
        terminal.tmux("set-option", "-g", "set-clipboard", "on")
        before = _title(terminal)
        terminal.submit("look at the notes")
        terminal.wait_for("Read it.")
        terminal.submit("again")
        screen = terminal.wait_for("second answer")
        # The title and tmux's buffers (where a clipboard write lands) as they were.
        assert (_title(terminal), terminal.tmux("list-buffers")) == (before, "")
        assert "\\x1b]2;FILE-TITLE\\x1b\\\\x1b]52;c;ZmlsZQ==\\x1b\\notes.txt" in screen
