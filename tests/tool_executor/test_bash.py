"""Bash against real processes: output, exit codes, caps, timeouts and cancellation."""

from __future__ import annotations

import os
import re
import signal
import tracemalloc
from typing import TYPE_CHECKING

import anyio

from actors.errors import REMEDY_COMMAND
from actors.protocol import RunTools, ToolFinished, ToolOutput
from tests.tool_executor.harness import call, is_running, session

if TYPE_CHECKING:
    from pathlib import Path

# Two processes that must not outlive the call: a background job, and a child that ignores
# SIGTERM (so only the SIGKILL after the grace ends it). Each prints its pid first.
STUBBORN = "sleep 100 & echo pid $!; bash -c 'trap \"\" TERM; echo pid $$; exec sleep 100' & wait"

OUT_AND_ERR = "pwd; echo out; echo err >&2; echo out again"


def pids(text: str) -> list[int]:
    return [int(pid) for pid in re.findall(r"^pid (\d+)$", text, re.MULTILINE)]


async def test_output_and_exit_code(tmp_path: Path) -> None:
    async with session(tmp_path) as s:
        ok = await s.one("Bash", command=OUT_AND_ERR)
        quiet = await s.one("Bash", command="true")
        failed = await s.one("Bash", command="echo partial; exit 3", description="fails")
    assert not ok.result.is_error
    # One pipe for both streams: stderr lands between the stdout lines, where it happened.
    assert ok.result.content == f"{tmp_path}\nout\nerr\nout again"
    assert quiet.result.content == "(no output)"
    assert failed.result.is_error
    assert failed.result.content == "partial\nExit code 3"
    request = s.broker.requests[0]
    assert (request.tool, request.kind, request.command) == ("Bash", "run", OUT_AND_ERR)


async def test_command_not_found_carries_the_remedy(tmp_path: Path) -> None:
    async with session(tmp_path) as s:
        done = await s.one("Bash", command="definitely-not-a-command-xyz")
    assert done.result.is_error
    assert "definitely-not-a-command-xyz: command not found" in done.result.content
    assert "Exit code 127" in done.result.content
    assert REMEDY_COMMAND in done.result.content


async def test_a_refused_command_does_not_run(tmp_path: Path) -> None:
    async with session(tmp_path, deny=lambda request: "commands are blocked") as s:
        done = await s.one("Bash", command="touch ran")
    assert done.result.denied
    assert not (tmp_path / "ran").exists()


async def test_the_output_cap_keeps_head_and_tail(tmp_path: Path) -> None:
    async with session(tmp_path, output_cap=1000) as s:
        done = await s.one("Bash", command="seq 1 100000")
    content = done.result.content
    assert content.startswith("1\n2\n3\n")
    assert content.endswith("\n99999\n100000")
    total = len("".join(f"{i}\n" for i in range(1, 100001)))
    assert f"... [{total - 1000} bytes omitted] ..." in content
    assert len(content) < 1100


async def test_memory_stays_flat_for_a_flood_of_output(tmp_path: Path) -> None:
    tracemalloc.start()
    try:
        async with session(tmp_path) as s:
            done = await s.one("Bash", command="yes | head -c 200000000")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert not done.result.is_error
    assert "[199970000 bytes omitted]" in done.result.content
    assert peak < 50 * 2**20, f"traced peak {peak / 2**20:.1f} MiB"


async def test_live_output_comes_in_lines_before_the_result(tmp_path: Path) -> None:
    async with session(tmp_path) as s:
        events = await s.events(call("Bash", command="echo one; sleep 0.3; echo two"))
    live = [event for event in events if isinstance(event, ToolOutput)]
    assert "".join(event.text for event in live) == "one\ntwo\n"
    assert all(event.text.endswith("\n") for event in live)
    assert isinstance(events[-1], ToolFinished)


async def test_background_jobs_do_not_outlive_the_call(tmp_path: Path) -> None:
    async with session(tmp_path) as s:
        with anyio.fail_after(10):  # waiting for the pipe's end would take 100 s
            done = await s.one("Bash", command="sleep 100 & echo pid $!")
    assert not done.result.is_error
    [pid] = pids(done.result.content)
    assert not is_running(pid)


async def test_a_timeout_ends_the_whole_group(tmp_path: Path) -> None:
    async with session(tmp_path) as s:
        with anyio.fail_after(10):
            done = await s.one("Bash", command=STUBBORN, timeout=1000)
    assert done.result.is_error
    assert re.search(r"Command timed out after 1\.\ds \(timeout 1000 ms\)", done.result.content)
    found = pids(done.result.content)
    assert len(found) == 2
    assert [is_running(pid) for pid in found] == [False, False]


async def test_cancelling_the_caller_ends_the_whole_group(tmp_path: Path) -> None:
    seen = ""
    finished: list[ToolFinished] = []
    with anyio.fail_after(10):
        async with session(tmp_path) as s:
            with anyio.CancelScope() as scope:
                stream = s.executor.address.stream(
                    RunTools(calls=(call("Bash", command=STUBBORN),))
                )
                async with stream as events:
                    async for event in events:
                        if isinstance(event, ToolOutput):
                            seen += event.text
                        elif isinstance(event, ToolFinished):
                            finished.append(event)
                        if len(pids(seen)) == 2:
                            scope.cancel()
            assert scope.cancelled_caught
        # Leaving the session waited for the executor's cleanup: the group is gone.
    assert finished == []
    found = pids(seen)
    assert [is_running(pid) for pid in found] == [False, False]


async def test_a_daemon_holding_the_pipe_does_not_hold_the_call(tmp_path: Path) -> None:
    # setsid leaves the group, so it is out of reach; the call still ends after a short drain.
    command = "setsid sh -c 'echo pid $$; exec sleep 30' & sleep 0.2; echo done"
    async with session(tmp_path) as s:
        with anyio.fail_after(10):
            done = await s.one("Bash", command=command)
    [daemon] = pids(done.result.content)
    os.kill(daemon, signal.SIGKILL)
    assert not done.result.is_error
    assert done.result.content.endswith("done")


async def test_a_command_killed_from_outside_says_by_what(tmp_path: Path) -> None:
    async with session(tmp_path) as s:
        done = await s.one("Bash", command="echo before; kill -KILL $$")
    assert done.result.is_error
    assert re.fullmatch(r"before\nKilled by SIGKILL after \d+\.\ds", done.result.content)
