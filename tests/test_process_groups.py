"""The process groups every program Legato runs for others lives in, on real processes: a zombie
has ended, a group found gone is never signalled again, and without /proc killpg is trusted."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from typing import TYPE_CHECKING

import anyio
import pytest

from actors import process_groups

if TYPE_CHECKING:
    from anyio.abc import Process

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="process groups are POSIX's")


async def started(*argv: str) -> Process:
    return await process_groups.start(
        argv,
        cwd=None,
        env=None,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )


def recorded_signals(monkeypatch: pytest.MonkeyPatch) -> list[tuple[int, int]]:
    sent: list[tuple[int, int]] = []
    killpg = os.killpg

    def recorded(group: int, signum: int) -> None:
        sent.append((group, signum))
        killpg(group, signum)

    monkeypatch.setattr(os, "killpg", recorded)
    return sent


def exited_unreaped(pid: int) -> None:
    """Until ``pid`` has exited, leaving it a zombie (WNOWAIT: not reaped)."""
    os.waitid(os.P_PID, pid, os.WEXITED | os.WNOWAIT)


@pytest.mark.skipif(not os.path.isdir("/proc"), reason="a zombie is told apart through /proc")
async def test_a_group_whose_only_member_is_a_zombie_is_gone() -> None:
    process = await started("true")
    try:
        await anyio.to_thread.run_sync(exited_unreaped, process.pid)
        os.killpg(process.pid, 0)  # signalling the group still succeeds...
        assert not await process_groups.group_alive(process.pid)  # ...but nothing runs
    finally:
        await process.aclose()


async def test_a_group_that_is_gone_gets_no_signal(monkeypatch: pytest.MonkeyPatch) -> None:
    process = await started("true")
    await process.wait()
    sent = recorded_signals(monkeypatch)
    await process_groups.stop(process)
    process_groups.kill(process)  # the leader is reaped: its id may be someone else's
    await process.aclose()
    assert [signum for _, signum in sent if signum != 0] == []


async def test_a_member_that_ignores_sigterm_gets_sigkill(monkeypatch: pytest.MonkeyPatch) -> None:
    # The leader ignores SIGTERM, and so does the child it starts (an ignored signal stays
    # ignored across exec); the leader's line tells the child's pid.
    script = "trap '' TERM; sleep 3600 & echo $!; wait"
    process = await process_groups.start(
        ["bash", "-c", script],
        cwd=None,
        env=None,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
    )
    assert process.stdout is not None
    line = b""
    while not line.endswith(b"\n"):
        line += await process.stdout.receive()
    sent = recorded_signals(monkeypatch)
    with anyio.fail_after(30):
        await process_groups.stop(process, grace=0.01)
    await process.aclose()
    group = process.pid
    assert [signum for to, signum in sent if to == group and signum != 0] == [
        signal.SIGTERM,
        signal.SIGKILL,
    ]
    assert not await process_groups.group_alive(group)
    assert process.returncode == -signal.SIGKILL


async def test_without_proc_killpg_is_trusted(monkeypatch: pytest.MonkeyPatch) -> None:
    def no_proc(path: str) -> list[str]:
        raise FileNotFoundError(path)

    process = await started("sleep", "3600")
    try:
        monkeypatch.setattr(os, "listdir", no_proc)
        assert await process_groups.group_alive(process.pid)
    finally:
        monkeypatch.undo()
        await process_groups.stop(process, grace=0)
        await process.aclose()


def test_a_command_name_holding_a_parenthesis_is_read_past() -> None:
    group = 4242
    stat = f"4243 (a) S 1 {group} 1 0".encode()
    assert process_groups._runs_in(stat.replace(b"(a)", b"(x) S 1 1 (a)"), group)
    assert not process_groups._runs_in(stat.replace(b" S ", b" Z "), group)
    assert not process_groups._runs_in(b"garbage", group)
