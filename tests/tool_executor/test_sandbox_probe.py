"""The session's one trial of bubblewrap, with stand-ins for a bwrap that hangs, fails or is
missing: each says why in words a person can act on."""

from __future__ import annotations

import stat
from typing import TYPE_CHECKING

from actors.tool_executor.sandbox.probe import TRIAL_TIMEOUT, try_bwrap

if TYPE_CHECKING:
    from pathlib import Path

    import trio.testing


def stand_in(tmp_path: Path, body: str) -> str:
    path = tmp_path / "bwrap"
    path.write_text(f"#!/bin/sh\n{body}\n")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


async def test_a_bwrap_that_hangs_is_given_up_on_and_said_so(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    bwrap = stand_in(tmp_path, "exec sleep 100")
    trial = await try_bwrap(bwrap)
    assert (trial.works, trial.reason) == (
        False,
        f"{bwrap} did not answer within {TRIAL_TIMEOUT:.0f} s",
    )


async def test_a_bwrap_that_cannot_make_a_sandbox_says_its_last_line(tmp_path: Path) -> None:
    bwrap = stand_in(
        tmp_path,
        'case "$1" in --version) echo "bubblewrap 0.11.0";; '
        '*) echo "bwrap: setting up uid map: Permission denied" >&2; exit 1;; esac',
    )
    trial = await try_bwrap(bwrap)
    assert (trial.works, trial.version) == (False, "bubblewrap 0.11.0")
    assert trial.reason == (
        f"{bwrap} cannot make a sandbox here: bwrap: setting up uid map: Permission denied"
    )


async def test_a_bwrap_that_is_not_there_is_named(tmp_path: Path) -> None:
    missing = str(tmp_path / "nowhere" / "bwrap")
    trial = await try_bwrap(missing)
    assert (trial.works, trial.reason) == (
        False,
        f"{missing} could not be run: No such file or directory",
    )
