"""Options the broker cannot read before a program's subcommand (``npm --otp 1 publish``,
``git -v push``) keep neither a blockedCommands entry nor a deny rule in the reference's syntax
from the command they run: both deny it, in bypassPermissions mode too. Other subcommands of
the same program stay allowed."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import pytest

from actors.permission_broker.policy import Policy
from actors.permission_broker.questions import Question
from actors.protocol import GlobalConfig, PermissionRequest, ProjectContext, ProjectSettings
from actors.settings.rules import PermissionRule

if TYPE_CHECKING:
    from pathlib import Path


def policies(root: str) -> list[Policy]:
    rules = tuple(
        PermissionRule(
            behavior="deny", text=text, source="/u/.claude/settings.json", line=2, anchor=root
        )
        for text in ("Bash(npm publish:*)", "Bash(git push:*)")
    )
    contexts = [
        (ProjectSettings(blocked_commands=("npm publish", "git push")), ()),
        (ProjectSettings(), rules),
    ]
    return [
        Policy(
            ProjectContext(
                project_root=root,
                config=GlobalConfig(),
                settings=settings,
                model="claude-sonnet-4-6",
                permission_mode="bypass",
                permission_rules=found,
            )
        )
        for settings, found in contexts
    ]


def verdict(policy: Policy, line: str) -> str:
    found = policy.assess(PermissionRequest(tool="Bash", kind="run", command=line))
    if isinstance(found, Question):
        return "asks"
    return "allowed" if found.allowed else "denied"


@pytest.mark.parametrize(
    "line", ["npm --otp 1 publish", "npm --otp=1 publish", "git -v push", "git --bogus push -f"]
)
def test_an_unknown_option_before_the_subcommand_does_not_hide_it(
    tmp_path: Path, line: str
) -> None:
    assert [verdict(p, line) for p in policies(os.path.realpath(tmp_path))] == ["denied"] * 2


@pytest.mark.parametrize("line", ["npm test", "git -v status", "git log --oneline"])
def test_other_subcommands_stay_allowed(tmp_path: Path, line: str) -> None:
    assert [verdict(p, line) for p in policies(os.path.realpath(tmp_path))] == ["allowed"] * 2
