"""Calls of MCP tools and the tool rules (allowedTools, blockedTools), as an attacker tries them:
names that share a prefix, servers with '__' in their names, other cases, a blocked server
with one of its tools allowed, and what a headless run says."""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any

import pytest

from actors.permission_broker.answers import FORGET_NEVER
from actors.permission_broker.explain import assess_quietly
from actors.permission_broker.policy import Policy
from actors.permission_broker.questions import FULL_CHOICES, LEAVE_PLAN, Question
from actors.protocol import (
    CheckPermission,
    Decision,
    GlobalConfig,
    McpServer,
    PermissionMode,
    PermissionRequest,
    ProjectContext,
    ProjectSettings,
)
from frontends.session import memory_store, permission_broker, questions_actor
from frontends.session_options import SessionOptions
from runtime import supervise
from tests.permission_broker.test_broker import FakeUi
from tests.permission_broker.test_policy import blocked_by
from tests.trusting import trust_project

if TYPE_CHECKING:
    from pathlib import Path

    from actors.memory_store import MemoryStore

MODES: tuple[PermissionMode, ...] = ("ask", "auto", "custom", "plan")
ASKING: tuple[PermissionMode, ...] = ("ask", "auto", "custom")


@pytest.fixture
def root(tmp_path: Path) -> str:
    project = tmp_path / "project"
    (project / ".legato").mkdir(parents=True)
    return os.path.realpath(project)


def make_policy(
    root: str,
    mode: PermissionMode = "ask",
    *,
    allowed: tuple[str, ...] = (),
    blocked: tuple[str, ...] = (),
    allowed_commands: tuple[str, ...] = (),
    servers: tuple[str, ...] = (),
) -> Policy:
    settings = ProjectSettings(
        allowed_tools=allowed, blocked_tools=blocked, allowed_commands=allowed_commands
    )
    context = ProjectContext(
        project_root=root,
        config=GlobalConfig(),
        settings=settings,
        model="claude-sonnet-4-6",
        permission_mode=mode,
        mcp_servers=tuple(
            McpServer(name=name, transport="stdio", source="/p/.mcp.json", command="x")
            for name in servers
        ),
    )
    return Policy(context)


def call(server: str | None, tool: str, **arguments: Any) -> PermissionRequest:
    name = tool if server is None else f"mcp__{server}__{tool}"
    return PermissionRequest(tool=name, kind="call", server=server, arguments=arguments)


def allowed(policy: Policy, request: PermissionRequest) -> bool | None:
    """True or False for a decision, None when a person is asked."""
    outcome = policy.assess(request)
    return outcome.allowed if isinstance(outcome, Decision) else None


# ── asked like commands ─────────────────────────────────────────────────────────────────────


@pytest.mark.parametrize("mode", ASKING)
def test_an_unlisted_call_is_put_to_a_person_in_every_mode_but_plan(
    root: str, mode: PermissionMode
) -> None:
    outcome = make_policy(root, mode).assess(call("git", "status"))
    assert isinstance(outcome, Question)
    assert outcome.choices == FULL_CHOICES
    assert outcome.keys == (("call", "mcp__git__status"),)


def test_the_headless_reason_names_the_tool_the_server_and_the_remedy(root: str) -> None:
    outcome = make_policy(root, "auto").assess(call("git", "status"))
    assert isinstance(outcome, Question)
    settings = os.path.join(root, ".legato", "settings.json")
    assert outcome.headless_reason == (
        "'mcp__git__status' (tool 'status' of MCP server 'git') is not in allowedTools, so "
        "auto-accept mode asks before calling it, and a headless run cannot ask. To allow it, "
        "add 'mcp__git__status' (or 'mcp__git' for all its server's tools) to allowedTools in "
        f"{settings}"
    )


def test_plan_mode_refuses_every_call_even_an_allowed_one(root: str) -> None:
    policy = make_policy(root, "plan", allowed=("mcp__git",))
    outcome = policy.assess(call("git", "status"))
    assert outcome == Decision(
        False,
        "plan mode is read-only: calling 'mcp__git__status' (tool 'status' of MCP server 'git') "
        "is not allowed, as an MCP tool can change anything",
        remedy=LEAVE_PLAN,
    )


@pytest.mark.parametrize("mode", ASKING)
def test_allowed_tools_allow_without_asking_like_allowed_commands(
    root: str, mode: PermissionMode
) -> None:
    policy = make_policy(root, mode, allowed=("mcp__git", "mcp__web__fetch"))
    assert policy.assess(call("git", "push")) == Decision(
        True, "allowed by allowedTools entry 'mcp__git' (tool 'push' of MCP server 'git')"
    )
    assert allowed(policy, call("web", "fetch")) is True
    assert allowed(policy, call("web", "post")) is None


# ── names: exact, case-sensitive, servers decided by the request's server ───────────────────


