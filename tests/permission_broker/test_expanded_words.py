"""Words bash expands before the program sees them: ``git {push,}`` runs ``git push``, and
``git pus?`` does too once the project holds a file named ``push`` (a real bash shows each).
A deny rule in the reference's syntax and a blockedCommands entry hold against them in every
mode, bypassPermissions included; what cannot expand to the blocked words stays allowed."""

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

    from actors.protocol import PermissionMode

HIDDEN = ["git {push,} origin", "git p{u,x}sh origin", "git pus? origin", "sudo git {push,}"]
PLAIN = ["git add *.py", "git add {a,b}.py", "git log"]


def policies(root: str, mode: PermissionMode) -> list[Policy]:
    deny = PermissionRule(
        behavior="deny", text="Bash(git push:*)", source="/u/.claude/settings.json", line=4,
        anchor=root,
    )  # fmt: skip
    return [
        Policy(
            ProjectContext(
                project_root=root,
                config=GlobalConfig(),
                settings=settings,
                model="claude-sonnet-4-6",
                permission_mode=mode,
                permission_rules=rules,
            )
        )
        for settings, rules in [
            (ProjectSettings(), (deny,)),
            (ProjectSettings(blocked_commands=("git push",)), ()),
        ]
    ]


def allowed(policy: Policy, line: str) -> bool:
    found = policy.assess(PermissionRequest(tool="Bash", kind="run", command=line))
    return not isinstance(found, Question) and found.allowed


@pytest.mark.parametrize("line", HIDDEN)
@pytest.mark.parametrize("mode", ["bypass", "auto", "ask"])
def test_an_expanded_word_does_not_get_past_a_deny(
    tmp_path: Path, line: str, mode: PermissionMode
) -> None:
    (tmp_path / "push").write_text("")  # what the repository brings for 'pus?' to expand to
    shown = subprocess.run(
        ["bash", "-c", f"echo {line.removeprefix('sudo ')}"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert shown.stdout.startswith("git push")  # bash does run git push
    for policy in policies(os.path.realpath(tmp_path), mode):
        assert not allowed(policy, line)


@pytest.mark.parametrize("line", PLAIN)
def test_what_cannot_expand_to_the_denied_words_stays_allowed(tmp_path: Path, line: str) -> None:
    for policy in policies(os.path.realpath(tmp_path), "bypass"):
        assert allowed(policy, line)
