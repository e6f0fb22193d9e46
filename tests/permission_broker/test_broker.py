"""The broker as an actor, built as a session builds it: context from a real memory store,
questions to a tiny fake person."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from actors.permission_broker.answers import FORGET_NEVER
from actors.permission_broker.questions import LEAVE_PLAN
from actors.protocol import (
    AskUser,
    CheckPermission,
    Decision,
    PermissionMode,
    PermissionRequest,
    SetMode,
)
from actors.ui import Renderer
from frontends.session import memory_store, permission_broker, questions_actor
from frontends.session_options import SessionOptions
from runtime import supervise
from tests.permission_broker.test_policy import blocked_by

if TYPE_CHECKING:
    from pathlib import Path

    from actors.memory_store import MemoryStore


class FakeUi(Renderer):
    """Answers each question with the next scripted answer, and records the questions."""

    def __init__(self, answers: list[str]) -> None:
        self.answers = answers
        self.asked: list[AskUser] = []

    async def ask(self, question: AskUser) -> str:
        self.asked.append(question)
        return self.answers.pop(0)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / ".legato").mkdir(parents=True)
    settings = {"allowedCommands": ["git status"], "blockedCommands": ["rm"]}
    (root / ".legato" / "settings.json").write_text(json.dumps(settings))
    return root


@pytest.fixture
def settings_file(project: Path) -> str:
    return str(project.resolve() / ".legato" / "settings.json")


def memory_for(project: Path, mode: PermissionMode | None = None) -> MemoryStore:
    home = project.parent / "home"
    return memory_store(
        SessionOptions(project_root=str(project), home=str(home), permission_mode=mode)
    )


def run(command: str) -> CheckPermission:
    # As the executor asks for a command it runs in the sandbox.
    return CheckPermission(
        request=PermissionRequest(tool="Bash", kind="run", command=command, confined=True)
    )


def write(project: Path, name: str) -> CheckPermission:
    path = str(project / name)
    return CheckPermission(request=PermissionRequest(tool="Write", kind="write", paths=(path,)))


async def test_headless_denies_what_needs_a_prompt_and_says_how_to_allow_it(
    project: Path, settings_file: str
) -> None:
    memory = memory_for(project)
    broker = permission_broker(memory)
    async with supervise([memory, broker]):
        denied = await broker.address.ask(run("make test"))
        allowed = await broker.address.ask(run("git status"))
        blocked = await broker.address.ask(run("git status && rm -rf x"))
    assert denied == Decision(
        False,
        "'make test' is not in allowedCommands, so ask mode asks before running it, and a "
        "headless run cannot ask. To allow it, add 'make' (or the whole command) to "
        f"allowedCommands in {settings_file}, or the rule 'Bash(make *)' to permissions.allow "
        "in .claude/settings.json",
    )
    assert allowed == Decision(True, "allowed by allowedCommands entry 'git status'")
    assert blocked == blocked_by(
        project, "blocked by blockedCommands entry 'rm' (command 'rm -rf x')"
    )


async def test_always_is_remembered_for_the_rest_of_the_session(project: Path) -> None:
    memory = memory_for(project)
    ui = FakeUi(["always"])
    questions = questions_actor(ui)
    broker = permission_broker(memory, questions=questions)
    async with supervise([memory, questions, broker]):
        first = await broker.address.ask(run("make test"))
        second = await broker.address.ask(run("make build"))
    assert [a.request.command for a in ui.asked] == ["make test"]
    assert ui.asked[0].choices == ("y", "n", "always", "never")
    assert first == Decision(True, "the user allowed running 'make' for this session")
    assert second == first


async def test_never_is_remembered_and_y_is_not(project: Path) -> None:
    memory = memory_for(project)
    ui = FakeUi(["y", "never"])
    questions = questions_actor(ui)
    broker = permission_broker(memory, questions=questions)
    async with supervise([memory, questions, broker]):
        once = await broker.address.ask(write(project, "a.txt"))
        never = await broker.address.ask(write(project, "b.txt"))
        again = await broker.address.ask(write(project, "c.txt"))
    assert len(ui.asked) == 2
    assert once == Decision(True, "the user allowed it")
    assert never.allowed is False
    assert again == Decision(
        False,
        "the user denied editing existing files inside the project for this session",
        remedy=FORGET_NEVER,
    )


async def test_blocked_is_never_put_to_the_person(project: Path) -> None:
    memory = memory_for(project)
    ui = FakeUi([])
    questions = questions_actor(ui)
    broker = permission_broker(memory, questions=questions)
    async with supervise([memory, questions, broker]):
        decision = await broker.address.ask(run("rm -rf build"))
    assert decision.allowed is False
    assert ui.asked == []


async def test_the_start_mode_comes_from_the_context_and_set_mode_switches_it(
    project: Path,
) -> None:
    memory = memory_for(project, "plan")
    broker = permission_broker(memory)
    async with supervise([memory, broker]):
        in_plan = await broker.address.ask(write(project, "a.txt"))
        assert await broker.address.ask(SetMode(mode="auto")) == "auto"
        in_auto = await broker.address.ask(write(project, "a.txt"))
    assert in_plan == Decision(
        False, "plan mode is read-only: writing 'a.txt' is not allowed", remedy=LEAVE_PLAN
    )
    assert in_auto == Decision(True, "writing inside the project is accepted in auto-accept mode")
