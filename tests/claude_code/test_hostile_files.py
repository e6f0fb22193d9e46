"""A cloned repository's files that Legato reads for itself, written to break the start or to
draw on the screen, through the reference's ``.claude/`` places: each is that file's fault,
named with its line, and the session goes on."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from frontends.demo.scripted_api import ScriptedServer, text

if TYPE_CHECKING:
    from tests.frontends.conftest import Project

# A terminal's title and a bell: what a file must never make the terminal do.
CONTROLS = "\x1b]0;owned\x07"


@pytest.mark.parametrize(
    ("where", "content", "line"),
    [
        (".claude/agents/review.md", f"---\nname: review\ndescription: {CONTROLS}\n---\nHi.\n", 3),
        (".claude/commands/ship.md", f"---\ndescription: a{CONTROLS}\n---\nShip it.\n", 2),
        (".claude/skills/tidy/SKILL.md", "---\nname: tidy\ndescription: \0\n---\nTidy.\n", 3),
    ],
)
def test_a_control_character_in_front_matter_is_that_files_fault(
    project: Project, where: str, content: str, line: int
) -> None:
    project.write(where, content)
    with ScriptedServer([text("Done."), text("Done.")]) as server:
        done = project.legato(server.url, "-p", "go")
        helped = project.legato(server.url, "-p", "/help")
    for run in (done, helped):
        assert run.returncode == 0, run.stderr
        assert "internal error" not in run.stderr
        assert "\x1b" not in run.stdout + run.stderr
        assert "\x07" not in run.stdout + run.stderr
    assert done.stdout.strip() == "Done."
    assert f"{where}:{line}: the front matter cannot be read" in done.stderr + helped.stdout
