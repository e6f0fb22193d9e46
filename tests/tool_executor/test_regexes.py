"""A pattern from a hostile (or careless) model cannot stop the session: Grep's pattern and
TaskOutput's filter give up after regexes.MATCH_TIMEOUT with a clear error, and while one
backtracks the event loop goes on, so Esc still works. With Python's re, the match held the GIL
and nothing else ran until it ended (for the patterns here, hours)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import anyio

from actors.tool_executor.regexes import MATCH_TIMEOUT
from tests.tool_executor.harness import session
from tests.tool_executor.test_background import read_until, start

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable
    from pathlib import Path

    from actors.protocol import ToolFinished

# Backtracks exponentially on a run of a's that does not end the line: 2**60 ways to split it.
HOSTILE = "(a|aa)+$"
LINE = "a" * 60 + "b"


async def while_counting(work: Callable[[], Awaitable[ToolFinished]]) -> tuple[ToolFinished, int]:
    """Run ``work``, and count how often another task got to run meanwhile."""
    ticks = 0
    done: list[ToolFinished] = []
    async with anyio.create_task_group() as tasks:

        async def run() -> None:
            done.append(await work())
            tasks.cancel_scope.cancel()

        tasks.start_soon(run)
        while True:
            await anyio.sleep(0.001)
            ticks += 1
    return done[0], ticks


async def test_a_backtracking_grep_pattern_is_stopped_and_the_session_goes_on(
    tmp_path: Path,
) -> None:
    (tmp_path / "a.txt").write_text(f"fine\n{LINE}\n")
    async with session(tmp_path) as s:
        # A file named directly is searched by the Python matcher (so is a folder where
        # ripgrep cannot run); ripgrep's matcher does not backtrack at all.
        done, ticks = await while_counting(lambda: s.one("Grep", pattern=HOSTILE, path="a.txt"))
        plain = await s.one("Grep", pattern="fin[e]", path=".")
        by_rg = await s.one("Grep", pattern=HOSTILE, path=".")
    assert by_rg.result.content == f"No matches for {HOSTILE!r} in {tmp_path}."
    assert done.result.is_error
    assert f"took more than {MATCH_TIMEOUT:.0f} s on one text and was stopped" in (
        done.result.content
    )
    # A second of matching with the GIL let go: the other task ran hundreds of times, where
    # with re it ran not once until the match ended.
    assert ticks > 50, ticks
    assert plain.result.content.endswith("a.txt") and not plain.result.is_error


async def test_a_backtracking_filter_is_stopped_and_the_output_is_not_lost(
    tmp_path: Path,
) -> None:
    async with session(tmp_path) as s:
        task_id = await start(s, f"echo {LINE}; echo done")
        await read_until(s, task_id, "exited", filter="^done$")
        task_id = await start(s, f"echo {LINE}; echo done")
        done, ticks = await while_counting(
            lambda: s.one("TaskOutput", task_id=task_id, filter=HOSTILE)
        )
        after = await s.one("TaskOutput", task_id=task_id, block=False)
    assert done.result.is_error and "was stopped: it backtracks" in done.result.content
    assert ticks > 50, ticks
    assert "done" in after.result.content  # the refused read did not take the output with it
