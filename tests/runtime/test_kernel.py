"""The actor kernel, on both backends: anyio's plugin runs every test on trio and asyncio."""

from __future__ import annotations

from typing import TYPE_CHECKING

import anyio
import msgspec
import pytest
import trio
import trio.testing

from runtime import Actor, ActorCrashed, ActorGone, Ask, Reply, Streamed, supervise

if TYPE_CHECKING:
    from collections.abc import Mapping

pytestmark = pytest.mark.anyio


@pytest.fixture(params=["trio", "asyncio"])
def anyio_backend(request: pytest.FixtureRequest) -> object:
    # On trio, time is virtual (MockClock jumps ahead whenever every task is blocked), so the
    # timeouts below cost nothing and the exact instants can be asserted.
    if request.param == "trio":
        return ("trio", {"clock": trio.testing.MockClock(autojump_threshold=0)})
    return "asyncio"


class Add(Ask[int], frozen=True, tag=True):
    a: int
    b: int


class Count(Streamed[int], frozen=True, tag=True):
    upto: int


class Record(msgspec.Struct, frozen=True, tag=True):
    text: str


class Boom(Ask[int], frozen=True, tag=True):
    pass


class Hang(Ask[int], frozen=True, tag=True):
    pass


CalcMsg = Add | Count | Record | Boom | Hang


class Calculator(Actor[CalcMsg]):
    name = "calculator"

    def __init__(self) -> None:
        super().__init__()
        self.records: list[str] = []
        self.hanging = anyio.Event()
        self.hang_cancelled = anyio.Event()

    async def handle(self, msg: CalcMsg, reply: Reply) -> None:
        match msg:
            case Add(a=a, b=b):
                await reply.answer(msg, a + b)
            case Count(upto=upto):
                for i in range(upto):
                    await reply.sender(msg)(i)
            case Record(text=text):
                if text == "crash":
                    raise ValueError("bad record")
                self.records.append(text)
            case Boom():
                raise KeyError("boom")
            case Hang():
                self.hanging.set()
                try:
                    await anyio.sleep_forever()
                finally:
                    self.hang_cancelled.set()


async def test_ask_tell_and_stream_are_typed_and_answered() -> None:
    calc = Calculator()
    async with supervise([calc]):
        assert await calc.address.ask(Add(a=2, b=3)) == 5
        async with calc.address.stream(Count(upto=4)) as items:
            assert [i async for i in items] == [0, 1, 2, 3]
        await calc.address.tell(Record("hello"))
    # Orderly shutdown drains the inbox: the tell was handled before the actor ended.
    assert calc.records == ["hello"]


async def test_a_failing_request_raises_in_the_caller_and_the_actor_lives_on() -> None:
    calc = Calculator()
    async with supervise([calc]):
        with pytest.raises(KeyError, match="boom"):
            await calc.address.ask(Boom())
        assert await calc.address.ask(Add(a=1, b=1)) == 2


async def test_a_crashing_actor_ends_the_session_with_one_clear_error() -> None:
    calc = Calculator()
    with pytest.raises(ActorCrashed, match="calculator") as info:
        async with supervise([calc]):
            await calc.address.tell(Record("crash"))
            await anyio.sleep_forever()  # the crash must cancel this, never hang
    assert isinstance(info.value.cause, ValueError)


class FailsToStart(Actor[CalcMsg]):
    name = "fails_to_start"

    async def on_start(self) -> None:
        raise ValueError("no config")


async def test_a_failed_start_ends_the_start_and_closes_the_later_inboxes() -> None:
    first, later = FailsToStart(), Calculator()
    with pytest.raises(ActorCrashed, match="fails_to_start") as info:
        async with supervise([first, later]):
            pytest.fail("the block runs only once every actor has started")
    assert isinstance(info.value.cause, ValueError)
    with pytest.raises(ActorGone):
        await later.address.tell(Record("never handled"))
    assert later.records == []


async def test_a_stopped_actor_is_gone() -> None:
    calc = Calculator()
    async with supervise([calc]):
        pass
    with pytest.raises(ActorGone):
        await calc.address.ask(Add(a=1, b=2))


async def test_cancelling_the_caller_cancels_the_handler(anyio_backend: object) -> None:
    calc = Calculator()
    async with supervise([calc]):
        virtual = anyio_backend != "asyncio"
        timeout = 5 if virtual else 0.05
        started = anyio.current_time()
        with anyio.move_on_after(timeout):
            await calc.address.ask(Hang())
        with anyio.fail_after(1):
            await calc.hang_cancelled.wait()
        if virtual:
            assert anyio.current_time() - started == timeout  # exactly the timeout, no more
        assert await calc.address.ask(Add(a=1, b=2)) == 3


async def test_leaving_a_stream_early_cancels_the_handler() -> None:
    calc = Calculator()
    async with supervise([calc]):
        async with calc.address.stream(Count(upto=10_000)) as items:
            async for i in items:
                if i == 3:
                    break
        # The actor is free again: the abandoned stream did not keep it busy.
        with anyio.fail_after(1):
            assert await calc.address.ask(Add(a=4, b=4)) == 8


