"""What the Agent SDK's control protocol needs of the broker: its dontAsk and bypassPermissions
modes, structured answers (an allow with other input, a deny with the answerer's words), and a
re-check of an answered call's new input that asks nobody a second time."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest

from actors.errors import UsageError
from actors.permission_broker.questions import LEAVE_PLAN
from actors.permission_modes import SDK_MODES, from_sdk, to_sdk
from actors.protocol import (
    AskUser,
    CheckPermission,
    Decision,
    ExplainPermissions,
    PermissionAnswer,
    PermissionMode,
    PermissionRequest,
    SetMode,
)
from actors.ui import Renderer
from frontends.session import memory_store, permission_broker, questions_actor
from frontends.session_options import SessionOptions
from runtime import Actor, supervise
from tests.permission_broker.test_policy import blocked_by

if TYPE_CHECKING:
    from pathlib import Path

    from actors.memory_store import MemoryStore


class SdkUi(Renderer):
    """Answers each question with the next scripted answer, plain or structured."""

    def __init__(self, answers: list[str | PermissionAnswer]) -> None:
        self.answers = answers
        self.asked: list[AskUser] = []

    async def ask(self, question: AskUser) -> str | PermissionAnswer:
        self.asked.append(question)
        return self.answers.pop(0)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / ".legato").mkdir(parents=True)
    settings = {
        "allowedCommands": ["git status"],
        "blockedCommands": ["rm"],
        "blockedPaths": [".env"],
    }
    (root / ".legato" / "settings.json").write_text(json.dumps(settings))
    return root.resolve()


def memory_for(project: Path, mode: PermissionMode | None = None) -> MemoryStore:
    home = project.parent / "home"
    return memory_store(
        SessionOptions(project_root=str(project), home=str(home), permission_mode=mode)
    )


def check(**fields: Any) -> CheckPermission:
    return CheckPermission(request=PermissionRequest(**fields))


def run(command: str, **fields: Any) -> CheckPermission:
    # As the executor asks for a command it runs in the sandbox.
    return check(tool="Bash", kind="run", command=command, **{"confined": True, **fields})


def write(path: Path, **fields: Any) -> CheckPermission:
    return check(tool="Write", kind="write", paths=(str(path),), **fields)


async def decide(
    project: Path,
    mode: PermissionMode | None,
    *checks: CheckPermission,
    answers: list[str | PermissionAnswer] | None = None,
) -> tuple[list[Decision], list[AskUser]]:
    """The broker's decisions on ``checks``; with ``answers`` there is someone to ask."""
    memory = memory_for(project, mode)
    ui = None if answers is None else SdkUi(answers)
    questions = None if ui is None else questions_actor(ui)
    broker = permission_broker(memory, questions=questions)
    actors: list[Actor[Any]] = (
        [memory, broker] if questions is None else [memory, questions, broker]
    )
    async with supervise(actors):
        decisions = [await broker.address.ask(msg) for msg in checks]
    return decisions, [] if ui is None else ui.asked


# ── the SDK's names ─────────────────────────────────────────────────────────────────────────


def test_the_sdk_names_map_to_legato_modes_and_back() -> None:
    assert {name: from_sdk(name) for name in SDK_MODES} == {
        "default": "ask",
        "acceptEdits": "auto",
        "plan": "plan",
        "auto": "auto",
        "dontAsk": "dont_ask",
        "bypassPermissions": "bypass",
    }
    for name in ("default", "acceptEdits", "plan", "dontAsk", "bypassPermissions"):
        assert to_sdk(from_sdk(name)) == name
    assert to_sdk("custom") == "default"


def test_a_bad_sdk_name_names_itself_and_the_accepted_ones() -> None:
    with pytest.raises(UsageError) as caught:
        from_sdk("yolo")
    assert caught.value.message == "'yolo' is not a permission mode"
    assert caught.value.remedy == (
        "Use one of default, acceptEdits, plan, auto, dontAsk, bypassPermissions"
    )


# ── dontAsk ─────────────────────────────────────────────────────────────────────────────────


async def test_dont_ask_denies_what_would_be_asked_without_asking(project: Path) -> None:
    settings_file = project / ".legato" / "settings.json"
    (denied, allowed, blocked), asked = await decide(
        project,
        "dont_ask",
        run("make test"),
        run("git status"),
        run("rm -rf build"),
        answers=[],  # someone could be asked: nobody is
    )
    assert asked == []
    assert denied == Decision(
        False,
        "'make test' is not in allowedCommands, so ask mode asks before running it, and in "
        "dontAsk mode nobody is asked. To allow it, add 'make' (or the whole command) to "
        f"allowedCommands in {settings_file}, or the rule 'Bash(make *)' to permissions.allow "
        "in .claude/settings.json (or switch from dontAsk to a permission mode "
        "that asks)",
    )
    assert allowed == Decision(True, "allowed by allowedCommands entry 'git status'")
    assert blocked == blocked_by(
        project, "blocked by blockedCommands entry 'rm' (command 'rm -rf build')"
    )


