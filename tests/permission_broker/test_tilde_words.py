"""``~+`` is bash's working folder: ``cat ~+/.env`` reads the project's ``.env`` (a real bash
shows it), so a deny rule for that file, and a blockedPaths entry, hold against it."""

from __future__ import annotations

import os
import subprocess
from typing import TYPE_CHECKING

import pytest

from actors.permission_broker.policy import Policy
from actors.permission_broker.questions import Question
from actors.protocol import GlobalConfig, PermissionRequest, ProjectContext, ProjectSettings
from actors.settings.rules import PermissionRule

if TYPE_CHECKING:
    from pathlib import Path

LINES = ["cat ~+/.env", "cat ~+/.e*", "cat ~+/src/../.env", "cd src && cat ~+/../.env"]


@pytest.mark.parametrize("line", LINES)
def test_a_deny_rule_and_a_block_hold_against_the_working_folders_tilde(
    tmp_path: Path, line: str
) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / ".env").write_text("TOKEN=orchard-31\n")
    shown = subprocess.run(["bash", "-c", line], cwd=tmp_path, capture_output=True, text=True)
    assert "orchard-31" in shown.stdout  # the line does read the file
    root = os.path.realpath(tmp_path)
    rule = PermissionRule(
        behavior="deny", text="Read(./.env)", source="/u/.claude/settings.json", line=3, anchor=root
    )
    for mode, settings, rules in [
        ("bypass", ProjectSettings(), (rule,)),
        ("auto", ProjectSettings(blocked_paths=(".env",)), ()),
    ]:
        policy = Policy(
            ProjectContext(
                project_root=root,
                config=GlobalConfig(),
                settings=settings,
                model="claude-sonnet-4-6",
                permission_mode=mode,  # type: ignore[arg-type]
                permission_rules=rules,
            )
        )
        found = policy.assess(PermissionRequest(tool="Bash", kind="run", command=line))
        assert isinstance(found, Question) or not found.allowed, (mode, line)
