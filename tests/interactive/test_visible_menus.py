"""What prompt_toolkit draws itself shows what others wrote, never obeys it: a real ``legato``
in real tmux. prompt_toolkit shows ESC as ``^[`` but hands a bidirectional override or a
zero-width space to the terminal as it is, and the completion menu lists the repository's file
names and skill descriptions, the status line a model a project's settings chose."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from frontends.demo.scripted_api import ScriptedServer, text
from tests.interactive.conftest import session_env

if TYPE_CHECKING:
    from pathlib import Path

    from tests.interactive.terminal import Terminal

pytestmark = pytest.mark.tmux

# Drawn as they are, the override turns what follows around and the space hides between letters.
HIDING = "\u202eexe.gnp\u200b"
SHOWN = "\\u202eexe.gnp\\u200b"


def test_the_completion_menu_shows_file_names_and_skill_descriptions_escaped(
    terminal: Terminal, folders: tuple[Path, Path]
) -> None:
    root, home = folders
    (root / f"xq{HIDING}.txt").write_text("a\n")
    skills = root / ".legato" / "skills"
    skills.mkdir(parents=True)
    description = json.dumps(f"safe {HIDING} end")
    (skills / "zap.md").write_text(f"---\nname: zap\ndescription: {description}\n---\nbody\n")
    with ScriptedServer([text("done")]) as server:
        terminal.start(root, session_env(home, server.url))
        terminal.wait_for("tokens", visible=True)
        terminal.type("@xq")
        assert f"xq{SHOWN}.txt" in terminal.wait_for(".txt", visible=True)
        terminal.keys("C-u")
        terminal.type("/za")
        assert f"/zap   safe {SHOWN} end" in terminal.wait_for(" end", visible=True)


def test_the_status_line_shows_a_projects_model_escaped(
    terminal: Terminal, folders: tuple[Path, Path]
) -> None:
    root, home = folders
    (root / ".legato").mkdir()
    (root / ".legato" / "settings.json").write_text(json.dumps({"model": f"claude-{HIDING}"}))
    with ScriptedServer([text("done")]) as server:
        terminal.start(root, session_env(home, server.url))
        terminal.wait_for("tokens", visible=True)
        assert terminal.status_line().startswith(f" claude-{SHOWN} ·")