async def test_dont_ask_is_ask_modes_rules_for_files_and_mcp_tools(project: Path) -> None:
    (inside, tool), asked = await decide(
        project,
        "dont_ask",
        write(project / "a.txt"),
        check(tool="mcp__git__status", kind="call", server="git"),
        answers=[],
    )
    assert asked == []
    assert not inside.allowed and "allowedPaths" in inside.reason
    assert not tool.allowed and "allowedTools" in tool.reason
    for decision in (inside, tool):
        assert "dontAsk" in decision.reason and "headless" not in decision.reason


async def test_set_mode_switches_to_and_from_dont_ask(project: Path) -> None:
    memory = memory_for(project)
    ui = SdkUi(["y"])
    questions = questions_actor(ui)
    broker = permission_broker(memory, questions=questions)
    async with supervise([memory, questions, broker]):
        assert await broker.address.ask(SetMode(mode="dont_ask")) == "dont_ask"
        unasked = await broker.address.ask(run("make test"))
        explained = await broker.address.ask(ExplainPermissions())
        assert await broker.address.ask(SetMode(mode="ask")) == "ask"
        asked = await broker.address.ask(run("make test"))
    assert not unasked.allowed and asked == Decision(True, "the user allowed it")
    assert explained.mode == "dont_ask"
    assert [question.request.command for question in ui.asked] == ["make test"]


# ── bypassPermissions ───────────────────────────────────────────────────────────────────────


async def test_bypass_allows_what_the_rules_do_not_block_without_asking(project: Path) -> None:
    bypassed = Decision(True, "bypassPermissions mode allows what the rules do not block")
    decisions, asked = await decide(
        project,
        "bypass",
        run("make test"),
        write(project / "a.txt"),
        check(tool="mcp__git__status", kind="call", server="git"),
        run("rm -rf build"),
        check(tool="Read", kind="read", paths=(str(project / ".env"),)),
        run("cat .env"),
        answers=["n"],
    )
    assert [question.request.command for question in asked] == ["cat .env"]
    assert decisions[:3] == [bypassed] * 3
    assert decisions[3] == blocked_by(
        project, "blocked by blockedCommands entry 'rm' (command 'rm -rf build')"
    )
    assert decisions[4] == blocked_by(project, "blocked by blockedPaths entry '.env' (path '.env')")
    # Naming a blocked file is a person's question, bypass or not: the rules cannot bind what
    # an allowed program reads.
    assert decisions[5] == Decision(False, "the user denied it")
    assert asked[0].warning is not None and "blockedPaths entry '.env'" in asked[0].warning


async def test_bypass_still_asks_what_only_a_person_may_allow(project: Path) -> None:
    own = write(project / ".legato" / "settings.json")
    unconfined = run("make test", unconfined=True)
    elsewhere = write(project.parent / "elsewhere.txt")
    (settings, outside, beyond), asked = await decide(
        project, "bypass", own, unconfined, elsewhere, answers=["y", "n", "y"]
    )
    assert [question.request for question in asked] == [
        m.request for m in (own, unconfined, elsewhere)
    ]
    assert settings == beyond == Decision(True, "the user allowed it")
    assert outside == Decision(False, "the user denied it")
    # Nobody to ask: denied, with the reason.
    (settings, outside, beyond), _ = await decide(project, "bypass", own, unconfined, elsewhere)
    assert not settings.allowed and "Legato's own settings" in settings.reason
    assert not outside.allowed and "outside the sandbox" in outside.reason
    assert not beyond.allowed and "outside the project always needs" in beyond.reason


async def test_plan_mode_stays_read_only_after_bypass(project: Path) -> None:
    memory = memory_for(project, "bypass")
    broker = permission_broker(memory)
    async with supervise([memory, broker]):
        bypassed = await broker.address.ask(write(project / "a.txt"))
        await broker.address.ask(SetMode(mode="plan"))
        planned = await broker.address.ask(write(project / "a.txt"))
    assert bypassed.allowed
    assert planned == Decision(
        False, "plan mode is read-only: writing 'a.txt' is not allowed", remedy=LEAVE_PLAN
    )


# ── structured answers ──────────────────────────────────────────────────────────────────────


