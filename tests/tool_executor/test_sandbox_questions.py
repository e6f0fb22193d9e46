"""Fewer questions, not more: in auto mode a command the rules do not know runs without a
question when it is confined and has no network; with network, with autoAllow off, or naming a
path outside the project it still asks (headless: denied), and blockedCommands still deny."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tests.tool_executor.harness import with_policy
from tests.tool_executor.sandbox_setup import needs_bwrap

if TYPE_CHECKING:
    from pathlib import Path

pytestmark = needs_bwrap


async def headless_run(root: Path, command: str, **settings: Any) -> tuple[bool, str]:
    """Whether ``command`` ran in a headless auto-mode session (nobody to ask), and its result."""
    async with with_policy(root, mode="auto", **settings) as s:
        done = await s.one("Bash", command=command)
    return not done.result.denied, done.result.content


async def test_an_unknown_command_confined_and_offline_runs_without_a_question(
    tmp_path: Path,
) -> None:
    (tmp_path / "a.txt").write_text("hello\n")
    ran, said = await headless_run(tmp_path, "wc -l a.txt", sandbox={"network": False})
    assert ran and said.startswith("1 a.txt")


async def test_it_still_asks_with_network_with_auto_allow_off_or_outside_the_project(
    tmp_path: Path,
) -> None:
    (tmp_path / "a.txt").write_text("hello\n")
    assert not (await headless_run(tmp_path, "wc -l a.txt"))[0]  # network on by default
    off = {"network": False, "autoAllow": False}
    assert not (await headless_run(tmp_path, "wc -l a.txt", sandbox=off))[0]
    outside = await headless_run(tmp_path, "wc -l /etc/hostname", sandbox={"network": False})
    assert not outside[0]


async def test_blocked_commands_and_other_modes_are_unchanged(tmp_path: Path) -> None:
    offline = {"network": False}
    ran, said = await headless_run(tmp_path, "rm -f a.txt", sandbox=offline, blockedCommands=["rm"])
    assert not ran and "blockedCommands" in said
    async with with_policy(tmp_path, mode="ask", sandbox=offline) as s:
        asked = await s.one("Bash", command="wc -l a.txt")
    assert asked.result.denied  # ask mode asks for every command, as before
