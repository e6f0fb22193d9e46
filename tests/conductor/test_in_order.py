"""``InOrder``: the conductor's messages are handled one at a time in the order they came,
whatever order their tasks start in, and a caller that gives up while waiting holds nobody up."""

from __future__ import annotations

import trio
import trio.testing

from actors.conductor.in_order import InOrder


async def handle(
    order: InOrder, msg: object, name: str, log: list[str], hold: trio.Event | None = None
) -> None:
    async with order.turn(msg):
        log.append(f"{name} begins")
        if hold is not None:
            await hold.wait()
        log.append(f"{name} ends")


async def test_messages_are_handled_one_at_a_time_in_arrival_order() -> None:
    order, hold = InOrder(), trio.Event()
    log: list[str] = []
    first, second = object(), object()
    for msg in (first, second, first):  # the same object may come twice
        order.arrived(msg)
    async with trio.open_nursery() as tasks:
        # Started in the opposite order to their arrival.
        tasks.start_soon(handle, order, first, "first", log)
        tasks.start_soon(handle, order, second, "second", log, hold)
        tasks.start_soon(handle, order, first, "first", log)
        await trio.testing.wait_all_tasks_blocked()
        # One of the tasks of ``first`` has taken its first ticket; the other waits for second.
        assert log == ["first begins", "first ends", "second begins"]
        hold.set()
    assert log == [
        "first begins", "first ends", "second begins", "second ends", "first begins",
        "first ends",
    ]  # fmt: skip


async def test_a_message_given_up_while_waiting_holds_nobody_up() -> None:
    order, hold = InOrder(), trio.Event()
    log: list[str] = []
    running, abandoned, last = object(), object(), object()
    for msg in (running, abandoned, last):
        order.arrived(msg)
    async with trio.open_nursery() as tasks:
        tasks.start_soon(handle, order, running, "running", log, hold)
        with trio.CancelScope() as gone:
            tasks.start_soon(handle, order, last, "last", log)
            await trio.testing.wait_all_tasks_blocked()
            gone.cancel()
            await handle(order, abandoned, "abandoned", log)
        await trio.testing.wait_all_tasks_blocked()
        assert log == ["running begins"]
        hold.set()
    assert log == ["running begins", "running ends", "last begins", "last ends"]