async def test_an_allow_carries_its_input_and_a_deny_its_words_and_interrupt(
    project: Path,
) -> None:
    new_input = {"command": "make build"}
    allow = PermissionAnswer(choice="y", updated_input=new_input)
    deny = PermissionAnswer(choice="n", message="use the Makefile's check target", interrupt=True)
    (allowed, denied, plain), _ = await decide(
        project, "ask", run("make test"), run("make test"), run("make test"),
        answers=[allow, deny, "y"],
    )  # fmt: skip
    assert allowed == Decision(True, "the user allowed it", updated_input=new_input)
    assert denied == Decision(
        False,
        "the user denied it: use the Makefile's check target",
        message="use the Makefile's check target",
        interrupt=True,
    )
    assert plain == Decision(True, "the user allowed it")


async def test_a_question_carries_the_calls_id_and_input(project: Path) -> None:
    tool_input = {"command": "make test", "description": "run the tests"}
    _, [asked] = await decide(
        project,
        "ask",
        run("make test", tool_use_id="toolu_1", tool_input=tool_input),
        answers=["y"],
    )
    assert asked.request.tool_use_id == "toolu_1"
    assert asked.request.tool_input == tool_input


# ── an answered call's new input, checked again ─────────────────────────────────────────────


async def test_new_input_is_checked_by_the_rules_and_asks_nobody(project: Path) -> None:
    decisions, asked = await decide(
        project,
        "ask",
        run("make build", preapproved="input"),
        write(project / "b.txt", preapproved="input"),
        run("rm -rf build", preapproved="input"),
        write(project / ".env", preapproved="input"),
        write(project.parent / "elsewhere.txt", preapproved="input"),
        write(project / ".legato" / "settings.json", preapproved="input"),
        answers=[],
    )
    assert asked == []
    preapproved = Decision(True, "allowed with the input the permission answer gave")
    assert decisions[:2] == [preapproved] * 2
    assert decisions[2] == blocked_by(
        project, "blocked by blockedCommands entry 'rm' (command 'rm -rf build')"
    )
    assert decisions[3] == blocked_by(project, "blocked by blockedPaths entry '.env' (path '.env')")
    outside, own = decisions[4:]
    assert not outside.allowed
    assert "outside the project always needs a person's approval" in outside.reason
    assert "updatedInput" in outside.reason and "headless" not in outside.reason
    assert not own.allowed and "Legato's own settings" in own.reason


async def test_new_input_for_the_answered_target_needs_no_second_answer(project: Path) -> None:
    (outside, own), asked = await decide(
        project,
        "ask",
        write(project.parent / "elsewhere.txt", preapproved="target"),
        write(project / ".legato" / "settings.json", preapproved="target"),
        answers=[],
    )
    assert asked == []
    preapproved = Decision(True, "allowed with the input the permission answer gave")
    assert outside == own == preapproved


async def test_in_plan_mode_new_input_is_still_read_only(project: Path) -> None:
    (decision,), _ = await decide(project, "plan", write(project / "a.txt", preapproved="target"))
    assert decision == Decision(
        False, "plan mode is read-only: writing 'a.txt' is not allowed", remedy=LEAVE_PLAN
    )


async def test_a_hooks_ask_goes_to_a_person_in_bypass_and_to_nobody_in_dont_ask(
    project: Path,
) -> None:
    hook_asks = {"hook_asks": "a reviewer must see deploys"}
    (bypassed,), asked = await decide(
        project, "bypass", run("make deploy", **hook_asks), answers=["n"]
    )
    assert bypassed == Decision(False, "the user denied it") and len(asked) == 1
    (unasked,), asked = await decide(
        project, "dont_ask", run("git status", **hook_asks), answers=[]
    )
    assert asked == [] and not unasked.allowed
    assert "a PreToolUse hook asks for a person" in unasked.reason and "dontAsk" in unasked.reason


async def test_a_settings_file_that_turns_bypass_off_keeps_it_off(project: Path) -> None:
    # The reference's permissions.disableBypassPermissionsMode, here in the user's own file:
    # the SDK's set_permission_mode cannot turn bypass on, so a call still asks.
    claude = project.parent / "home" / ".claude" / "settings.json"
    claude.parent.mkdir(parents=True)
    claude.write_text('{"permissions": {"disableBypassPermissionsMode": "disable"}}')
    memory = memory_for(project)
    ui = SdkUi(["n"])
    questions = questions_actor(ui)
    broker = permission_broker(memory, questions=questions)
    async with supervise([memory, questions, broker]):
        with pytest.raises(UsageError, match="disableBypassPermissionsMode"):
            await broker.address.ask(SetMode(mode="bypass"))
        asked = await broker.address.ask(run("make test"))
    assert asked == Decision(False, "the user denied it")
    assert [question.request.command for question in ui.asked] == ["make test"]
