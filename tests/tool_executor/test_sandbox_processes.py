"""Confined commands end as surely as unconfined ones: a timeout, an interrupt, a cancelled
caller or the end of the command leaves no process behind, under bubblewrap and under Landlock
(the fallback, made to happen by a bwrap that fails as one does where user namespaces are off).

A command's pids under bubblewrap are its own namespace's, so the processes are found from
outside by their working folder, the project (``running_in``), while they run.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

import anyio
import pytest

from actors import process_groups
from actors.protocol import InterruptTools, RunTools, ToolFinished, ToolOutput
from tests.tool_executor.harness import call, is_running, running_in, with_policy
from tests.tool_executor.sandbox_setup import failing_bwrap, needs_bwrap, needs_landlock
from tests.tool_executor.test_bash import STUBBORN, pids

if TYPE_CHECKING:
    from pathlib import Path

    from tests.tool_executor.harness import PolicySession

# What runs in the project while STUBBORN runs: under bubblewrap, bwrap, the namespace's first
# process, the shell, two sleeps and the stubborn shell; under Landlock the launcher has become
# the shell, and there is no namespace.
AT_LEAST = {"bubblewrap": 5, "landlock": 3}


@pytest.fixture(autouse=True)
def short_grace(monkeypatch: pytest.MonkeyPatch) -> None:
    """The grace between SIGTERM and SIGKILL, made short: STUBBORN's shell ignores SIGTERM and
    waits out the whole of it, and what these tests check is that it ends, not how long it was
    given."""
    monkeypatch.setattr(process_groups, "GRACE", 0.05)


@pytest.fixture(
    params=[
        pytest.param("bubblewrap", marks=needs_bwrap),
        pytest.param("landlock", marks=needs_landlock),
    ]
)
def mechanism(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[str, str | None]:
    """(its name, the bwrap the session is given: None finds the real one)."""
    name: str = request.param
    return name, None if name == "bubblewrap" else failing_bwrap(tmp_path_factory.mktemp("bin"))


def confined(root: Path, mechanism: tuple[str, str | None], answers: list[str]) -> Any:
    return with_policy(root, answers=answers, bwrap=mechanism[1])


async def run_until_started(
    s: PolicySession, command: str, *, interrupt: bool = False, **fields: object
) -> tuple[list[int], ToolFinished | None]:
    """Run ``command`` (which prints two ``pid N`` lines once its processes are up); take the
    processes running in the project then; interrupt it then, if asked. Returns them and the
    call's result."""
    tool_call = call("Bash", command=command, **fields)
    seen, taken = "", list[int]()
    finished = None
    async with s.executor.address.stream(RunTools(calls=(tool_call,))) as events:
        async for event in events:
            if isinstance(event, ToolOutput):
                seen += event.text
                if len(pids(seen)) == 2 and not taken:
                    taken = running_in(s.root)
                    if interrupt:
                        await s.executor.address.tell(InterruptTools(ids=(tool_call.id,)))
            elif isinstance(event, ToolFinished):
                finished = event
    return taken, finished


async def test_a_timeout_ends_every_confined_process(
    tmp_path: Path, mechanism: tuple[str, str | None]
) -> None:
    async with confined(tmp_path, mechanism, ["y"]) as s:
        with anyio.fail_after(10):
            taken, done = await run_until_started(s, STUBBORN, timeout=1000)
    assert done is not None
    assert re.search(r"Command timed out after 1\.\ds", done.result.content)
    assert len(taken) >= AT_LEAST[mechanism[0]], taken
    assert [pid for pid in taken if is_running(pid)] == []
    assert running_in(tmp_path) == []


async def test_an_interrupt_ends_every_confined_process(
    tmp_path: Path, mechanism: tuple[str, str | None]
) -> None:
    async with confined(tmp_path, mechanism, ["y"]) as s:
        with anyio.fail_after(10):
            taken, done = await run_until_started(s, STUBBORN, interrupt=True)
    assert done is not None and done.result.content.startswith("Interrupted after ")
    assert len(taken) >= AT_LEAST[mechanism[0]], taken
    assert [pid for pid in taken if is_running(pid)] == []
    assert running_in(tmp_path) == []


async def test_a_cancelled_caller_leaves_no_confined_process(
    tmp_path: Path, mechanism: tuple[str, str | None]
) -> None:
    taken: list[int] = []
    with anyio.fail_after(10):
        async with confined(tmp_path, mechanism, ["y"]) as s:
            with anyio.CancelScope() as scope:
                stream = s.executor.address.stream(
                    RunTools(calls=(call("Bash", command=STUBBORN),))
                )
                seen = ""
                async with stream as events:
                    async for event in events:
                        if isinstance(event, ToolOutput):
                            seen += event.text
                        if len(pids(seen)) == 2:
                            taken = running_in(tmp_path)
                            scope.cancel()
            assert scope.cancelled_caught
    assert len(taken) >= AT_LEAST[mechanism[0]], taken
    assert [pid for pid in taken if is_running(pid)] == []


async def test_a_background_job_does_not_outlive_its_confined_command(
    tmp_path: Path, mechanism: tuple[str, str | None]
) -> None:
    async with confined(tmp_path, mechanism, ["y"]) as s:
        with anyio.fail_after(10):
            done = await s.one("Bash", command="sleep 100 & echo started")
    assert done.result.content == "started"
    assert running_in(tmp_path) == []


async def test_a_confined_command_killed_by_a_signal_says_by_which(
    tmp_path: Path, mechanism: tuple[str, str | None]
) -> None:
    async with confined(tmp_path, mechanism, ["y", "y"]) as s:
        killed = await s.one("Bash", command="echo before; kill -KILL $$")
        exited = await s.one("Bash", command="exit 3")
    assert re.fullmatch(r"before\nKilled by SIGKILL after \d+\.\ds", killed.result.content)
    assert exited.result.content == "Exit code 3"


async def test_a_confined_commands_end_is_its_namespaces_end_not_a_search_of_proc(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """bubblewrap tells its init's pid, so the end of a confined group is read from that one
    process, not by reading every process's /proc entry after each command; and what the
    command left running is still gone when its result comes."""
    searched: list[int] = []
    monkeypatch.setattr(process_groups, "_has_running_member", searched.append)
    async with with_policy(tmp_path, answers=["y"] * 3) as s:
        with anyio.fail_after(10):
            plain = await s.one("Bash", command="true")
            left = await s.one("Bash", command="sleep 100 & setsid sleep 100 & echo started")
            timed_out = await s.one("Bash", command="trap '' TERM; sleep 100", timeout=500)
    assert (plain.result.content, left.result.content) == ("(no output)", "started")
    assert timed_out.result.content.startswith("Command timed out after 0.")
    assert running_in(tmp_path) == []
    assert searched == []


@needs_bwrap
async def test_a_confined_command_outlives_the_thread_that_started_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """trio starts a process from a worker thread, and ends that thread once it has been idle
    for a while (10 s): a bwrap told to die with its parent died with that thread, and every
    confined command longer than 10 s was killed. Here the thread is ended after 50 ms."""
    import trio._core._thread_cache as thread_cache

    monkeypatch.setattr(thread_cache, "IDLE_TIMEOUT", 0.05)
    async with with_policy(tmp_path, answers=["y"]) as s:
        with anyio.fail_after(10):
            done = await s.one("Bash", command="sleep 0.5; echo still here")
    assert done.result.content == "still here"
