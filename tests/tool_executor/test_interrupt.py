"""InterruptTools: every call of the batch still reports, saying how far it got."""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING

import anyio
import trio.testing

from actors import process_groups
from actors.protocol import (
    CheckPermission,
    InterruptTools,
    PermissionBrokerMsg,
    RunTools,
    ToolEvent,
    ToolFinished,
    ToolOutput,
    ToolStarted,
)
from actors.tool_executor import ToolExecutor
from runtime import Actor, Reply, supervise
from tests.tool_executor.harness import call, is_running, session
from tests.tool_executor.test_bash import STUBBORN, pids

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    import pytest
    from anyio.abc import Process

    from actors.protocol import ToolCall, ToolExecutorMsg
    from runtime import Address


async def interrupt_when(
    executor: Address[ToolExecutorMsg],
    calls: tuple[ToolCall, ...],
    ready: Callable[[str], bool],
) -> list[ToolEvent]:
    """Run ``calls``; once ``ready`` holds for the live output so far, interrupt them all, and
    return every event, the interrupted results included."""
    seen = ""
    events: list[ToolEvent] = []
    sent = False
    async with executor.stream(RunTools(calls=calls)) as stream:
        async for event in stream:
            events.append(event)
            if isinstance(event, ToolOutput):
                seen += event.text
            if not sent and ready(seen):
                await executor.tell(InterruptTools(ids=tuple(c.id for c in calls)))
                sent = True
    return events


def finished(events: list[ToolEvent]) -> dict[str, ToolFinished]:
    return {e.result.tool_use_id: e for e in events if isinstance(e, ToolFinished)}


async def test_interrupted_commands_report_elapsed_time_and_output(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    graces: list[float] = []
    stop = process_groups.stop

    async def recorded(
        running: Process, *, grace: float = process_groups.GRACE, init: int | None = None
    ) -> None:
        graces.append(grace)
        await stop(running, grace=grace, init=init)

    monkeypatch.setattr(process_groups, "stop", recorded)
    stubborn = call("Bash", command=STUBBORN)
    chatty = call("Bash", command="echo first line; echo second line; sleep 100")
    async with session(tmp_path) as s:
        with anyio.fail_after(10):  # the commands would sleep 100 s
            events = await interrupt_when(
                s.executor.address,
                (stubborn, chatty),
                lambda seen: len(pids(seen)) == 2 and "second line" in seen,
            )
    done = finished(events)
    assert set(done) == {stubborn.id, chatty.id}
    for result in (done[stubborn.id].result, done[chatty.id].result):
        assert result.is_error
        assert re.match(
            r"Interrupted after \d+\.\d s, before it finished; the command and every process it "
            r"started were stopped\. Output so far:\n",
            result.content,
        ), result.content
    assert done[chatty.id].result.content.endswith("Output so far:\nfirst line\nsecond line")
    found = pids(done[stubborn.id].result.content)
    assert len(found) == 2
    # The child that ignores SIGTERM got SIGKILL after the short interrupt grace, not the
    # longer one a command that runs out of time gets.
    assert [is_running(pid) for pid in found] == [False, False]
    assert graces == [process_groups.INTERRUPT_GRACE] * 2


async def test_calls_waiting_for_a_slot_are_interrupted_before_they_start(tmp_path: Path) -> None:
    # One slot, two calls: whichever starts first holds it; the other waits, and is stopped.
    calls = tuple(
        call("Bash", command=f"touch {tmp_path / name}; echo go; sleep 100") for name in "ab"
    )
    async with session(tmp_path, max_concurrency=1) as s:
        with anyio.fail_after(10):
            events = await interrupt_when(s.executor.address, calls, lambda seen: "go" in seen)
    [ran] = [e.id for e in events if isinstance(e, ToolStarted)]
    [queued] = [c.id for c in calls if c.id != ran]
    done = finished(events)
    assert done[queued].result.content == "Interrupted before it started; nothing was done."
    assert done[queued].elapsed == 0
    assert done[ran].result.content.startswith("Interrupted after")
    assert len(os.listdir(tmp_path)) == 1  # only the call that ran touched its file


async def test_an_interrupt_that_overtakes_its_batch_still_applies(tmp_path: Path) -> None:
    late = call("Bash", command=f"touch {tmp_path / 'ran'}")
    async with session(tmp_path) as s:
        await s.executor.address.tell(InterruptTools(ids=(late.id,)))
        events = await s.events(late)
    assert finished(events)[late.id].result.content.startswith("Interrupted before it started")
    assert not (tmp_path / "ran").exists()


class WaitingBroker(Actor[PermissionBrokerMsg]):
    """A person who never answers: every permission request waits."""

    name = "permission_broker"

    def __init__(self) -> None:
        super().__init__()
        self.asked = anyio.Event()

    async def handle(self, msg: PermissionBrokerMsg, reply: Reply) -> None:
        if isinstance(msg, CheckPermission):
            self.asked.set()
            await anyio.sleep_forever()


async def test_a_call_waiting_for_permission_is_interrupted_and_does_nothing(
    tmp_path: Path,
) -> None:
    broker = WaitingBroker()
    executor = ToolExecutor(broker.address, project_root=str(tmp_path))
    write = call("Write", file_path=str(tmp_path / "new.txt"), content="hello\n")
    events: list[ToolEvent] = []
    async with supervise([broker, executor]):
        with anyio.fail_after(10):
            async with executor.address.stream(RunTools(calls=(write,))) as stream:
                await broker.asked.wait()
                await trio.testing.wait_all_tasks_blocked()
                await executor.address.tell(InterruptTools(ids=(write.id,)))
                events = [event async for event in stream]
    [done] = finished(events).values()
    assert re.fullmatch(
        r"Interrupted after \d+\.\d s while waiting for the user's permission; nothing was done\.",
        done.result.content,
    )
    assert not (tmp_path / "new.txt").exists()


async def test_an_interrupt_for_finished_or_unknown_calls_changes_nothing(tmp_path: Path) -> None:
    async with session(tmp_path) as s:
        done = await s.one("Bash", command="echo ok")
        await s.executor.address.tell(InterruptTools(ids=(done.result.tool_use_id, "nope")))
        again = await s.one("Bash", command="echo still fine")
    assert done.result.content == "ok"
    assert again.result.content == "still fine"
