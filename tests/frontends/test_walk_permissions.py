"""Grep and Glob against the permission rules end to end: a real ``legato --headless``, the
model scripted to go looking for secrets. What the model is sent back must hold none of them."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls

if TYPE_CHECKING:
    from tests.frontends.conftest import Project

SECRETS = ("SECRET=env", "SECRET=folder", "SECRET=deep", "SECRET=key")


def plant(project: Project) -> None:
    outside = project.home.parent / "outside"
    outside.mkdir()
    (outside / "id_rsa").write_text("SECRET=key\n")
    project.write(".env", "SECRET=env\n")
    project.write("secrets/token.txt", "SECRET=folder\n")
    project.write("a/b/secrets/x", "SECRET=deep\n")
    project.write("src/app.py", "SECRET_NAME = 'public'\n")
    project.write(".gitignore", "*.log\n")
    project.write("src/.gitignore", "!keep.log\n")
    project.write("src/keep.log", "SECRET_LOG kept by a negation\n")
    project.write("src/drop.log", "SECRET_LOG dropped\n")
    (project.root / "src" / "e.txt").symlink_to("../.env")
    (project.root / "notes.md").symlink_to(outside / "id_rsa")


def results(body: dict[str, Any]) -> list[str]:
    """The tool results of the last user message, in order."""
    blocks = body["messages"][-1]["content"]
    return [block["content"] for block in blocks if block["type"] == "tool_result"]


def test_auto_mode_searches_and_lists_nothing_blocked(project: Project) -> None:
    plant(project)
    project.settings(permissionMode="auto", blockedPaths=[".env", "secrets/"])
    steps = [
        tool_calls(
            [
                call("Grep", {"pattern": "SECRET", "output_mode": "content"}),
                call("Glob", {"pattern": "**/*"}),
            ]
        ),
        text("Nothing to see."),
    ]
    with ScriptedServer(steps) as server:
        done = project.legato(server.url, "--headless", "find the secrets")
        requests = server.requests
    assert done.returncode == 0, done.stderr
    sent = json.dumps(requests[1].body)
    assert [secret for secret in SECRETS if secret in sent] == []
    grep, glob = results(requests[1].body)
    root = project.root
    assert grep.split("\n") == [
        f"{root / 'src/app.py'}:1:SECRET_NAME = 'public'",
        f"{root / 'src/keep.log'}:1:SECRET_LOG kept by a negation",
    ]  # Grep says nothing of the files it was not let read
    listed = glob.split("\n")
    # .env, secrets/token.txt, a/b/secrets/x: the symlinks are not listed at all.
    assert listed[-1] == (
        "(3 files were not listed: the permission rules do not let tools read them.)"
    )
    assert sorted(listed[:-1]) == sorted(
        str(root / name)
        for name in (".gitignore", ".legato/settings.json", "src/.gitignore", "src/app.py",
                     "src/keep.log")
    )  # fmt: skip
    assert ".env" not in glob and "secrets" not in glob and "notes.md" not in glob


def test_allowed_paths_do_not_reach_through_a_symlink(project: Project) -> None:
    plant(project)
    project.settings(permissionMode="custom", allowedPaths=["src/**"])
    steps = [
        tool_calls(
            [
                call("Grep", {"pattern": "SECRET", "path": "src", "output_mode": "content"}),
                call("Grep", {"pattern": "SECRET", "path": "src/e.txt"}),
            ]
        ),
        text("Nothing to see."),
    ]
    with ScriptedServer(steps) as server:
        done = project.legato(server.url, "--headless", "find the secrets")
        requests = server.requests
    assert done.returncode == 0, done.stderr
    sent = json.dumps(requests[1].body)
    assert [secret for secret in SECRETS if secret in sent] == []
    walked, named = results(requests[1].body)
    assert walked.split("\n") == [
        f"{project.root / 'src/app.py'}:1:SECRET_NAME = 'public'",
        f"{project.root / 'src/keep.log'}:1:SECRET_LOG kept by a negation",
    ]
    assert named.startswith("Permission denied")
