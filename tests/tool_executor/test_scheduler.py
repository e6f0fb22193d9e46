"""Scheduling one turn's calls: side by side, bounded, ordered per path, failures contained."""

from __future__ import annotations

from typing import TYPE_CHECKING

import anyio
from trio.testing import wait_all_tasks_blocked

from actors.protocol import RunTools, ToolFinished, ToolStarted
from actors.tool_executor.files import FilesRead
from actors.tool_executor.scheduler import Scheduler
from actors.tool_executor.tools import TOOLS
from runtime import supervise
from tests.tool_executor.harness import Broker, call, session

if TYPE_CHECKING:
    from pathlib import Path

    from anyio.abc import TaskStatus

    from actors.protocol import ToolCall, ToolEvent


async def test_four_commands_run_at_the_same_time(tmp_path: Path) -> None:
    # A barrier: each command ends only once all four have started, so calls run one after
    # another would never end. (The speed-up itself is measured in benchmarks/cancellation.py.)
    started = tmp_path / "started"
    started.mkdir()
    command = f"touch {started}/$$; until [ $(ls {started} | wc -l) -ge 4 ]; do sleep 0.01; done"
    with anyio.fail_after(30):  # only calls that wait for each other would get here
        async with session(tmp_path) as s:
            finished = await s.finished(*[call("Bash", command=command) for _ in range(4)])
    assert [f.result.is_error for f in finished.values()] == [False] * 4
    assert len(list(started.iterdir())) == 4


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


async def test_calls_sent_one_by_one_keep_their_order_on_a_path(tmp_path: Path) -> None:
    """Each call in its own RunTools, sent while the earlier ones still run, as the conductor
    sends them while the answer streams: the handlers start in any order, the edits do not."""
    path = tmp_path / "count.txt"
    steps = 20
    calls = [call("Write", file_path=str(path), content="0\n")] + [
        call("Edit", file_path=str(path), old_string=f"{n}\n", new_string=f"{n + 1}\n")
        for n in range(steps)
    ]
    finished: dict[str, ToolFinished] = {}
    async with session(tmp_path) as s:

        async def one(tool_call: ToolCall, *, task_status: TaskStatus[None]) -> None:
            async with s.executor.address.stream(RunTools(calls=(tool_call,))) as events:
                task_status.started()  # sent: the next call is sent after this one
                async for event in events:
                    if isinstance(event, ToolFinished):
                        finished[event.result.tool_use_id] = event

        async with anyio.create_task_group() as tasks:
            for tool_call in calls:
                await tasks.start(one, tool_call)
    assert [finished[c.id].result.is_error for c in calls] == [False] * len(calls)
    assert path.read_text() == f"{steps}\n"


async def test_the_order_is_the_order_of_arrival_not_of_handler_start(tmp_path: Path) -> None:
    """The executor registers each RunTools as it arrives; should the later one's handler run
    first (concurrent handlers start in any order), it still waits for the earlier call."""
    path = tmp_path / "a.txt"
    write = call("Write", file_path=str(path), content="one\n")
    edit = call("Edit", file_path=str(path), old_string="one", new_string="two")
    broker = Broker()
    async with supervise([broker]):
        scheduler = Scheduler(
            TOOLS, permissions=broker.address, project_root=str(tmp_path), files_read=FilesRead(),
            max_concurrency=4, max_commands=4, output_cap=1000,
        )  # fmt: skip
        scheduler.register([write])
        scheduler.register([edit])
        events: list[ToolEvent] = []

        async def run(tool_call: ToolCall) -> None:
            async def send(event: ToolEvent) -> None:
                events.append(event)

            await scheduler.run([tool_call], send)

        async with anyio.create_task_group() as tasks:
            tasks.start_soon(run, edit)
            await wait_all_tasks_blocked()
            tasks.start_soon(run, write)
    results = {e.result.tool_use_id: e.result for e in events if isinstance(e, ToolFinished)}
    assert not results[edit.id].is_error, results[edit.id].content
    assert path.read_text() == "two\n"


async def test_by_default_16_commands_run_at_once_and_file_tools_never_wait_behind_them(
    tmp_path: Path,
) -> None:
    go = tmp_path / "go"
    (tmp_path / "a.txt").write_text("a\n")
    waits = [call("Bash", command=f"while [ ! -e {go} ]; do sleep 0.01; done") for _ in range(17)]
    running = most = 0
    read_result: ToolFinished | None = None
    with anyio.fail_after(30):  # only a broken limit would get here: the commands wait on go
        async with (
            session(tmp_path) as s,
            s.executor.address.stream(RunTools(calls=tuple(waits))) as events,
        ):
            async for event in events:
                if isinstance(event, ToolStarted):
                    running += 1
                    most = max(most, running)
                elif isinstance(event, ToolFinished):
                    running -= 1
                if running == 16 and read_result is None:
                    # Every command place is taken, by calls that will not end on their own.
                    read_result = await s.one("Read", file_path=str(tmp_path / "a.txt"))
                    go.touch()
    assert most == 16
    assert read_result is not None and not read_result.result.is_error
