"""The input side with prompt_toolkit's pipe input: keys in, prompts and answers out."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

import anyio
import pytest
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput
from rich.console import Console

from frontends.interactive.screen import EXIT, Screen
from frontends.interactive.status import Status
from frontends.interactive.theme import DARK
from frontends.interactive.view import TurnView

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Callable

    from prompt_toolkit.input import PipeInput

pytestmark = pytest.mark.anyio

ENTER, ALT_ENTER, CTRL_J, SHIFT_TAB, ESC, CTRL_C, CTRL_D = (
    "\r", "\x1b\r", "\n", "\x1b[Z", "\x1b", "\x03", "\x04",
)  # fmt: skip


async def until(condition: Callable[[], bool]) -> None:
    """Poll with a deadline: the app handles keys in its own task."""
    with anyio.fail_after(5):
        while True:
            if condition():
                return
            await anyio.sleep(0.005)


class Harness:
    def __init__(self, pipe: PipeInput) -> None:
        self.pipe = pipe
        self.cycles = 0
        view = TurnView(Console(file=io.StringIO(), width=80), DARK)

        def cycle() -> None:
            self.cycles += 1

        self.screen = Screen(
            view,
            Status("claude-sonnet-4-6", "ask"),
            DARK,
            on_cycle_mode=cycle,
            input=pipe,
            output=DummyOutput(),
        )

    async def next_input(self) -> object:
        with anyio.fail_after(5):
            return await self.screen.inputs.receive()


@pytest.fixture
async def harness() -> AsyncIterator[Harness]:
    with create_pipe_input() as pipe:
        h = Harness(pipe)
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(h.screen.app.run_async)
            await until(lambda: h.screen.app.is_running)
            yield h
            h.screen.app.exit()
        h.screen.close()


async def test_enter_submits_and_three_keys_insert_a_newline(harness: Harness) -> None:
    harness.pipe.send_text("first" + ALT_ENTER + "second" + CTRL_J + "third\\" + ENTER + "end")
    harness.pipe.send_text(ENTER)
    assert await harness.next_input() == "first\nsecond\nthird\nend"
    assert harness.screen.buffer.text == ""
    harness.pipe.send_text("   " + ENTER + "next" + ENTER)  # a blank prompt is not sent
    assert await harness.next_input() == "next"


async def test_shift_tab_cycles_the_mode(harness: Harness) -> None:
    harness.pipe.send_text(SHIFT_TAB + SHIFT_TAB)
    await until(lambda: harness.cycles == 2)


async def test_escape_and_ctrl_c_cancel_the_running_turn(harness: Harness) -> None:
    for key in (ESC, CTRL_C):
        with anyio.CancelScope() as scope:
            harness.screen.busy = scope
            harness.pipe.send_text(key)
            await anyio.sleep_forever()
        harness.screen.busy = None
        assert scope.cancelled_caught


async def test_type_ahead_during_a_turn_is_queued(harness: Harness) -> None:
    harness.screen.busy = anyio.CancelScope()
    harness.pipe.send_text("later" + ENTER)
    assert await harness.next_input() == "later"
    assert harness.screen.queued == ["later"]


async def test_ctrl_c_clears_then_twice_at_an_empty_prompt_exits(harness: Harness) -> None:
    harness.pipe.send_text("draft")
    await until(lambda: harness.screen.buffer.text == "draft")
    harness.pipe.send_text(CTRL_C)
    await until(lambda: harness.screen.buffer.text == "")
    harness.pipe.send_text(CTRL_C)
    await until(harness.screen._ctrl_c_pending)
    harness.pipe.send_text(CTRL_C)
    assert await harness.next_input() is EXIT


async def test_ctrl_d_at_an_empty_prompt_exits(harness: Harness) -> None:
    harness.pipe.send_text(CTRL_D)
    assert await harness.next_input() is EXIT


async def test_a_question_takes_only_its_replies_and_keeps_the_type_ahead(
    harness: Harness,
) -> None:
    harness.pipe.send_text("half-typed prompt")
    await until(lambda: harness.screen.buffer.text == "half-typed prompt")
    answers: list[str] = []

    async def ask() -> None:
        answers.append(await harness.screen.ask(("y", "n", "always", "never")))

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(ask)
        await until(lambda: harness.screen._question is not None)
        assert harness.screen.buffer.text == ""
        harness.pipe.send_text("maybe" + ENTER)
        await until(lambda: bool(harness.screen._question and harness.screen._question.error))
        harness.pipe.send_text("always" + ENTER)
    assert answers == ["always"]
    assert harness.screen.buffer.text == "half-typed prompt"


async def test_an_idle_screen_does_not_poll_the_terminal_size(harness: Harness) -> None:
    # Resizes come by SIGWINCH in the main thread: a poll of the size as well would wake a
    # session sitting at its prompt twice a second for nothing.
    assert harness.screen.app.terminal_size_polling_interval is None