@pytest.mark.parametrize(
    ("server", "tool"),
    [
        ("github", "x"),  # mcp__git is a prefix of mcp__github
        ("git_x", "y"),  # ... and of mcp__git_x
        ("git-x", "y"),
        ("Git", "status"),  # another case is another server
        ("git__evil", "status"),  # mcp__git__evil__status: the tool 'evil__status' of 'git'?
    ],
)
def test_a_server_entry_covers_only_that_server(root: str, server: str, tool: str) -> None:
    policy = make_policy(root, allowed=("mcp__git",))
    assert allowed(policy, call(server, tool)) is None
    assert allowed(policy, call("git", "status")) is True


def test_a_server_whose_name_has_double_underscores_is_its_own(root: str) -> None:
    # Servers 'a' and 'a__b' both make names starting 'mcp__a__'.
    blocked_a = make_policy(root, blocked=("mcp__a",))
    assert allowed(blocked_a, call("a__b", "x")) is None
    assert allowed(blocked_a, call("a", "b__x")) is False
    blocked_ab = make_policy(root, blocked=("mcp__a__b",))
    assert allowed(blocked_ab, call("a__b", "x")) is False
    assert allowed(blocked_ab, call("a", "x")) is None
    allowed_a = make_policy(root, allowed=("mcp__a",))
    assert allowed(allowed_a, call("a__b", "x")) is None
    assert allowed(allowed_a, call("a", "x")) is True


@pytest.mark.parametrize("entry", ["mcp__Git", "MCP__git", "mcp__git__Status"])
def test_names_are_case_sensitive(root: str, entry: str) -> None:
    policy = make_policy(root, allowed=(entry,))
    assert allowed(policy, call("git", "status")) is None


def test_a_tool_entry_is_not_a_prefix_of_other_tools(root: str) -> None:
    policy = make_policy(root, allowed=("mcp__git__status",))
    assert allowed(policy, call("git", "status_all")) is None
    assert allowed(policy, call("git", "status__x")) is None
    assert allowed(policy, call("git", "status")) is True


def test_a_call_without_its_server_is_matched_by_name_blocked_broadly(root: str) -> None:
    # Refusing too much is safe; allowing by a prefix is not.
    assert allowed(make_policy(root, blocked=("mcp__git",)), call(None, "mcp__git__push")) is False
    assert allowed(make_policy(root, allowed=("mcp__git",)), call(None, "mcp__git__push")) is None
    exact = make_policy(root, allowed=("mcp__git__push",))
    assert allowed(exact, call(None, "mcp__git__push")) is True


def test_an_explanation_by_name_finds_the_server_the_tool_belongs_to(root: str) -> None:
    policy = make_policy(root, blocked=("mcp__a",), servers=("a", "a__b", "git"))
    assert policy.server_of("mcp__a__b__x") == "a__b"
    assert policy.server_of("mcp__a__x") == "a"
    assert policy.server_of("mcp__gitx__y") is None
    by_name = PermissionRequest(tool="mcp__a__b__x", kind="call")
    assert assess_quietly(policy, by_name).outcome == "asks"  # a__b's tool: mcp__a is not it
    assert assess_quietly(policy, PermissionRequest(tool="mcp__a__x", kind="call")).outcome == (
        "denied"
    )


# ── blocked wins ────────────────────────────────────────────────────────────────────────────


@pytest.mark.parametrize("mode", MODES)
def test_a_blocked_server_wins_over_an_allowed_tool_of_it(root: str, mode: PermissionMode) -> None:
    policy = make_policy(root, mode, allowed=("mcp__git__status",), blocked=("mcp__git",))
    assert policy.assess(call("git", "status")) == blocked_by(
        policy, "blocked by blockedTools entry 'mcp__git' (tool 'status' of MCP server 'git')"
    )


@pytest.mark.parametrize("mode", MODES)
def test_a_blocked_tool_is_denied_even_after_always(root: str, mode: PermissionMode) -> None:
    policy = make_policy(root, mode, blocked=("mcp__git__push",))
    policy._answers[("call", "mcp__git__push")] = True
    assert allowed(policy, call("git", "push")) is False
    assert allowed(policy, call("git", "status")) is (None if mode != "plan" else False)


@pytest.mark.parametrize("mode", MODES)
def test_a_blocked_built_in_denies_its_every_request(root: str, mode: PermissionMode) -> None:
    policy = make_policy(root, mode, blocked=("Bash", "Read"), allowed_commands=("ls",))
    inside = os.path.join(root, "a.txt")
    run = PermissionRequest(tool="Bash", kind="run", command="ls")
    read = PermissionRequest(tool="Read", kind="read", paths=(inside,))
    assert policy.assess(run) == blocked_by(policy, "blocked by blockedTools entry 'Bash'")
    assert policy.assess(read) == blocked_by(policy, "blocked by blockedTools entry 'Read'")
    # Another tool reading the same file is not Read.
    grep = PermissionRequest(tool="Grep", kind="read", paths=(inside,))
    assert allowed(policy, grep) is (True if mode in ("auto", "plan") else None)


