"""Leaving the sandbox is explicit: Bash's ``dangerouslyDisableSandbox`` always asks a person,
even in auto mode for an allowed command; a headless run denies it; with the sandbox off it
changes nothing. Real commands, the real broker and policy."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tests.tool_executor.harness import with_policy
from tests.tool_executor.sandbox_setup import needs_bwrap

if TYPE_CHECKING:
    from pathlib import Path

pytestmark = needs_bwrap


def layout(tmp_path: Path) -> tuple[Path, Path]:
    project = tmp_path / "project"
    project.mkdir()
    return project, tmp_path / "beside.txt"


async def test_the_escape_asks_even_in_auto_mode_and_a_yes_runs_unconfined(
    tmp_path: Path,
) -> None:
    project, beside = layout(tmp_path)
    command = f"touch {beside}"
    async with with_policy(project, mode="auto", answers=["y"], allowedCommands=["touch"]) as s:
        confined = await s.one("Bash", command=command)
        assert s.person is not None and s.person.asked == []  # allowed: nobody is asked
        assert confined.result.is_error and not beside.exists()  # the sandbox refused it
        escaped = await s.one("Bash", command=command, dangerouslyDisableSandbox=True)
        (question,) = s.person.asked
    assert not escaped.result.is_error, escaped.result.content
    assert beside.exists()
    assert question.choices == ("y", "n")  # never remembered for the session
    assert question.warning is not None and "outside the sandbox" in question.warning


async def test_a_no_keeps_it_confined_and_headless_denies_it(tmp_path: Path) -> None:
    project, beside = layout(tmp_path)
    command = f"touch {beside}"
    async with with_policy(project, mode="auto", answers=["n"], allowedCommands=["touch"]) as s:
        said_no = await s.one("Bash", command=command, dangerouslyDisableSandbox=True)
    async with with_policy(project, mode="auto", allowedCommands=["touch"]) as s:
        headless = await s.one("Bash", command=command, dangerouslyDisableSandbox=True)
    assert said_no.result.denied and not beside.exists()
    assert headless.result.denied and not beside.exists()
    assert "outside the sandbox needs a person's approval" in headless.result.content


async def test_with_the_sandbox_off_the_flag_asks_nothing_more(tmp_path: Path) -> None:
    project, beside = layout(tmp_path)
    async with with_policy(
        project, mode="auto", allowedCommands=["touch"], sandbox={"enabled": False}
    ) as s:
        done = await s.one("Bash", command=f"touch {beside}", dangerouslyDisableSandbox=True)
    assert not done.result.is_error and beside.exists()


async def test_unconfined_commands_run_outside_without_a_question(tmp_path: Path) -> None:
    project, beside = layout(tmp_path)
    settings: dict[str, Any] = {
        "allowedCommands": ["touch", "echo"],
        "sandbox": {"unconfinedCommands": ["touch"]},
    }
    async with with_policy(project, mode="auto", answers=[], **settings) as s:
        alone = await s.one("Bash", command=f"touch {beside}")
        assert s.person is not None and s.person.asked == []
        assert not alone.result.is_error and beside.exists()
        beside.unlink()
        # A line with another program in it stays confined as a whole.
        mixed = await s.one("Bash", command=f"echo hi && touch {beside}")
    assert mixed.result.is_error and not beside.exists()


async def test_unconfined_commands_still_obey_the_rules(tmp_path: Path) -> None:
    project, beside = layout(tmp_path)
    settings: dict[str, Any] = {"sandbox": {"unconfinedCommands": ["touch"]}}
    async with with_policy(project, mode="auto", **settings) as s:  # headless, touch unlisted
        done = await s.one("Bash", command=f"touch {beside}")
    assert done.result.denied and not beside.exists()
