"""Esc Esc and the pick list (``Screen.choose``), with prompt_toolkit's pipe input."""

from __future__ import annotations

import anyio
import pytest

from frontends.interactive.screen import REWIND
from tests.interactive.test_screen import ENTER, ESC, Harness, harness, until

pytestmark = pytest.mark.anyio
DOWN, UP, CTRL_C = "\x1b[B", "\x1b[A", "\x03"
__all__ = ["harness"]


async def test_esc_esc_at_an_empty_prompt_asks_for_the_rewind_list(harness: Harness) -> None:
    harness.pipe.send_text(ESC + ESC)
    assert await harness.next_input() == REWIND


async def test_esc_esc_with_text_typed_clears_it_into_the_history(harness: Harness) -> None:
    harness.pipe.send_text("a draft")
    await until(lambda: harness.screen.buffer.text == "a draft")
    harness.pipe.send_text(ESC + ESC)
    await until(lambda: harness.screen.buffer.text == "")
    assert list(harness.screen.buffer.history.get_strings()) == ["a draft"]
    # Nothing was sent: the next thing on the stream is the next prompt.
    harness.pipe.send_text("next" + ENTER)
    assert await harness.next_input() == "next"


async def test_the_list_moves_picks_by_enter_or_number_and_cancels(harness: Harness) -> None:
    screen = harness.screen
    rows = ("newest prompt", "older prompt", "oldest prompt")
    results: list[int | None] = []

    async def pick(keys: str) -> None:
        async with anyio.create_task_group() as tasks:

            async def choose() -> None:
                results.append(await screen.choose("Which?", rows))

            tasks.start_soon(choose)
            await until(lambda: screen._picker is not None)
            harness.pipe.send_text(keys)

    await pick(DOWN + DOWN + UP + ENTER)
    await pick("3")
    await pick(ESC)
    await pick(CTRL_C)
    await pick("typed" + UP + ENTER)  # up from the first row wraps to the last
    assert results == [1, 2, None, None, 2]
    # Keys meant for the list never reached the input.
    assert screen.buffer.text == ""


def test_the_question_names_each_file_on_its_own_line_of_the_list() -> None:
    # A name a command made may hold a newline: shown as it is, its second half would read as
    # a line of the question ("conversation: ...") that the list does not mean.
    from actors.protocol import RewindPoint
    from frontends.interactive.rewind import _question

    point = RewindPoint(
        prompt=2, text="tidy", at="", conversation=True, files=("/p/a\n  conversation: kept",)
    )
    assert _question(point).splitlines() == [
        "Prompt 2: “tidy”. Restore what?",
        "  code: /p/a\\n  conversation: kept",
    ]
