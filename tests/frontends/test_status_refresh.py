"""When the statusLine command runs, in virtual time: at the start, after a change (several
changes close together run it once), every ``refreshInterval`` when one is set, and never twice
for nothing."""

from __future__ import annotations

from itertools import pairwise
from typing import TYPE_CHECKING, Any, cast

import trio
import trio.testing

from actors.protocol import HookRun, StatusLine, Usage
from frontends.interactive.status import Status
from frontends.interactive.status_command import DEBOUNCE, StatusCommand

if TYPE_CHECKING:
    from actors.protocol import HookRunnerMsg, RunStatusLine
    from runtime import Address


class Runner:
    """The hook runner's side: each run's virtual time and state, answered at once."""

    def __init__(self) -> None:
        self.runs: list[tuple[float, dict[str, Any]]] = []

    async def ask(self, msg: RunStatusLine) -> HookRun:
        self.runs.append((trio.current_time(), msg.state))
        return HookRun(command=msg.command, source="statusLine", exit_code=0, stdout="line\n")


def command(status: Status, runner: Runner, **setting: Any) -> StatusCommand:
    return StatusCommand(
        StatusLine(command="x", **setting),
        lambda: cast("Address[HookRunnerMsg]", runner),
        status,
        project_root="/p",
        added=(),
        version="0",
        columns=lambda: 80,
        note=lambda _: None,
        changed=lambda: None,
    )


async def test_it_runs_at_the_start_and_once_after_changes_close_together(
    autojump_clock: trio.testing.MockClock,
) -> None:
    status, runner = Status(model="claude-sonnet-4-6", mode="ask"), Runner()
    async with trio.open_nursery() as nursery:
        shown = command(status, runner)
        nursery.start_soon(shown.run_forever)
        await trio.sleep(10)
        assert [at for at, _ in runner.runs] == [0.0]  # nothing changed: no second run
        status.mode = "auto"
        status.count(Usage(input_tokens=10, output_tokens=5))
        shown.poke()  # as the screen does when it is told of a change
        await trio.sleep(10)
        nursery.cancel_scope.cancel()
    assert len(runner.runs) == 2
    assert 10.0 <= runner.runs[1][0] <= 10.0 + DEBOUNCE
    assert runner.runs[1][1]["permission_mode"] == "acceptEdits"
    assert runner.runs[1][1]["context_window"]["current_usage"]["output_tokens"] == 5
    assert status.custom == ("line\x1b[0m",)


async def test_a_refresh_interval_runs_it_on_a_timer_too(
    autojump_clock: trio.testing.MockClock,
) -> None:
    status, runner = Status(model="claude-sonnet-4-6", mode="ask"), Runner()
    async with trio.open_nursery() as nursery:
        nursery.start_soon(command(status, runner, refresh_interval=2).run_forever)
        await trio.sleep(7)
        nursery.cancel_scope.cancel()
    # Each run at the first check at or past two seconds after the one before.
    assert len(runner.runs) == 4
    times = [at for at, _ in runner.runs]
    assert all(2 <= later - earlier < 2 + DEBOUNCE for earlier, later in pairwise(times))


class SlowFirst(Runner):
    """The first run takes ten seconds; the others answer at once."""

    def __init__(self) -> None:
        super().__init__()
        self.cancelled_at: float | None = None

    async def ask(self, msg: RunStatusLine) -> HookRun:
        if not self.runs:
            self.runs.append((trio.current_time(), msg.state))
            try:
                await trio.sleep(10)
            except trio.Cancelled:
                self.cancelled_at = trio.current_time()
                raise
        return await super().ask(msg)


async def test_a_change_stops_a_run_still_going_and_starts_another(
    autojump_clock: trio.testing.MockClock,
) -> None:
    status, runner = Status(model="claude-sonnet-4-6", mode="ask"), SlowFirst()
    async with trio.open_nursery() as nursery:
        shown = command(status, runner, refresh_interval=1)
        nursery.start_soon(shown.run_forever)
        await trio.sleep(3)
        assert len(runner.runs) == 1  # the timer does not stop nor pile on a run going
        status.mode = "plan"
        shown.poke()
        await trio.sleep(1)
        nursery.cancel_scope.cancel()
    assert runner.cancelled_at is not None and 3 <= runner.cancelled_at <= 3 + DEBOUNCE
    assert runner.runs[1][1]["permission_mode"] == "plan"
    assert status.custom == ("line\x1b[0m",)
