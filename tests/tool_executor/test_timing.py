"""The time a call reports (the ✓ 1.2 s after it) is its own: the wait for the person's
answer is not counted."""

from __future__ import annotations

from typing import TYPE_CHECKING

import trio
import trio.testing

from actors.protocol import CheckPermission, Decision
from tests.tool_executor.harness import Broker, Calls, call

if TYPE_CHECKING:
    from pathlib import Path

    from runtime import Reply

from actors.tool_executor import ToolExecutor
from runtime import supervise

ANSWER_TAKES = 30.0  # virtual seconds the person thinks before saying yes


class SlowPerson(Broker):
    """Allows each call after the person has thought for ``ANSWER_TAKES`` seconds."""

    async def handle(self, msg: object, reply: Reply) -> None:
        if isinstance(msg, CheckPermission):
            await trio.sleep(ANSWER_TAKES)
            await reply.answer(msg, Decision(True, "the user allowed it"))
            return
        await super().handle(msg, reply)  # type: ignore[arg-type]


async def test_the_wait_for_an_answer_is_not_the_calls_time(
    tmp_path: Path, autojump_clock: trio.testing.MockClock
) -> None:
    broker = SlowPerson()
    executor = ToolExecutor(broker.address, project_root=str(tmp_path))
    async with supervise([broker, executor]):
        began = trio.current_time()
        edit = call("Write", file_path=str(tmp_path / "a.txt"), content="x\n")
        finished = await Calls(executor, tmp_path).finished(edit)
        waited = trio.current_time() - began
    assert (tmp_path / "a.txt").read_text() == "x\n"
    assert waited >= ANSWER_TAKES  # the person's time passed on the clock...
    assert finished[edit.id].elapsed == 0.0  # ...and none of it is the call's
