"""The warning that Bash commands run unconfined (or only in part) is said once: by the frontend
that takes it as the session starts (``TakeSandboxWarning``, the interactive banner), or else by
the first command, whichever comes first; never by both, and never by neither.

Unless a test says otherwise, the kernel's Landlock is hidden, so that a failing bwrap leaves
commands unconfined."""

from __future__ import annotations

from typing import TYPE_CHECKING

import anyio
import pytest
import trio.testing

from actors.protocol import Notice, TakeSandboxWarning
from actors.tool_executor.sandbox.locate import configured_bwrap
from tests.tool_executor.harness import Person, with_policy
from tests.tool_executor.sandbox_setup import REFUSAL, failing_bwrap, needs_bwrap, needs_landlock

if TYPE_CHECKING:
    from pathlib import Path

    from tests.tool_executor.harness import PolicySession


pytestmark = pytest.mark.usefixtures("no_landlock")


def held_bwrap(folder: Path) -> tuple[str, Path]:
    release = folder / "release"
    return failing_bwrap(folder, release=release), release


def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    return root


def warnings(ui: Person) -> list[str]:
    return [event.text for event in ui.shown if isinstance(event, Notice)]


async def take(s: PolicySession) -> str | None:
    return await s.executor.address.ask(TakeSandboxWarning())


async def test_taken_while_the_trial_runs_the_first_command_says_nothing(tmp_path: Path) -> None:
    bwrap, release = held_bwrap(tmp_path)
    ui = Person([])
    taken: list[str | None] = []
    ran: list[str] = []
    async with with_policy(project(tmp_path), answers=["y"], bwrap=bwrap, ui=ui) as s:

        async def banner() -> None:
            taken.append(await take(s))

        async def command() -> None:
            ran.append((await s.one("Bash", command="echo ran")).result.content)

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(banner)
            await trio.testing.wait_all_tasks_blocked()  # the banner waits for the trial
            tasks.start_soon(command)
            await trio.testing.wait_all_tasks_blocked()  # so does the command, after it
            assert taken == ran == []
            release.touch()
    assert ran == ["ran"]
    [line] = taken
    assert line is not None
    assert line.startswith(f"Bash commands run unconfined: {bwrap} cannot make a sandbox here")
    assert REFUSAL in line and "Allow unprivileged user namespaces" in line
    assert warnings(ui) == []


async def test_after_a_command_has_warned_there_is_nothing_to_take(tmp_path: Path) -> None:
    bwrap, release = held_bwrap(tmp_path)
    release.touch()
    ui = Person([])
    async with with_policy(project(tmp_path), answers=["y"], bwrap=bwrap, ui=ui) as s:
        done = await s.one("Bash", command="echo ran")
        line = await take(s)
    assert done.result.content == "ran"
    [warning] = warnings(ui)
    assert warning.startswith("Bash commands run unconfined: they can write outside")
    assert line is None


async def test_sandbox_enabled_false_is_said_with_the_way_back(tmp_path: Path) -> None:
    ui = Person([])
    off = {"enabled": False}
    async with with_policy(project(tmp_path), answers=["y"], ui=ui, sandbox=off) as s:
        line = await take(s)
        again = await take(s)
        await s.one("Bash", command="true")
    assert line == (
        "Bash commands run unconfined: sandbox.enabled is false in .legato/settings.json; "
        "set it to true to confine them"
    )
    assert again is None
    assert warnings(ui) == []


@needs_bwrap
async def test_confined_there_is_nothing_to_say(tmp_path: Path) -> None:
    ui = Person([])
    async with with_policy(project(tmp_path), answers=["y"], ui=ui) as s:
        line = await take(s)
        done = await s.one("Bash", command="echo ran")
    assert line is None
    assert done.result.content == "ran"
    assert warnings(ui) == []


def test_assistant_bwrap_names_the_bwrap_by_path_or_on_path(tmp_path: Path) -> None:
    folder = tmp_path / "bin"
    folder.mkdir()
    (folder / "bwrap").touch(mode=0o755)
    path = {"PATH": str(folder)}
    assert configured_bwrap(path) is None
    assert configured_bwrap(path | {"ASSISTANT_BWRAP": " "}) is None
    assert configured_bwrap(path | {"ASSISTANT_BWRAP": "bwrap"}) == str(folder / "bwrap")
    assert configured_bwrap({"ASSISTANT_BWRAP": "/opt/bwrap"}) == "/opt/bwrap"
    # Not found: kept as given, for the trial to say it could not be run.
    assert configured_bwrap(path | {"ASSISTANT_BWRAP": "bwrap-9"}) == "bwrap-9"


@needs_landlock
async def test_under_landlock_the_banner_says_what_is_not_enforced_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.undo()  # this kernel's Landlock, as it is
    bwrap, release = held_bwrap(tmp_path)
    release.touch()
    ui = Person([])
    async with with_policy(project(tmp_path), answers=["y"], bwrap=bwrap, ui=ui) as s:
        line = await take(s)
        done = await s.one("Bash", command="echo ran")
    assert done.result.content == "ran"
    assert line is not None
    assert line.startswith("Bash commands run under Landlock, which enforces only part of")
    assert "Not enforced: read-only inside the project" in line and REFUSAL in line
    assert warnings(ui) == []
