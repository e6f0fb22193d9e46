"""A cloned repository's files that Legato reads for itself, written to break the start or to
draw on the screen, through the reference's ``.claude/`` places: each is that file's fault,
named with its line, and the session goes on."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import TYPE_CHECKING

import msgspec
import pytest

from actors.errors import UsageError
from actors.permission_broker.policy import Policy
from actors.protocol import GlobalConfig, ProjectContext, ProjectSettings
from frontends.demo.scripted_api import ScriptedServer, text
from tests.frontends.conftest import REPO

if TYPE_CHECKING:
    from pathlib import Path

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


# ── a setting that only takes away holds from every file ────────────────────────────────────


@pytest.mark.parametrize("where", ["home", ".claude/settings.json", ".legato/settings.json"])
@pytest.mark.parametrize(
    "flags", [("--dangerously-skip-permissions",), ("--permission-mode", "bypassPermissions")]
)
def test_disable_bypass_permissions_mode_refuses_the_flag(
    project: Project, where: str, flags: tuple[str, ...]
) -> None:
    settings = json.dumps({"permissions": {"disableBypassPermissionsMode": "disable"}}, indent=2)
    if where == "home":
        path = project.home / ".claude" / "settings.json"
        path.parent.mkdir()
        path.write_text(settings)
    else:
        path = project.write(where, settings)  # a project's, untrusted: it only takes away
    with ScriptedServer([text("Done.")]) as server:
        done = subprocess.run(
            [
                sys.executable,
                "-c",
                "from frontends.cli import main; main()",
                str(project.root),
                "-p",
                "go",
                *flags,
            ],
            capture_output=True,
            text=True,
            cwd=REPO,
            # As root the flag is refused for that reason first; a container says it is one.
            env=project.env(server.url) | {"IS_SANDBOX": "1"},
            timeout=60,
        )
        assert not server.requests
    assert done.returncode == 2, done.stderr
    assert f"{path}:3" in done.stderr
    assert "permissions.disableBypassPermissionsMode" in done.stderr
    assert "Traceback" not in done.stderr


def test_disable_bypass_permissions_mode_refuses_the_switch(tmp_path: Path) -> None:
    context = ProjectContext(
        project_root=str(tmp_path),
        config=GlobalConfig(),
        settings=ProjectSettings(),
        model="claude-sonnet-4-6",
        permission_mode="ask",
        bypass_disabled="/home/u/.claude/settings.json:3",
    )
    policy = Policy(context)
    with pytest.raises(UsageError, match=r"settings\.json:3"):
        policy.switch("bypass")
    assert [policy.mode] == ["ask"]
    policy.switch("auto")
    assert [policy.mode] == ["auto"]  # another mode is still a switch
    free = Policy(msgspec.structs.replace(context, bypass_disabled=""))
    free.switch("bypass")
    assert [free.mode] == ["bypass"]
