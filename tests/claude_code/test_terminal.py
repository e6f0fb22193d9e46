"""The Claude Code user's repository in a real terminal: ``legato`` under tmux, typed at and read
from the screen as its user would, with the scripted server as the model. The project is trusted
first, as its user would on the first start, so no trust question comes between."""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING

import pytest

from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls
from tests.claude_code import claude_repo as cc
from tests.interactive.conftest import folders, session_env
from tests.interactive.terminal import Terminal
from tests.trusting import trust_project

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from frontends.demo.scripted_api import Step

__all__ = ["folders"]

pytestmark = pytest.mark.tmux


@pytest.fixture
def terminal() -> Iterator[Terminal]:
    term = Terminal()
    try:
        yield term
    finally:
        term.close()


@pytest.fixture
def repo(folders: tuple[Path, Path]) -> tuple[Path, Path]:
    root, home = folders
    cc.write_repo(root)
    trust_project(root, home)
    return root, home


def words(screen: str) -> str:
    """The screen as one line of words: where a long line wraps varies with the path."""
    return " ".join(screen.split())


def started(terminal: Terminal, repo: tuple[Path, Path], steps: list[Step]) -> ScriptedServer:
    root, home = repo
    server = ScriptedServer(steps)
    server.start()
    terminal.start(root, session_env(home, server.url))
    terminal.wait_for("tokens", visible=True)
    return server


def test_help_lists_the_claude_commands_and_skills_with_where_they_come_from(
    terminal: Terminal, repo: tuple[Path, Path]
) -> None:
    server = started(terminal, repo, [text("unused")])
    try:
        terminal.submit("/help")
        screen = words(terminal.wait_for(lambda s: "Scaffold a UI component" in words(s)))
        assert "/review <pr-number> [focus]" in screen  # its argument-hint
        # Each says where it comes from: the reference's folder, and for the nested command
        # the folder that namespaces it.
        for name, description in (
            ("review", "Review the changes of a pull request"),
            ("component", "Scaffold a UI component"),
            ("changelog", "Add the unreleased changes to CHANGELOG.md in the house format"),
        ):
            # A row runs from its command to the next word that starts with a slash (a path
            # inside the row has none before it); the source may be on either side of the
            # description.
            rows = [row for row in re.split(r"(?= /\S)", screen) if description in row]
            assert len(rows) == 1 and name in rows[0], (name, screen)
            assert ".claude" in rows[0], rows[0]
        assert "frontend" in screen
        terminal.submit("/quit")
        assert terminal.exit_code() == 0
    finally:
        server.stop()


def test_context_lists_the_instruction_files_in_order_with_their_size(
    terminal: Terminal, repo: tuple[Path, Path]
) -> None:
    server = started(terminal, repo, [text("unused")])
    try:
        terminal.submit("/context")
        screen = words(terminal.wait_for(lambda s: "AGENTS.md" in s))
        shown = screen[screen.rindex("/context") :]
        # In order of precedence, lowest first (docs/claude-code.md#instruction-files).
        places = [shown.find(name) for name in ("AGENTS.md", "CLAUDE.md", "CLAUDE.local.md")]
        assert -1 not in places and places == sorted(places), shown
        assert "docs/style.md" in shown  # the import, listed as loaded
        assert "tokens" in shown
        terminal.submit("/quit")
        assert terminal.exit_code() == 0
    finally:
        server.stop()


def test_an_ask_rule_asks_even_where_an_allow_rule_covers_the_command(
    terminal: Terminal, repo: tuple[Path, Path]
) -> None:
    root, _ = repo
    # The user's personal file allows every git command; the shared ask rule still asks.
    local = {"permissions": {"allow": ["Bash(git *)"]}}
    (root / ".claude" / "settings.local.json").write_text(json.dumps(local))
    trust_project(*repo)
    steps = [
        tool_calls([call("Bash", {"command": "git status"})]),
        tool_calls([call("Bash", {"command": "git push origin main"})]),
        text("Not pushed."),
    ]
    server = started(terminal, repo, steps)
    try:
        terminal.submit("ship it")
        screen = terminal.wait_for(lambda s: "git push origin main" in s and "Allow?" in s)
        assert "git status" in screen  # ran before, unasked: the allow rule applies
        terminal.submit("n")
        terminal.wait_for("Not pushed.")
        told = json.dumps(server.requests[-1].body["messages"][-1])
        assert "denied" in told.lower()
        terminal.submit("/quit")
        assert terminal.exit_code() == 0
    finally:
        server.stop()


def test_init_writes_a_legato_md_and_says_a_claude_md_is_there(
    terminal: Terminal, repo: tuple[Path, Path]
) -> None:
    root, _ = repo
    guide = root / "LEGATO.md"
    steps = [
        tool_calls([call("Write", {"file_path": str(guide), "content": "# Orchard\n"})]),
        text("Wrote LEGATO.md."),
    ]
    server = started(terminal, repo, steps)
    try:
        terminal.submit("/init")
        # Whether the file is written by the command or by the model it asks, a write to the
        # project asks first in the default mode: allow it when asked, then wait for the file.
        terminal.wait_for(lambda s: "Allow?" in s or guide.exists())
        if not guide.exists():
            terminal.submit("y")
        terminal.wait_for(lambda _: guide.exists())
        screen = terminal.screen()
        assert "Unknown command" not in screen
        said = words(screen) + json.dumps([request.body["messages"] for request in server.requests])
        assert "CLAUDE.md" in said  # it notices the reference's file already covers the project
        terminal.submit("/quit")
        assert terminal.exit_code() == 0
    finally:
        server.stop()