def test_an_allowed_built_in_allows_what_no_rule_lists_but_not_a_block(root: str) -> None:
    policy = make_policy(root, "ask", allowed=("Bash",))
    assert policy.assess(PermissionRequest(tool="Bash", kind="run", command="make")) == Decision(
        True, "allowed by allowedTools entry 'Bash'"
    )
    # A command that needs a person whatever the rules say still asks.
    risky = PermissionRequest(tool="Bash", kind="run", command="GIT_CONFIG_COUNT=1 git status")
    assert allowed(policy, risky) is None
    # Not another tool's request.
    write = PermissionRequest(tool="Write", kind="write", paths=(os.path.join(root, "a"),))
    assert allowed(policy, write) is None
    # Nor Legato's own files: a change to the rules always needs a person.
    writes = make_policy(root, "auto", allowed=("Write",))
    own = os.path.join(root, ".legato", "settings.json")
    assert allowed(writes, PermissionRequest(tool="Write", kind="write", paths=(own,))) is None
    outside = os.path.join(os.path.dirname(root), "elsewhere.txt")
    assert allowed(writes, PermissionRequest(tool="Write", kind="write", paths=(outside,))) is True


# ── always and never: per tool ──────────────────────────────────────────────────────────────


def test_always_and_never_hold_for_that_tool_only(root: str) -> None:
    policy = make_policy(root)
    question = policy.assess(call("git", "status"))
    assert isinstance(question, Question)
    assert policy.answer(question, "always") == Decision(
        True, "the user allowed calling 'mcp__git__status' for this session"
    )
    assert allowed(policy, call("git", "status", path="x")) is True  # other arguments too
    assert allowed(policy, call("git", "push")) is None  # not the server's other tools
    never = policy.assess(call("git", "push"))
    assert isinstance(never, Question)
    policy.answer(never, "never")
    assert policy.assess(call("git", "push")) == Decision(
        False, "the user denied calling 'mcp__git__push' for this session", remedy=FORGET_NEVER
    )
    assert allowed(policy, call("git", "status")) is True


# ── through the broker actor ────────────────────────────────────────────────────────────────


def memory_for(project: Path, settings: dict[str, object], mode: PermissionMode) -> MemoryStore:
    (project / ".legato").mkdir(parents=True, exist_ok=True)
    (project / ".legato" / "settings.json").write_text(json.dumps(settings))
    home = project.parent / "home"
    trust_project(project, home)  # as the user would with ``legato trust``
    return memory_store(
        SessionOptions(project_root=str(project), home=str(home), permission_mode=mode)
    )


async def test_headless_denies_a_call_naming_the_tool_and_the_remedy(tmp_path: Path) -> None:
    project = tmp_path / "project"
    memory = memory_for(project, {"allowedTools": ["mcp__docs"]}, "ask")
    broker = permission_broker(memory)
    async with supervise([memory, broker]):
        denied = await broker.address.ask(CheckPermission(request=call("git", "push")))
        allowed_call = await broker.address.ask(CheckPermission(request=call("docs", "find")))
    assert denied.allowed is False
    assert denied.reason.startswith(
        "'mcp__git__push' (tool 'push' of MCP server 'git') is not in allowedTools"
    )
    assert (
        "add 'mcp__git__push' (or 'mcp__git' for all its server's tools) to allowedTools in "
        in (denied.reason)
    )
    assert allowed_call.allowed is True


async def test_the_question_carries_the_call_and_always_is_remembered(tmp_path: Path) -> None:
    project = tmp_path / "project"
    memory = memory_for(project, {}, "auto")
    ui = FakeUi(["always"])
    questions = questions_actor(ui)
    broker = permission_broker(memory, questions=questions)
    request = call("git", "status", path=".")
    async with supervise([memory, questions, broker]):
        first = await broker.address.ask(CheckPermission(request=request))
        second = await broker.address.ask(CheckPermission(request=call("git", "status")))
    assert [asked.request for asked in ui.asked] == [request]
    assert ui.asked[0].choices == ("y", "n", "always", "never")
    assert first.allowed is True
    assert second == Decision(True, "the user allowed calling 'mcp__git__status' for this session")


async def test_blocked_tools_are_never_put_to_the_person(tmp_path: Path) -> None:
    project = tmp_path / "project"
    memory = memory_for(
        project, {"blockedTools": ["mcp__git"], "allowedTools": ["mcp__git__push"]}, "custom"
    )
    ui = FakeUi([])
    questions = questions_actor(ui)
    broker = permission_broker(memory, questions=questions)
    async with supervise([memory, questions, broker]):
        decision = await broker.address.ask(CheckPermission(request=call("git", "push")))
    assert decision == blocked_by(
        project, "blocked by blockedTools entry 'mcp__git' (tool 'push' of MCP server 'git')"
    )
    assert ui.asked == []
