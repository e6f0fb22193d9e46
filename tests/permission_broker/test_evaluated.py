"""Commands that look like an allowed program, yet have bash run another one from a value it
evaluates as code (``actors/permission_broker/evaluated.py``). Each line is first run by a real
bash to show that it does run the hidden command; the policy must then not allow it unasked,
whether ``echo`` is allowed by Legato's allowedCommands or by a rule in the reference's syntax.
"""

from __future__ import annotations

import os
import subprocess
from typing import TYPE_CHECKING

import pytest

from actors.permission_broker.policy import Policy
from actors.permission_broker.questions import Question
from actors.protocol import (
    GlobalConfig,
    PermissionRequest,
    ProjectContext,
    ProjectSettings,
)
from actors.settings.rules import PermissionRule

if TYPE_CHECKING:
    from pathlib import Path

# Each runs 'touch ran' although its only program is an allowed one (echo, printf, test, [,
# unset).
HIDDEN = [
    "x='a[$(touch ran)]'; echo $((x))",
    "x='a[$(touch ran)]'; echo $[x]",
    "x='a[$(touch ran)]'; a=(1); echo ${a[x]}",
    "x='a[$(touch ran)]'; y=abc; echo ${y:x}",
    "x='a[$(touch ran)]'; y=abc; echo ${y:0:x}",
    "x='a[$(touch ran)]'; echo ${!x}",
    "x=('a[$(touch ran)]'); echo ${!x[0]}",
    "x='$(touch ran)'; echo ${x@P}",
    "x='a[$(touch ran)]'; for ((i = 0; i < x; i++)); do echo; done",
    "x='a[$(touch ran)]'; case 1 in $((x))) echo ;; esac",
    "x='$(touch ran)'; echo \"${x@P}\"",
    "x='a[$(touch ran)]'; test -v \"$x\"",
    "printf -v 'a[$(touch ran)]' x",
    "test -v 'a[$(touch ran)]'",
    "[ -v 'a[$(touch ran)]' ]",
    "a=(1); unset 'a[$(touch ran)]'",
]
# What stays allowed: numbers alone, an array's elements, the common transforms.
PLAIN = [
    "echo $((1+2))",
    "echo $((0x1f + 2))",
    'echo ${a[0]} ${a[-1]} ${#a[@]} "${a[@]}" ${!a[@]}',
    "echo ${x:1:2} ${x:-default} ${#x} ${x%.*} ${x/a/b} ${x^^} ${x@Q}",
    "printf -v out '%s' x",
    "test -v HOME",
    'test -f "$f"',
    "unset x",
]
ALLOWED = ("echo", "printf", "test", "[", "unset")


def policies(root: str) -> list[Policy]:
    def context(settings: ProjectSettings, rules: tuple[PermissionRule, ...]) -> ProjectContext:
        return ProjectContext(
            project_root=root,
            config=GlobalConfig(),
            settings=settings,
            model="claude-sonnet-4-6",
            permission_mode="ask",
            permission_rules=rules,
        )

    rules = tuple(
        PermissionRule(
            behavior="allow",
            text=f"Bash({name} *)",
            source="/u/.claude/settings.json",
            line=2,
            anchor=root,
        )
        for name in ALLOWED
    )
    return [
        Policy(context(ProjectSettings(allowed_commands=ALLOWED), ())),
        Policy(context(ProjectSettings(), rules)),
    ]


def allowed(policy: Policy, line: str) -> bool:
    found = policy.assess(PermissionRequest(tool="Bash", kind="run", command=line))
    return not isinstance(found, Question) and found.allowed


@pytest.mark.parametrize("line", HIDDEN)
def test_a_value_bash_evaluates_as_code_is_never_allowed_unasked(tmp_path: Path, line: str) -> None:
    subprocess.run(["bash", "-c", line], cwd=tmp_path, capture_output=True, check=False)
    assert (tmp_path / "ran").exists(), "bash did not run the hidden command: no attack"
    root = os.path.realpath(tmp_path)
    for policy in policies(root):
        assert not allowed(policy, line)


@pytest.mark.parametrize("line", PLAIN)
def test_plain_expansions_of_an_allowed_program_stay_allowed(tmp_path: Path, line: str) -> None:
    for policy in policies(os.path.realpath(tmp_path)):
        assert allowed(policy, line)
