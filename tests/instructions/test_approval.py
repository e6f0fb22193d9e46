"""An import from outside the project, end to end: headless leaves it out and says how to
approve it, ``legato trust`` shows and approves it, the terminal asks at start."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from frontends.commands import trust_command
from frontends.demo.scripted_api import ScriptedServer, text
from tests.frontends.test_trust import trust

if TYPE_CHECKING:
    import pytest

    from tests.frontends.conftest import Project

PREFS = "PERSONAL-PREFS-7f3a"


def sent(project: Project) -> tuple[str, str]:
    """One headless run: (what reached the model, stderr)."""
    with ScriptedServer([text("ok")]) as server:
        done = project.legato(server.url, "--headless", "hi")
        body = json.dumps([request.body for request in server.requests])
    assert done.returncode == 0, done.stderr
    return body, done.stderr


def test_headless_leaves_it_out_until_legato_trust_approves_it(project: Project) -> None:
    (project.home / "prefs.md").write_text(PREFS + "\n")
    project.write("CLAUDE.md", "Team rules.\n\n@~/prefs.md\n")
    body, stderr = sent(project)
    assert PREFS not in body
    assert "CLAUDE.md:3: the import of" in stderr
    assert "Run 'legato trust'" in stderr
    shown = trust(project, "--show")
    assert f"  CLAUDE.md:3 imports {project.home / 'prefs.md'} (20 bytes)" in shown.stdout
    assert "not approved" in shown.stdout
    assert PREFS not in sent(project)[0]
    approved = trust(project)
    assert approved.returncode == 0, approved.stderr
    assert "Approved" in approved.stdout
    body, stderr = sent(project)
    assert PREFS in body
    assert "the import of" not in stderr
    (project.home / "prefs.md").write_text(PREFS + " and more\n")
    assert PREFS not in sent(project)[0]  # changed: asks again
    assert "Revoked" in trust(project, "--revoke").stdout


def test_the_terminal_asks_before_the_session_and_yes_loads_it(project: Project) -> None:
    (project.home / "prefs.md").write_text(PREFS + "\n")
    project.write("CLAUDE.md", "@~/prefs.md\n")
    asked: list[str] = []

    def answer(question: str) -> str:
        asked.append(question)
        return "n" if len(asked) == 1 else "y"

    for _ in range(2):
        trust_command.ask_at_start(str(project.root), env={}, home=str(project.home), ask=answer)
    assert asked == ["Load them into the model's context? [y/N] "] * 2
    assert PREFS in sent(project)[0]
    trust_command.ask_at_start(str(project.root), env={}, home=str(project.home), ask=answer)
    assert len(asked) == 2  # approved: not asked again


def test_a_project_whose_files_import_nothing_starts_no_memory_store_to_ask(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    project.write("CLAUDE.md", "Plain rules, mail me at a-b.example.\n")
    project.write("AGENTS.md", "More rules.\n")

    def no_store(*_: object) -> None:
        raise AssertionError("a memory store started for a project that imports nothing")

    def no_question(_: str) -> str:
        raise AssertionError("asked")

    monkeypatch.setattr(trust_command, "_memory_store", no_store)
    trust_command.ask_at_start(str(project.root), env={}, home=str(project.home), ask=no_question)
