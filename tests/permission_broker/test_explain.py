"""Explaining decisions: the policy's own verdicts, asking nobody, with the file that decided;
through the broker, in the session's current mode and with the answers given so far."""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING

import pytest

from actors.permission_broker.explain import assess_quietly, report
from actors.permission_broker.policy import Policy
from actors.protocol import (
    Assessment,
    CheckPermission,
    ExplainPermissions,
    GlobalConfig,
    PermissionMode,
    PermissionRequest,
    ProjectContext,
    ProjectSettings,
    SetMode,
)
from frontends.session import memory_store, permission_broker, questions_actor
from frontends.session_options import SessionOptions
from runtime import supervise
from tests.permission_broker.test_broker import FakeUi

if TYPE_CHECKING:
    from pathlib import Path

SETTINGS = ProjectSettings(
    allowed_paths=("src/**",),
    blocked_paths=("/.env",),
    allowed_commands=("git status",),
    blocked_commands=("rm",),
)


@pytest.fixture
def root(tmp_path: Path) -> str:
    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    (project / "src" / "a.py").write_text("")
    (project / ".env").write_text("")
    return os.path.realpath(project)


def policy(root: str, mode: PermissionMode) -> Policy:
    context = ProjectContext(
        project_root=root,
        config=GlobalConfig(),
        settings=SETTINGS,
        model="claude-sonnet-4-6",
        permission_mode=mode,
        home=os.path.dirname(root),
    )
    return Policy(context)


def read(root: str, name: str) -> PermissionRequest:
    return PermissionRequest(tool="Read", kind="read", paths=(os.path.join(root, name),))


def run(command: str) -> PermissionRequest:
    return PermissionRequest(tool="Bash", kind="run", command=command)


def test_a_rule_s_verdict_names_the_settings_file(root: str) -> None:
    settings_file = os.path.join(root, ".legato", "settings.json")
    explained = policy(root, "ask")
    assert assess_quietly(explained, read(root, "src/a.py")) == Assessment(
        kind="read",
        target="src/a.py",
        outcome="allowed",
        reason="allowed by allowedPaths entry 'src/**' (path 'src/a.py')",
        rules_file=settings_file,
    )
    assert assess_quietly(explained, read(root, ".env")) == Assessment(
        kind="read",
        target=".env",
        outcome="denied",
        reason="blocked by blockedPaths entry '/.env' (path '.env')",
        rules_file=settings_file,
    )
    assert assess_quietly(explained, run("git status -s")) == Assessment(
        kind="run",
        target="git status -s",
        outcome="allowed",
        reason="allowed by allowedCommands entry 'git status'",
        rules_file=settings_file,
    )


def test_the_mode_s_verdict_names_no_file(root: str) -> None:
    assert assess_quietly(policy(root, "auto"), read(root, "README.md")) == Assessment(
        kind="read",
        target="README.md",
        outcome="allowed",
        reason="reading inside the project is accepted in auto-accept mode",
    )
    assert assess_quietly(policy(root, "plan"), run("git status")) == Assessment(
        kind="run",
        target="git status",
        outcome="denied",
        reason="plan mode is read-only: running 'git status' is not allowed",
    )


def test_a_question_is_asks_with_the_rules_verdict_as_its_reason(root: str) -> None:
    assert assess_quietly(policy(root, "ask"), run("git push")) == Assessment(
        kind="run",
        target="git push",
        outcome="asks",
        reason="'git push' is not in allowedCommands",
    )


def test_the_report_lists_the_rules_the_policy_enforces(root: str) -> None:
    explained = report(policy(root, "custom"))
    assert (explained.mode, explained.assessments) == ("custom", ())
    assert explained.rules_file == os.path.join(root, ".legato", "settings.json")
    assert explained.rules == (
        ("allowedPaths", ("src/**",)),
        ("blockedPaths", ("/.env",)),
        ("allowedCommands", ("git status",)),
        ("blockedCommands", ("rm",)),
        ("allowedTools", ()),
        ("blockedTools", ()),
    )


async def test_the_broker_explains_in_the_session_s_mode_with_its_answers(
    root: str, tmp_path: Path
) -> None:
    settings = tmp_path / "project" / ".legato" / "settings.json"
    settings.parent.mkdir()
    settings.write_text(json.dumps({"allowedCommands": ["git status"]}))
    memory = memory_store(SessionOptions(project_root=root, home=str(tmp_path / "home")))
    ui = FakeUi(["always"])
    questions = questions_actor(ui)
    broker = permission_broker(memory, questions=questions)
    explain = ExplainPermissions(requests=(run("make test"), read(root, "src/a.py")))
    async with supervise([memory, questions, broker]):
        before = await broker.address.ask(explain)
        await broker.address.ask(CheckPermission(request=run("make build")))  # 'always'
        await broker.address.ask(SetMode(mode="auto"))
        after = await broker.address.ask(explain)
    assert len(ui.asked) == 1  # explaining asked nobody
    assert before.mode == "ask"
    assert [(a.outcome, a.reason) for a in before.assessments] == [
        ("asks", "'make test' is not in allowedCommands"),
        ("asks", "'src/a.py' is not in allowedPaths"),
    ]
    assert after.mode == "auto"
    assert [(a.outcome, a.reason) for a in after.assessments] == [
        ("allowed", "the user allowed running 'make' for this session"),
        ("allowed", "reading inside the project is accepted in auto-accept mode"),
    ]
