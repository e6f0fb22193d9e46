"""Custom mode: a Grep or Glob of the project root runs, narrowed to the files the rules let
tools read, instead of being denied for the whole folder. Tried as an attacker would: a blocked
``.env``, a file no rule allows, and a symlink from an allowed folder to it must not show up."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls

if TYPE_CHECKING:
    from tests.frontends.conftest import Project

SECRET = "hunter2"


def _results(body: dict[str, Any]) -> list[str]:
    blocks = body["messages"][-1]["content"]
    return [str(block["content"]) for block in blocks if block.get("type") == "tool_result"]


def test_a_search_of_the_root_sees_only_what_the_rules_allow(project: Project) -> None:
    project.settings(permissionMode="custom", allowedPaths=["src/**"], blockedPaths=[".env"])
    project.write(".env", f"TOKEN={SECRET}\n")
    project.write("notes.txt", f"password {SECRET}\n")  # no rule allows it
    project.write("src/app.py", f'NAME = "{SECRET}-in-src"\n')
    os.symlink(project.root / "notes.txt", project.root / "src" / "link.txt")
    steps = [
        tool_calls(
            [
                call("Grep", {"pattern": SECRET, "output_mode": "content"}),
                call("Grep", {"pattern": SECRET, "path": ".", "output_mode": "count"}),
                call("Glob", {"pattern": "**/*"}),
                call("Grep", {"pattern": SECRET, "path": "notes.txt"}),
            ]
        ),
        text("done"),
    ]
    with ScriptedServer(steps) as server:
        done = project.legato(server.url, "--headless", "search")
    assert done.returncode == 0, done.stderr
    content, count, listed, one_file = _results(server.requests[-1].body)
    assert f'src/app.py:1:NAME = "{SECRET}-in-src"' in content
    for shown in (content, count, listed):
        assert "TOKEN" not in shown and "password" not in shown
        assert ".env" not in shown and "notes.txt" not in shown and "link.txt" not in shown
    assert "src/app.py:1" in count
    assert "src/app.py" in listed and "were not listed" in listed
    # A file named on its own is still a read of it: the rules do not allow it, so it is asked
    # (denied headless), naming the entry that would allow it.
    assert "not in allowedPaths" in one_file and SECRET not in one_file


def test_outside_custom_mode_a_search_of_the_root_is_still_asked(project: Project) -> None:
    project.settings(allowedPaths=["src/**"])  # ask mode: every operation asks
    project.write("src/app.py", "x = 1\n")
    with ScriptedServer([tool_calls([call("Glob", {"pattern": "*"})]), text("done")]) as server:
        done = project.legato(server.url, "--headless", "list")
    assert done.returncode == 0, done.stderr
    (listed,) = _results(server.requests[-1].body)
    assert "Permission denied" in listed and "src/app.py" not in listed
    # The remedy names the entry that would allow the search, and the mode that narrows it.
    assert "add '**' to allowedPaths in" in listed
    assert "--permission-mode custom to search only the files allowedPaths allows" in listed
