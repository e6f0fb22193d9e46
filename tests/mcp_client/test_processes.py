"""Every server process ends with the actor, however it ends: a stop, a cancelled session; a call
in flight can be interrupted, and says so. Processes are watched from outside, in /proc."""

from __future__ import annotations

import ctypes
import os
import sys
from contextlib import contextmanager
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

import anyio
import pytest

from actors.mcp_client import stdio
from actors.mcp_client.stdio import stdio_transport
from actors.protocol import InterruptMcpCalls, ListMcpServers, McpToolResult
from tests.mcp_client.harness import (
    GIT,
    HERE,
    TIME,
    TOY,
    alive,
    children,
    python,
    running,
    started,
    still_alive,
    text,
    wait_for,
)

if TYPE_CHECKING:
    from collections.abc import Iterator

pytestmark = pytest.mark.usefixtures("short_grace")


async def test_a_call_in_flight_is_interrupted_and_the_server_goes_on(tmp_path: Path) -> None:
    flag = tmp_path / "started"
    results: list[McpToolResult] = []
    answered = anyio.Event()
    async with running(TOY) as client, anyio.create_task_group() as tasks:

        async def hang() -> None:
            results.append(await client.call("mcp__toy__hang", call_id="slow", started=str(flag)))
            answered.set()

        tasks.start_soon(hang)
        await wait_for(flag)
        await client.address.tell(InterruptMcpCalls(ids=("slow",)))
        with anyio.fail_after(10):
            await answered.wait()
        await wait_for(tmp_path / "started.cancelled")  # the server was told
        after = await client.call("mcp__toy__shout", text="ok", times=2)
    (interrupted,) = results
    assert interrupted.is_error
    assert text(interrupted) == (
        "Interrupted: the call to mcp__toy__hang was stopped before it finished"
    )
    assert text(after) == "okok"


async def test_a_call_its_caller_gives_up_on_is_cancelled_on_the_server(tmp_path: Path) -> None:
    flag = tmp_path / "started"
    async with running(TOY) as client:
        with anyio.CancelScope() as scope:
            async with anyio.create_task_group() as tasks:
                tasks.start_soon(partial(client.call, "mcp__toy__hang", started=str(flag)))
                await wait_for(flag)
                scope.cancel()
        await wait_for(tmp_path / "started.cancelled")
        after = await client.call("mcp__toy__shout", text="ok", times=1)
    assert text(after) == "ok"


async def test_stopping_the_actor_ends_every_server_and_what_it_started(tmp_path: Path) -> None:
    flag = tmp_path / "started"
    # The task group outside: the session ends with the call in flight.
    async with anyio.create_task_group() as tasks, running(TIME, GIT, TOY) as client:
        await client.call("mcp__time__get_current_time", timezone="UTC")
        await client.call("mcp__git__git_status", repo_path=str(tmp_path))
        sleeper = int(text(await client.call("mcp__toy__spawn")))
        tasks.start_soon(partial(client.call, "mcp__toy__hang", started=str(flag)))
        await wait_for(flag)
        servers = children("mcp_server_time") + children("mcp_server_git") + children("toy_")
        assert len(servers) == 3
        assert alive(sleeper)
    assert await still_alive([*servers, sleeper]) == []


async def test_cancelling_the_session_ends_every_server(tmp_path: Path) -> None:
    flag = tmp_path / "started"
    with anyio.CancelScope() as scope:
        async with anyio.create_task_group() as tasks, running(TIME, TOY) as client:
            tasks.start_soon(partial(client.call, "mcp__toy__hang", started=str(flag)))
            await wait_for(flag)
            servers = [await started("mcp_server_time"), await started("toy_")]
            scope.cancel()
    assert scope.cancelled_caught
    assert await still_alive(servers) == []


async def test_servers_still_starting_end_with_the_session_one_ignoring_sigterm_too() -> None:
    hang = python("hang", str(HERE / "hang_server.py"))
    stubborn = python("stubborn", str(HERE / "stubborn_server.py"))
    async with running(hang, stubborn, start_timeout=60) as client:
        servers = [await started("hang_server.py"), await started("stubborn_server.py")]
        servers.append(await started("sleep", parent=servers[1]))
        assert {status.state for status in await client.address.ask(ListMcpServers())} == {
            "connecting"
        }
    assert await still_alive(servers) == []


@pytest.mark.skipif(sys.platform != "linux", reason="a subreaper is Linux's")
async def test_a_zombie_left_in_the_group_does_not_hold_the_servers_end(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A zombie has ended, though signalling its group still succeeds: a server that exits when
    its stdin ends, leaving only a zombie, gets no signal, so no grace is waited out. This
    process becomes a subreaper that reaps nothing, so the orphaned zombie stays, as it does
    where pid 1 reaps no orphans (some containers)."""
    # Time enough for the server to exit by itself, however loaded the machine.
    monkeypatch.setattr(stdio, "GRACE", 10.0)
    sent: list[tuple[int, int]] = []
    killpg = os.killpg

    def recorded(group: int, signum: int) -> None:
        sent.append((group, signum))
        killpg(group, signum)

    monkeypatch.setattr(os, "killpg", recorded)
    pid_file = tmp_path / "zombie"
    with subreaper(), anyio.fail_after(60):
        async with stdio_transport(
            [sys.executable, str(HERE / "zombie_server.py"), str(pid_file)],
            env=os.environ,
            cwd=None,
            stderr=sys.stderr,
        ):
            await wait_for(pid_file)
            zombie = int(pid_file.read_text())
            while alive(zombie):  # noqa: ASYNC110
                await anyio.sleep(0.01)
            group = os.getpgid(zombie)
    try:
        assert _state(zombie) == "Z"  # still there, and still a member of the group
        assert [signum for to, signum in sent if to == group and signum != 0] == []
    finally:
        os.waitpid(zombie, 0)  # noqa: ASYNC222 (a zombie: reaped at once)


@contextmanager
def subreaper() -> Iterator[None]:
    libc = ctypes.CDLL(None, use_errno=True)
    pr_set_child_subreaper = 36
    assert libc.prctl(pr_set_child_subreaper, 1, 0, 0, 0) == 0
    try:
        yield
    finally:
        libc.prctl(pr_set_child_subreaper, 0, 0, 0, 0)


def _state(pid: int) -> str:
    stat = (Path("/proc") / str(pid) / "stat").read_text()
    return stat.rsplit(")", 1)[1].split()[0]
