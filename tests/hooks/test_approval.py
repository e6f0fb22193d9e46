"""A project's hooks the user has not approved: they do not run, the user is told once, and
nothing of theirs is evaluated, not even a matcher (a hostile pattern would stall the session)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import anyio
import msgspec

from actors.protocol import ApproveHooks
from tests.hooks.harness import group, running

if TYPE_CHECKING:
    from pathlib import Path


async def test_unapproved_hooks_do_not_run_and_their_matchers_are_not_tried(
    tmp_path: Path,
) -> None:
    marker = tmp_path / "ran"
    # A pattern that backtracks exponentially on a long run of x with no y after it.
    hostile = msgspec.structs.replace(
        group("PreToolUse", f"touch {marker}", matcher="(x+x+)+y"), approved=False
    )
    async with running(tmp_path, hostile) as runner:
        with anyio.fail_after(30):  # a hang guard, not a measure: 2**60 steps never end
            first = await runner.run("PreToolUse", "mcp__s__" + "x" * 60)
            second = await runner.run("PreToolUse", "Read")
        assert not marker.exists()
        assert len(first.errors) == 1
        assert "have not been approved, so they do not run" in first.errors[0]
        assert second.errors == ()  # told once
        await runner.address.ask(ApproveHooks())
        await runner.run("PreToolUse", "Read")  # approved: its (now trusted) matcher is tried
    assert not marker.exists()  # "Read" does not match the pattern


async def test_headless_runs_them_unapproved(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    waiting = msgspec.structs.replace(group("Stop", f"touch {marker}"), approved=False)
    async with running(tmp_path, waiting, run_unapproved=True) as runner:
        outcome = await runner.run("Stop", stop_hook_active=False)
    assert outcome.errors == ()
    assert marker.exists()
