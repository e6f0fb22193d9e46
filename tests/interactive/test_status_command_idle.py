"""The status line command's loop, on virtual time: idle, it compares the facts at most once a
second (a session at its prompt is not woken more often); told of a change, at once."""

from __future__ import annotations

from typing import Any

import trio
import trio.testing

from actors.settings.declared import StatusLine
from frontends.interactive.status_command import DEBOUNCE, IDLE_CHECK, StatusCommand


class Facts:
    """A status whose facts count how often they are read."""

    def __init__(self) -> None:
        self.reads = 0
        self.value = 1

    def facts(self) -> tuple[object, ...]:
        self.reads += 1
        return (self.value,)


class Counting(StatusCommand):
    runs = 0

    async def refresh(self) -> None:
        self.runs += 1


def command(facts: Facts) -> Counting:
    status: Any = facts
    return Counting(
        StatusLine(command="true"), lambda: None,  # type: ignore[arg-type,return-value]
        status, project_root="/", added=(), version="0", columns=lambda: 80,
        note=lambda text: None, changed=lambda: None,
    )  # fmt: skip


async def test_idle_it_wakes_at_most_once_a_second_and_a_poke_is_seen_at_once(
    autojump_clock: trio.testing.MockClock,
) -> None:
    facts = Facts()
    runner = command(facts)
    async with trio.open_nursery() as nursery:
        nursery.start_soon(runner.run_forever)
        await trio.sleep(60)
        assert runner.runs == 1  # the first run; nothing changed since
        assert facts.reads <= 60 / IDLE_CHECK + 1
        facts.value = 2
        runner.poke()
        await trio.sleep(DEBOUNCE + 0.01)
        assert runner.runs == 2
        nursery.cancel_scope.cancel()
