"""The session's one trial of bubblewrap, with stand-ins for a bwrap that hangs, fails or is
missing: each says why in words a person can act on."""

from __future__ import annotations

import stat
import time
from pathlib import Path
from typing import TYPE_CHECKING

from actors.tool_executor.sandbox.probe import TRIAL_TIMEOUT, Trial, try_bwrap

if TYPE_CHECKING:
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


async def test_a_trial_given_up_on_leaves_no_process_of_it(
    tmp_path: Path, mock_clock: trio.testing.MockClock
) -> None:
    """bwrap's child waits on its parent to set it up: a trial that kills bwrap alone on a
    timeout leaves that child waiting for good. The whole group goes."""
    import trio

    pid_file = tmp_path / "child.pid"
    bwrap = stand_in(
        tmp_path,
        f'case "$1" in --version) echo "bubblewrap 0.11.0";; '
        f"*) sleep 1000 & echo $! > {pid_file}.part; mv {pid_file}.part {pid_file}; wait;; esac",
    )
    trials: list[Trial] = []

    async def trial() -> None:
        trials.append(await try_bwrap(bwrap))

    def started() -> int:
        while not pid_file.exists():  # the virtual clock stands still meanwhile
            time.sleep(0.01)
        return int(pid_file.read_text())

    async with trio.open_nursery() as nursery:
        nursery.start_soon(trial)
        child = await trio.to_thread.run_sync(started)
        mock_clock.jump(TRIAL_TIMEOUT)
    assert trials[0].reason == f"{bwrap} did not answer within {TRIAL_TIMEOUT:.0f} s"
    # The group was sent SIGKILL; the kernel ends the child when it next runs, which on a busy
    # machine may be a moment later. A child left running would never end.
    assert await trio.to_thread.run_sync(ends, child)


def ends(pid: int) -> bool:
    """Whether ``pid`` is gone, or a zombie waiting for pid 1 to reap it, within 10 s."""
    for _ in range(1000):
        try:
            state = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            return True
        if state.split(") ")[1][0] == "Z":
            return True
        time.sleep(0.01)
    return False
