"""One program holding many (busybox, toybox), picked by its first word: ``busybox rm x`` is
``rm x``, so a deny rule for rm holds against it in every mode, bypassPermissions included,
and an allowed busybox does not allow what it runs."""

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

    from actors.protocol import PermissionMode


def policy(root: str, mode: PermissionMode, **texts: str) -> Policy:
    rules = tuple(
        PermissionRule(behavior=b, text=t, source="/u/.claude/settings.json", line=3, anchor=root)  # type: ignore[arg-type]
        for b, t in texts.items()
    )
    return Policy(
        ProjectContext(
            project_root=root,
            config=GlobalConfig(),
            settings=ProjectSettings(),
            model="claude-sonnet-4-6",
            permission_mode=mode,
            permission_rules=rules,
        )
    )


def verdict(p: Policy, line: str) -> str:
    found = p.assess(PermissionRequest(tool="Bash", kind="run", command=line))
    if isinstance(found, Question):
        return "asks"
    return "allowed" if found.allowed else "denied"


@pytest.mark.parametrize("program", ["busybox", "toybox", "/bin/busybox"])
@pytest.mark.parametrize("mode", ["bypass", "auto", "ask"])
def test_a_deny_rule_holds_through_a_multi_call_program(
    tmp_path: Path, program: str, mode: PermissionMode
) -> None:
    root = os.path.realpath(tmp_path)
    assert verdict(policy(root, mode, deny="Bash(rm *)"), f"{program} rm -rf x") == "denied"
    assert verdict(policy(root, mode, deny="Bash(rm *)"), f"{program} --list") != "denied"


def test_an_allowed_multi_call_program_does_not_allow_what_it_runs(tmp_path: Path) -> None:
    root = os.path.realpath(tmp_path)
    assert verdict(policy(root, "ask", allow="Bash(busybox *)"), "busybox sh -c 'id'") == "asks"
    assert verdict(policy(root, "ask", allow="Bash(busybox ls)"), "busybox ls") == "allowed"
