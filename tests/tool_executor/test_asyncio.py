"""The executor is backend-neutral: the parts that lean on the backend (processes, threads,
cancellation) also run on asyncio."""

from __future__ import annotations

from typing import TYPE_CHECKING

import anyio
import pytest

from actors.protocol import RunTools, ToolFinished, ToolOutput
from tests.tool_executor.harness import call, is_running, session
from tests.tool_executor.test_bash import STUBBORN, pids
from tests.tool_executor.test_interrupt import finished, interrupt_when

if TYPE_CHECKING:
    from pathlib import Path

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


async def test_files_and_commands(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_text("A\n")
    async with session(tmp_path) as s:
        await s.read(path)
        first = call("Edit", file_path=str(path), old_string="A", new_string="B")
        second = call("Edit", file_path=str(path), old_string="B", new_string="C")
        bash = call("Bash", command="echo out; echo err >&2; exit 2")
        grep = call("Grep", pattern="C", path=str(tmp_path))
        finished = await s.finished(first, second, bash, grep)
    assert path.read_text() == "C\n"
    assert finished[bash.id].result.content == "out\nerr\nExit code 2"
    assert finished[grep.id].result.content == str(path)


async def test_a_timeout_ends_the_whole_group(tmp_path: Path) -> None:
    async with session(tmp_path) as s:
        with anyio.fail_after(10):
            done = await s.one("Bash", command=STUBBORN, timeout=1000)
    assert "Command timed out" in done.result.content
    assert [is_running(pid) for pid in pids(done.result.content)] == [False, False]


async def test_cancelling_the_caller_ends_the_whole_group(tmp_path: Path) -> None:
    seen = ""
    with anyio.fail_after(10):
        async with session(tmp_path) as s:
            with anyio.CancelScope() as scope:
                request = RunTools(calls=(call("Bash", command=STUBBORN),))
                async with s.executor.address.stream(request) as events:
                    async for event in events:
                        assert not isinstance(event, ToolFinished)
                        if isinstance(event, ToolOutput):
                            seen += event.text
                        if len(pids(seen)) == 2:
                            scope.cancel()
    assert [is_running(pid) for pid in pids(seen)] == [False, False]


async def test_an_interrupt_reports_each_call(tmp_path: Path) -> None:
    stubborn = call("Bash", command=STUBBORN)
    waiting = call("Bash", command=STUBBORN)
    async with session(tmp_path, max_concurrency=1) as s:
        with anyio.fail_after(10):
            events = await interrupt_when(
                s.executor.address, (stubborn, waiting), lambda seen: len(pids(seen)) == 2
            )
    done = sorted(f.result.content for f in finished(events).values())
    assert done[0].startswith("Interrupted after")
    assert done[1] == "Interrupted before it started; nothing was done."
    seen = "".join(e.text for e in events if isinstance(e, ToolOutput))
    assert [is_running(pid) for pid in pids(seen)] == [False, False]