async def test_shutdown_cancels_what_does_not_finish_within_grace() -> None:
    calc = Calculator()

    async def hang() -> None:
        with pytest.raises(ActorGone):
            await calc.address.ask(Hang())

    with anyio.fail_after(2):
        async with anyio.create_task_group() as outer, supervise([calc], grace=0.05):
            outer.start_soon(hang)
            await calc.hanging.wait()  # the handler runs when the block ends
    assert calc.hang_cancelled.is_set()


class Forwarder(Actor[Record]):
    """Started after the calculator; each record it handles needs the calculator."""

    name = "forwarder"

    def __init__(self, calc: Calculator, delay: float) -> None:
        super().__init__()
        self.calc = calc
        self.delay = delay
        self.sums: list[int] = []

    async def handle(self, msg: Record, reply: Reply) -> None:
        await anyio.sleep(self.delay)  # still busy when the block ends
        self.sums.append(await self.calc.address.ask(Add(a=len(msg.text), b=0)))


async def test_shutdown_goes_in_reverse_start_order_so_late_actors_can_drain(
    anyio_backend: object,
) -> None:
    calc = Calculator()
    forwarder = Forwarder(calc, 1 if anyio_backend != "asyncio" else 0.01)
    with anyio.fail_after(10):
        async with supervise([calc, forwarder], grace=5):
            for text in ("a", "bb", "ccc"):
                await forwarder.address.tell(Record(text))
    # The forwarder drained its inbox while the calculator, started before it, still ran.
    assert forwarder.sums == [1, 2, 3]


async def test_ordered_shutdown_still_ends_within_grace(anyio_backend: object) -> None:
    calc = Calculator()
    virtual = anyio_backend != "asyncio"
    forwarder = Forwarder(calc, 1 if virtual else 0.01)
    grace = 1.5 if virtual else 0.015
    started = anyio.current_time()
    with anyio.fail_after(10):
        async with supervise([calc, forwarder], grace=grace):
            for text in ("a", "bb", "ccc"):
                await forwarder.address.tell(Record(text))
    if virtual:
        # One record a second: the first is done, the second is cut off at the grace's end.
        assert anyio.current_time() - started == grace
        assert forwarder.sums == [1]


async def test_a_tracer_is_told_when_the_grace_runs_out_and_who_was_still_running() -> None:
    seen: list[tuple[str, dict[str, object]]] = []
    calc = Calculator()

    def tracer(event: str, fields: Mapping[str, object]) -> None:
        seen.append((event, dict(fields)))

    async with supervise([calc], grace=0.05, tracer=tracer):
        assert await calc.address.ask(Add(a=1, b=2)) == 3
    assert [event for event, _ in seen] == ["handled"]  # an ordinary end says nothing more

    async def hang() -> None:
        with pytest.raises(ActorGone):
            await calc.address.ask(Hang())

    calc = Calculator()
    with anyio.fail_after(2):
        async with anyio.create_task_group() as outer, supervise([calc], grace=0.05, tracer=tracer):
            outer.start_soon(hang)
            await calc.hanging.wait()  # the handler runs when the block ends
    assert ("grace ran out", {"grace": 0.05, "actor": "calculator"}) in seen


async def test_a_tracer_sees_each_handled_message_and_what_actors_report() -> None:
    seen: list[tuple[str, dict[str, object]]] = []
    calc = Calculator()
    async with supervise([calc], tracer=lambda event, fields: seen.append((event, dict(fields)))):
        assert await calc.address.ask(Add(a=1, b=2)) == 3
        async with calc.address.stream(Count(upto=4)) as items:
            assert [item async for item in items] == [0, 1, 2, 3]
        calc.trace("note", detail="by hand")
    handled = [fields for event, fields in seen if event == "handled"]
    # Each message once, with the replies it sent back: the whole of its traffic.
    assert [(f["actor"], f["msg"], f["replies"]) for f in handled] == [
        ("calculator", "Add", 1),
        ("calculator", "Count", 4),
    ]
    assert ("note", {"detail": "by hand"}) in seen


async def test_without_a_tracer_nothing_is_traced() -> None:
    calc = Calculator()
    async with supervise([calc]):
        assert calc.tracer is None
        calc.trace("note")  # a no-op, not an error


class Ticket(msgspec.Struct, frozen=True, tag=True):
    number: int


class Counter(Actor[Ticket]):
    """A concurrent actor that notes arrival order, and checks each handler came after it."""

    name = "counter"
    concurrent = True

    def __init__(self) -> None:
        super().__init__()
        self.arrivals: list[int] = []
        self.handled_before_arrival: list[int] = []
        self.handled = 0
        self.all_handled = anyio.Event()

    def arrived(self, msg: Ticket) -> None:
        self.arrivals.append(msg.number)

    async def handle(self, msg: Ticket, reply: Reply) -> None:
        if msg.number not in self.arrivals:
            self.handled_before_arrival.append(msg.number)
        self.handled += 1
        if self.handled == 50:
            self.all_handled.set()


async def test_a_concurrent_actor_sees_arrivals_in_inbox_order(anyio_backend: object) -> None:
    counter = Counter()
    async with supervise([counter]):
        for number in range(50):
            await counter.address.tell(Ticket(number))
        await counter.all_handled.wait()
    assert counter.arrivals == list(range(50))
    assert counter.handled_before_arrival == []
