"""A command's question says how it will run: in the sandbox with or without network, or
unconfined and why. Files' questions say nothing of it."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

import pytest

from actors.permission_broker.policy import Policy
from actors.permission_broker.questions import Question
from actors.protocol import (
    GlobalConfig,
    PermissionRequest,
    ProjectContext,
    ProjectSettings,
    SandboxSettings,
)
from tests.tool_executor.harness import with_policy
from tests.tool_executor.sandbox_setup import failing_bwrap, needs_bwrap, needs_landlock

if TYPE_CHECKING:
    from pathlib import Path

IN_SANDBOX = "runs in the sandbox, network: allowed"
OFFLINE = "runs in the sandbox, no network"
UNCONFINED = "runs unconfined: full file and network access"


def question(tmp_path: Path, request: PermissionRequest, **sandbox: Any) -> Question:
    settings = ProjectSettings(allowed_commands=("ls",), sandbox=SandboxSettings(**sandbox))
    context = ProjectContext(
        project_root=os.path.realpath(tmp_path),
        config=GlobalConfig(),
        settings=settings,
        model="claude-sonnet-4-6",
        permission_mode="ask",
    )
    asked = Policy(context).assess(request)
    assert isinstance(asked, Question), asked
    return asked


def command(line: str, *, confined: bool = False, unconfined: bool = False) -> PermissionRequest:
    return PermissionRequest(
        tool="Bash", kind="run", command=line, confined=confined, unconfined=unconfined
    )


@pytest.mark.parametrize(
    ("request_", "sandbox", "says"),
    [
        (command("wc -l a.txt", confined=True), {}, IN_SANDBOX),
        (command("wc -l a.txt", confined=True), {"network": False}, OFFLINE),
        # A line that needs a person for its redirection as well as its command.
        (command("wc -l a.txt > /tmp/n", confined=True), {"network": False}, OFFLINE),
        (command("wc -l a.txt"), {}, f"{UNCONFINED} (the sandbox cannot run here)"),
        (command("wc -l a.txt"), {"enabled": False}, f"{UNCONFINED} (sandbox.enabled is false)"),
        (command("ls", unconfined=True), {}, f"{UNCONFINED} (dangerouslyDisableSandbox)"),
        (
            command("docker ps", confined=True),
            {"unconfined_commands": ("docker",)},
            f"{UNCONFINED} (sandbox.unconfinedCommands)",
        ),
    ],
)
def test_a_command_question_says_how_it_runs(
    tmp_path: Path, request_: PermissionRequest, sandbox: dict[str, Any], says: str
) -> None:
    asked = question(tmp_path, request_, **sandbox).confinement
    assert asked is not None and asked.words() == says


def test_a_file_question_says_nothing_of_the_sandbox(tmp_path: Path) -> None:
    write = PermissionRequest(tool="Write", kind="write", paths=("/elsewhere/a.txt",))
    assert question(tmp_path, write).confinement is None


@needs_bwrap
async def test_the_person_is_told_it_through_the_broker(tmp_path: Path) -> None:
    async with with_policy(tmp_path, answers=["y"], sandbox={"network": False}) as s:
        done = await s.one("Bash", command="true")
        assert s.person is not None
        (asked,) = s.person.asked
    assert not done.result.is_error
    assert asked.confinement is not None and asked.confinement.words() == OFFLINE


def test_a_command_under_landlock_is_said_to_be_held_only_in_part(tmp_path: Path) -> None:
    request = PermissionRequest(tool="Bash", kind="run", command="make", partly_confined=True)
    asked = question(tmp_path, request, network=False).confinement
    assert asked is not None and (asked.confined, asked.partly) == (False, True)
    assert asked.words() == (
        "runs under Landlock: writes held to the project; blocked files readable, only TCP cut "
        "off (see legato doctor)"
    )


@needs_landlock
async def test_where_bwrap_fails_the_person_is_told_landlock_holds_it_in_part(
    tmp_path: Path,
) -> None:
    root = tmp_path / "project"
    root.mkdir()
    bwrap = failing_bwrap(tmp_path)
    async with with_policy(root, answers=["y"], bwrap=bwrap) as s:
        done = await s.one("Bash", command="true")
        assert s.person is not None
        (asked,) = s.person.asked
    assert not done.result.is_error
    assert asked.confinement is not None and asked.confinement.partly


def untrusted_policy(tmp_path: Path, **settings: Any) -> Policy:
    """The policy of a session in a project whose settings are not trusted: its allowed
    commands apply where they run in the sandbox (the memory store says which they are)."""
    entries = ("make", "ls")
    context = ProjectContext(
        project_root=os.path.realpath(tmp_path),
        config=GlobalConfig(),
        settings=ProjectSettings(allowed_commands=(*entries, "git status"), **settings),
        model="claude-sonnet-4-6",
        permission_mode="ask",
        confined_only_commands=entries,
    )
    return Policy(context)


@pytest.mark.parametrize("landlock", [False, True])
def test_an_untrusted_projects_command_runs_unasked_in_the_sandbox(
    tmp_path: Path, landlock: bool
) -> None:
    request = PermissionRequest(
        tool="Bash",
        kind="run",
        command="make test",
        confined=not landlock,
        partly_confined=landlock,
    )
    decided = untrusted_policy(tmp_path).assess(request)
    assert not isinstance(decided, Question) and decided.allowed


def test_an_untrusted_projects_command_that_would_run_unconfined_asks(tmp_path: Path) -> None:
    # Where no sandbox can run, the project's 'make' would run its Makefile as the user:
    # what holds a specific program untrusted is the sandbox, and here there is none.
    asked = untrusted_policy(tmp_path).assess(command("make test"))
    assert isinstance(asked, Question)
    assert asked.headless_reason == (
        "allowed by allowedCommands entry 'make', but it would run unconfined (the sandbox "
        "cannot run here), and a project's allowedCommands allow a command unasked only in the "
        "sandbox until you trust it, so it needs a person's approval and a headless run cannot "
        "ask. Install bubblewrap so that commands run in the sandbox; or, to have them run "
        f"unconfined, set sandbox.enabled to false in {tmp_path}/.legato/settings.json and "
        "trust it with 'legato trust'"
    )
    # What the driving program (the Agent SDK's options) allows is the user's own.
    decided = untrusted_policy(tmp_path).assess(command("git status"))
    assert not isinstance(decided, Question) and decided.allowed
