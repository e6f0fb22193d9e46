"""Bad input in a Claude Code user's files and flags: a malformed settings file, a rule that
cannot mean anything, a mode that does not exist, a flag Legato does not support. Each stops
``legato -p`` before anything is sent, with exit 2 and a message naming the file and line (or
the flag) and the value, and no traceback."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from frontends.demo.scripted_api import ScriptedServer, text

if TYPE_CHECKING:
    import subprocess

    from tests.frontends.conftest import Project

BROKEN = '{\n  "permissions": {\n    "allow": ["Bash(ls *)"],\n  }\n}\n'  # a trailing comma, line 4


def refused(project: Project, *args: str) -> subprocess.CompletedProcess[str]:
    with ScriptedServer([text("unused")]) as server:
        done = project.legato(server.url, "-p", "hi", *args)
        assert server.requests == []  # stopped before anything reached the model
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    return done


@pytest.mark.parametrize(
    "where",
    [
        ".claude/settings.json",
        ".claude/settings.local.json",
        ".legato/settings.local.json",
        "~/.claude/settings.json",
    ],
)
def test_a_malformed_settings_file_is_named_with_its_line(project: Project, where: str) -> None:
    if where.startswith("~/"):
        path = project.home / where.removeprefix("~/")
        path.parent.mkdir(parents=True)
        path.write_text(BROKEN)
    else:
        path = project.write(where, BROKEN)
    done = refused(project)
    assert f"{path}:4" in done.stderr


@pytest.mark.parametrize("rule", ["Bash(npm run test:*", "Read(./secrets/**))", "Bash()"])
def test_a_rule_that_cannot_be_read_is_refused_naming_file_line_and_rule(
    project: Project, rule: str
) -> None:
    settings = {"permissions": {"allow": ["Bash(git diff *)"], "deny": [rule]}}
    path = project.write(".claude/settings.json", json.dumps(settings, indent=2))
    line = next(n for n, text in enumerate(path.read_text().splitlines(), 1) if rule in text)
    done = refused(project)
    assert f"{path}:{line}" in done.stderr
    assert rule in done.stderr


def test_a_misspelt_tool_in_a_rule_is_never_silently_dead(project: Project) -> None:
    settings = {"permissions": {"deny": ["Raed(./secrets/**)"]}}
    path = project.write(".claude/settings.json", json.dumps(settings, indent=2))
    with ScriptedServer([text("ok")]) as server:
        done = project.legato(server.url, "-p", "hi")
    assert "Traceback" not in done.stderr
    assert "Raed(./secrets/**)" in done.stderr and str(path) in done.stderr
    assert "Read" in done.stderr.replace("Raed", "")  # the did-you-mean


def test_an_unknown_default_mode_names_the_field_and_the_modes(project: Project) -> None:
    settings = {"permissions": {"defaultMode": "yolo"}}
    path = project.write(".claude/settings.json", json.dumps(settings, indent=2))
    done = refused(project)
    assert str(path) in done.stderr
    assert "defaultMode" in done.stderr and "yolo" in done.stderr
    assert "acceptEdits" in done.stderr  # one of the values it may take


@pytest.mark.parametrize(
    "flags",
    [("--allowedTools", "Bash(ls"), ("--disallowedTools", "Bash(rm *"), ("--teleport",)],
)
def test_a_bad_or_unsupported_flag_is_named(project: Project, flags: tuple[str, ...]) -> None:
    done = refused(project, *flags)
    assert flags[-1] in done.stderr
