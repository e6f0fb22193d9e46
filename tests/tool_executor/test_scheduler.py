"""Scheduling one turn's calls: side by side, bounded, ordered per path, failures contained."""

from __future__ import annotations

from typing import TYPE_CHECKING

import anyio

from actors.protocol import ToolFinished, ToolStarted
from tests.tool_executor.harness import call, session

if TYPE_CHECKING:
    from pathlib import Path


async def test_four_sleeps_take_one_second_not_four(tmp_path: Path) -> None:
    async with session(tmp_path) as s:
        started = anyio.current_time()
        finished = await s.finished(*[call("Bash", command="sleep 1") for _ in range(4)])
        elapsed = anyio.current_time() - started
    assert [f.result.is_error for f in finished.values()] == [False] * 4
    print(f"4 x sleep 1 took {elapsed:.2f}s")
    assert elapsed < 1.8


async def test_max_concurrency_bounds_the_calls_in_flight(tmp_path: Path) -> None:
    async with session(tmp_path, max_concurrency=2) as s:
        events = await s.events(*[call("Bash", command="sleep 0.1") for _ in range(5)])
    in_flight, most = 0, 0
    for event in events:
        if isinstance(event, ToolStarted):
            in_flight += 1
            most = max(most, in_flight)
        elif isinstance(event, ToolFinished):
            in_flight -= 1
    assert most == 2
    assert sum(isinstance(event, ToolFinished) for event in events) == 5


async def test_a_failing_call_does_not_stop_its_siblings(tmp_path: Path) -> None:
    (tmp_path / "ok.txt").write_text("fine\n")
    calls = [
        call("Bash", command="exit 1"),
        call("Read", file_path=str(tmp_path / "missing.txt")),
        call("Read"),
        call("Frobnicate"),
        call("Bash", command="sleep 0.2; echo still here"),
        call("Read", file_path=str(tmp_path / "ok.txt")),
    ]
    async with session(tmp_path) as s:
        finished = await s.finished(*calls)
    results = [finished[c.id].result for c in calls]
    assert [r.is_error for r in results] == [True, True, True, True, False, False]
    assert results[4].content == "still here"
    assert results[5].content == "     1\tfine"


async def test_a_broken_broker_fails_the_call_not_the_batch(tmp_path: Path) -> None:
    def explode(request: object) -> str | None:
        raise RuntimeError("broker bug")

    async with session(tmp_path, deny=explode) as s:
        done = await s.one("Bash", command="echo hi")
        assert done.result.is_error
        assert done.result.content == "Bash failed: RuntimeError: broker bug"


async def test_a_write_then_a_read_of_the_same_file_keep_their_order(tmp_path: Path) -> None:
    path = tmp_path / "notes" / "todo.md"
    write = call("Write", file_path=str(path), content="- ship it\n")
    grep = call("Grep", pattern="ship", path=str(tmp_path))
    read = call("Read", file_path=str(path))
    async with session(tmp_path) as s:
        finished = await s.finished(write, grep, read)
    assert finished[read.id].result.content == "     1\t- ship it"
    # Grep searches the folder holding the file, so it too waits for the write.
    assert finished[grep.id].result.content == str(path)
