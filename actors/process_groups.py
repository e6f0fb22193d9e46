"""Process groups: start a program in a session of its own, and end it with all it started.

Every program Legato runs for someone else (a Bash command, a hook, a stdio MCP server, rg)
starts here in a new session, so it and everything it starts share one process group that can
be signalled as a whole, and the terminal's Ctrl+C never reaches it directly. ``stop`` ends the
group: SIGTERM, a grace, then SIGKILL, and returns once no member still runs.

"No member still runs" is harder to know than it looks:

- ``killpg(group, 0)`` succeeds while a zombie is left in the group, and orphans stay zombies
  for good where pid 1 does not reap them (some containers): a member counts only while it
  runs, which ``/proc`` says (``_has_running_member``). Without ``/proc`` (macOS) killpg is
  trusted, and there pid 1 reaps orphans.
- Once the group is gone its id may be given to another process's group: ``stop`` signals no
  group it finds gone, and a caller stops a group once.
- Under bubblewrap the group lives in a PID namespace whose init ends last (the kernel ends
  every process in the namespace first): its end, told by a pidfd, is the group's end, where
  otherwise every process's ``/proc`` entry would be read.

The grace depends on why the group ends. A program that ran out of time gets GRACE to clean up;
one the user interrupted gets INTERRUPT_GRACE, because a person waiting on Ctrl-C (and
headless's 100 ms exit target) matters more than a tidy exit of a program that ignores SIGTERM.
Well-behaved programs die at the SIGTERM either way, in a few milliseconds.

A leaf: the actors that run programs share it, and it imports no actor package.
"""

from __future__ import annotations

import contextlib
import os
import signal
from typing import TYPE_CHECKING

import anyio
import anyio.to_thread

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence
    from typing import IO, Any

    from anyio.abc import Process

    # What a standard stream of the program is: PIPE, DEVNULL, a file, or None (Legato's own).
    Stream = int | IO[Any] | None

# How long a group gets between SIGTERM and SIGKILL: after a timeout, and after an interrupt.
GRACE = 0.5
INTERRUPT_GRACE = 0.1
# How long a group may take to act on SIGKILL (a process stuck in the kernel); bounded too
# because asyncio's ``wait`` also waits for the pipes' end, which a process that left the group
# may put off.
KILLED = 1.0
_POLL = 0.02


async def start(
    argv: Sequence[str],
    *,
    cwd: str | None,
    env: Mapping[str, str] | None,  # None: the process's own
    stdin: Stream,
    stdout: Stream,
    stderr: Stream,
    pass_fds: Sequence[int] = (),
) -> Process:
    """``argv`` as the leader of a new session, and so of its own process group."""
    return await anyio.open_process(
        list(argv),
        cwd=cwd,
        env=None if env is None else dict(env),
        stdin=stdin,
        stdout=stdout,
        stderr=stderr,
        start_new_session=True,
        pass_fds=pass_fds,
    )


async def stop(process: Process, *, grace: float | None = None, init: int | None = None) -> None:
    """SIGTERM to the process group, ``grace`` seconds to go (None: GRACE, read at the call, so
    a test may set it shorter), then SIGKILL; the leader is reaped. ``init``: the host pid of the
    PID namespace's init the group runs in, if any."""
    grace = GRACE if grace is None else grace
    group = process.pid  # the session leader's pid is the group's id
    if process.returncode is not None:
        if init is not None:  # bubblewrap's init ends right after it, and the namespace with it
            with anyio.move_on_after(grace):
                await until_gone(group, init)
                return
        elif not await group_alive(group):
            return
    signal_group(group, signal.SIGTERM)
    with anyio.move_on_after(grace):
        await process.wait()
        await until_gone(group, init)
        return
    signal_group(group, signal.SIGKILL)
    # SIGKILL is delivered, not yet acted on, when kill() returns: wait until it is, so that
    # "stopped" is true when the caller says so.
    with anyio.move_on_after(KILLED):
        await process.wait()
        await until_gone(group, init)


def kill(process: Process) -> None:
    """SIGKILL to the group at once, unless its leader has been reaped (then the id may be
    someone else's by now). For a program that starts no processes of its own (rg), whose
    leader's end is the group's."""
    if process.returncode is None:
        signal_group(process.pid, signal.SIGKILL)


async def until_gone(group: int, init: int | None = None) -> None:
    """Return once no process of the group runs."""
    if init is not None and await _init_ended(init, group):
        return
    # Nothing signals the end of processes that are not our children: poll.
    while await group_alive(group):  # noqa: ASYNC110
        await anyio.sleep(_POLL)


async def group_alive(group: int) -> bool:
    """Whether a process of ``group`` still runs (a zombie has ended)."""
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return False  # the id was reused by another user's process: ours are gone
    return await anyio.to_thread.run_sync(_has_running_member, group)


def signal_group(group: int, signum: signal.Signals) -> None:
    # Gone already, or (after the group emptied) the id now belongs to someone else's process.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(group, signum)


async def _init_ended(init: int, group: int) -> bool:
    """Wait for the namespace's init to end: True once it has, False where a pidfd cannot say
    (then the group is polled instead)."""
    try:
        pidfd = os.pidfd_open(init)
    except ProcessLookupError:
        return True  # ended and reaped already
    except (OSError, AttributeError):  # no pidfd here (macOS, an old kernel)
        return False
    try:
        if _running_in(init, group):  # else a zombie, or the pid is someone else's by now
            await anyio.wait_readable(pidfd)  # readable once it has ended
    finally:
        os.close(pidfd)
    return True


def _running_in(pid: int, group: int) -> bool:
    """Whether ``pid`` runs, not as a zombie, in ``group`` (a reused pid is someone else's)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            return _runs_in(file.read(), group)
    except OSError:
        return False


def _has_running_member(group: int) -> bool:
    try:
        pids = [name for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        return True  # no /proc (macOS): trust killpg, and there pid 1 reaps orphans
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat", "rb") as file:
                stat = file.read()
        except OSError:
            continue  # it ended while we looked
        if _runs_in(stat, group):
            return True
    return False


def _runs_in(stat: bytes, group: int) -> bool:
    # After the command's ")": state, ppid, pgrp. The command may hold ")" itself: split at
    # the last one.
    try:
        fields = stat.rsplit(b")", 1)[1].split()
        return int(fields[2]) == group and fields[0] not in (b"Z", b"X")
    except (IndexError, ValueError):
        return False
