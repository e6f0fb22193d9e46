"""A shell command as a process group: its output, kept small, and its end, made certain.

The command runs in its own session, so it and everything it starts share one process group
that Legato can signal as a whole, and the terminal's Ctrl+C never reaches it directly. The group
ends with the call: SIGTERM, a short grace, then SIGKILL. Output keeps its head and its tail in
fixed memory, however much a command prints.

The grace depends on why the group ends. A command that ran out of time gets GRACE to clean up;
a command the user interrupted gets INTERRUPT_GRACE, because a person waiting on Ctrl-C (and
headless's 100 ms exit target) matters more than a tidy exit of a program that
ignores SIGTERM. Well-behaved commands die at the SIGTERM either way, in a few milliseconds.
"""

from __future__ import annotations

import contextlib
import os
import re
import signal
import subprocess
from typing import TYPE_CHECKING, Protocol

import anyio
import msgspec

from actors.tool_executor.command_env import without_terminal_sessions

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Mapping, Sequence

    from anyio.abc import ByteReceiveStream, Process

    from actors.tool_executor.sandbox.layout import Layout

# How long a group gets between SIGTERM and SIGKILL: after a timeout, and after an interrupt.
GRACE = 0.5
INTERRUPT_GRACE = 0.1
# How long to keep reading once the group is gone: a daemon that left the group may hold the pipe.
DRAIN = 1.0
# Live output goes to the UI at most this often, and at most this much of it at a time.
LIVE_INTERVAL = 0.1
LIVE_CAP = 4096
_POLL = 0.02
_READ = 65536
# In a confinement's argv: where the write end of a pipe goes on which bubblewrap
# (``--info-fd``) tells the host pid of its PID namespace's init. The namespace ends with that
# init (the kernel kills and reaps every process in it first), so once the init has exited the
# group is over, which one file of /proc says, where otherwise every process's would be read.
INFO_FD = "{info-fd}"


class Capture(Protocol):
    """Where a command's output is kept: ``HeadTail`` for a call, a ``Spool`` for a command
    left running in the background."""

    def feed(self, data: bytes) -> None: ...

    def text(self) -> str: ...


class HeadTail:
    """The first and last bytes of a stream, ``cap`` in all, and a count of what fell between."""

    def __init__(self, cap: int) -> None:
        self._head_cap = cap // 2
        self._tail_cap = cap - self._head_cap
        self._head = bytearray()
        self._tail = bytearray()
        self.omitted = 0

    def feed(self, data: bytes) -> None:
        room = self._head_cap - len(self._head)
        if room > 0:
            self._head += data[:room]
            data = data[room:]
        if not data:
            return
        self._tail += data
        if len(self._tail) > 2 * self._tail_cap:  # trim in batches: amortised O(1) a byte
            self._trim()

    def _trim(self) -> None:
        excess = len(self._tail) - self._tail_cap
        if excess > 0:
            del self._tail[:excess]
            self.omitted += excess

    def text(self) -> str:
        self._trim()
        if not self.omitted:
            return bytes(self._head + self._tail).decode("utf-8", errors="replace")
        tail = bytes(self._tail)
        # The cut may fall inside a UTF-8 character: drop its orphaned continuation bytes.
        skip = 0
        while skip < min(3, len(tail)) and 0x80 <= tail[skip] < 0xC0:
            skip += 1
        head = bytes(self._head).decode("utf-8", errors="replace")
        rest = tail[skip:].decode("utf-8", errors="replace")
        return f"{head}\n... [{self.omitted + skip} bytes omitted] ...\n{rest}"


class LiveLines:
    """Whole lines for the UI, sent at most every LIVE_INTERVAL; only the newest are kept."""

    def __init__(self) -> None:
        self._pending = bytearray()
        self._fresh = anyio.Event()
        self._closed = anyio.Event()

    def feed(self, data: bytes) -> None:
        self._pending += data
        if len(self._pending) > 2 * LIVE_CAP:
            del self._pending[: len(self._pending) - LIVE_CAP]
        self._fresh.set()

    def close(self) -> None:
        """No more output: ``pump`` sends what is left, partial line included, and returns."""
        self._closed.set()
        self._fresh.set()

    def _take(self) -> str:
        end = len(self._pending)
        if not self._closed.is_set() and end < LIVE_CAP:
            end = self._pending.rfind(b"\n") + 1  # hold a partial line back for its end
        text = bytes(self._pending[:end]).decode("utf-8", errors="replace")
        del self._pending[:end]
        return text

    async def pump(self, emit: Callable[[str], Awaitable[None]]) -> None:
        # Ended by ``close``, never by cancellation, so no text is lost mid-send.
        while not self._closed.is_set():
            await self._fresh.wait()
            self._fresh = anyio.Event()
            if text := self._take():
                await emit(text)
            with anyio.move_on_after(LIVE_INTERVAL):
                await self._closed.wait()
        if text := self._take():
            await emit(text)


class Limits(msgspec.Struct, frozen=True):
    """What one confined command may take: its processes (threads count, RLIMIT_NPROC) and
    each process's data memory in bytes (RLIMIT_DATA)."""

    processes: int
    data: int


# Sets the limits in the shell that becomes the command, before it runs anything: a limit set
# there holds for everything it starts, and ``ulimit`` sets the hard limit too, so the command
# cannot raise it again. Inside bubblewrap this shell already runs in the sandbox's user
# namespace, where RLIMIT_NPROC counts the sandbox's own processes (Linux 5.14 on).
_LIMITED = 'ulimit -u "$1" -d "$2" || exit 126; exec bash -c "$3"'


def shell(command: str, limits: Limits | None) -> list[str]:
    """``bash -c command``, within ``limits`` when given."""
    if limits is None:
        return ["bash", "-c", command]
    kib = max(1, limits.data // 1024)  # ulimit -d counts KiB
    return ["bash", "-c", _LIMITED, "bash", str(limits.processes), str(kib), command]


class Confinement(msgspec.Struct, frozen=True):
    """What a command runs under: the programs before ``bash -c`` (bubblewrap and its
    arguments, or the Landlock launcher), the variables it gets besides its environment, and
    the descriptors it inherits, which ``run_group`` closes once it has started (theirs then).
    ``parent``: the first program stays as the command's parent (bubblewrap) and reports its
    death by signal N as exit code 128+N; the launcher becomes the command instead."""

    argv: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    fds: tuple[int, ...] = ()
    parent: bool = False
    layout: Layout | None = None  # what it enforces: a failed command's refusals are judged by it
    limits: Limits | None = None
    # Under Landlock, what should be read-only inside the project: put back after the command
    # when it has changed (sandbox/watch.py).
    watched: tuple[str, ...] = ()


UNCONFINED = Confinement()


class Ran(msgspec.Struct, frozen=True):
    output: str
    returncode: int | None  # None: it did not end by itself (timed out)
    elapsed: float  # until it ended or ran out of time, not counting the cleanup


async def run_group(
    command: str,
    *,
    cwd: str,
    confinement: Confinement = UNCONFINED,
    # Not a cancel scope: running out of time ends the group and still reports its output.
    timeout: float,  # noqa: ASYNC109
    cap: int,
    emit: Callable[[str], Awaitable[None]],
    capture: Capture | None = None,
    env: Mapping[str, str] | None = None,  # None: the process's own
) -> Ran:
    """Run ``bash -c command`` in a new process group until it exits or ``timeout`` passes.

    Either way, and on cancellation, the whole group is ended before this returns, so background
    jobs (``sleep 100 &``) and children that ignore SIGTERM do not outlive the call. Output goes
    to ``capture`` when given, so that a caller that cancels this still has what was printed.
    """
    capture = capture if capture is not None else HeadTail(cap)
    live = LiveLines()
    started = anyio.current_time()
    if confinement.argv:
        env = {**without_terminal_sessions(os.environ if env is None else env)}
        env.update(confinement.env)
    info = _InitPid(confinement.argv)
    try:
        process = await anyio.open_process(
            [*info.argv, *shell(command, confinement.limits)],
            cwd=cwd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            env=env,
            pass_fds=(*confinement.fds, *info.pass_fds),
        )
    except BaseException:
        info.close()
        raise
    finally:
        for fd in confinement.fds:  # the command has its own copies now, or never will
            os.close(fd)
    info.started()
    stdout = process.stdout
    assert stdout is not None  # opened with stdout=PIPE
    ended = False  # once the group is gone, its id may be reused: never signal it again
    try:
        returncode: int | None = None
        async with anyio.create_task_group() as tasks:
            drained = anyio.Event()
            tasks.start_soon(_read, stdout, capture, live, drained)
            tasks.start_soon(live.pump, emit)
            with anyio.move_on_after(timeout):
                returncode = await process.wait()
            elapsed = anyio.current_time() - started
            # The main process is done (or out of time): what it left behind goes with it, and
            # only then does the pipe reach its end.
            await stop_group(process, init=info.pid())
            ended = True
            with anyio.move_on_after(DRAIN):
                await drained.wait()
            if not drained.is_set():  # a daemon that left the group still holds the pipe
                await stdout.aclose()
            live.close()
        if confinement.parent and returncode is not None and returncode > 128:
            returncode = _signalled(returncode)
        return Ran(capture.text(), returncode, elapsed)
    finally:
        with anyio.CancelScope(shield=True), anyio.move_on_after(2):
            if not ended:  # cancelled: the user (or the session's end) is waiting
                await stop_group(process, grace=INTERRUPT_GRACE, init=info.pid())
            await process.aclose()
        info.close()


def _signalled(code: int) -> int:
    """bubblewrap ends with 128+N when its command was killed by signal N, as a shell does:
    read it back as the signal, the way an unconfined command reports it."""
    try:
        return -signal.Signals(code - 128)
    except ValueError:
        return code


async def _read(
    stream: ByteReceiveStream, capture: Capture, live: LiveLines, drained: anyio.Event
) -> None:
    try:
        while True:
            data = await stream.receive(_READ)
            capture.feed(data)
            live.feed(data)
    except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
        pass
    finally:
        drained.set()


async def stop_group(process: Process, *, grace: float = GRACE, init: int | None = None) -> None:
    """SIGTERM to the process group, ``grace`` seconds to go, then SIGKILL; the leader is reaped.
    ``init``: the host pid of the PID namespace's init the group runs in (see ``INFO_FD``)."""
    group = process.pid  # the session leader's pid is the group's id
    if process.returncode is not None:
        if init is not None:  # bubblewrap's init ends right after it, and the namespace with it
            with anyio.move_on_after(grace):
                await _until_gone(group, init)
                return
        elif not await _group_alive(group):
            return
    _signal_group(group, signal.SIGTERM)
    with anyio.move_on_after(grace):
        await process.wait()
        await _until_gone(group, init)
        return
    _signal_group(group, signal.SIGKILL)
    await process.wait()
    # SIGKILL is delivered, not yet acted on, when kill() returns: wait until it is (bounded, for
    # a process stuck in the kernel), so that "stopped" is true when the result says so.
    with anyio.move_on_after(GRACE):
        await _until_gone(group, init)


async def _until_gone(group: int, init: int | None) -> None:
    """Return once no process of the group runs."""
    if init is not None and await _init_ended(init, group):
        return
    # Nothing signals the end of processes that are not our children: poll.
    while await _group_alive(group):  # noqa: ASYNC110
        await anyio.sleep(_POLL)


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


def _signal_group(group: int, signum: signal.Signals) -> None:
    # Gone already, or (after the group emptied) the id now belongs to someone else's process.
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(group, signum)


async def _group_alive(group: int) -> bool:
    try:
        os.killpg(group, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return False  # the id was reused by another user's process: ours are gone
    # killpg also succeeds for zombies, and orphans stay zombies where pid 1 does not reap them
    # (some containers): ask /proc whether a member still runs.
    return await anyio.to_thread.run_sync(_has_running_member, group)


def _running_in(pid: int, group: int) -> bool:
    """Whether ``pid`` runs, not as a zombie, in ``group`` (a reused pid is someone else's)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            fields = file.read().rsplit(b")", 1)[1].split()
    except (OSError, IndexError):
        return False
    return int(fields[2]) == group and fields[0] not in (b"Z", b"X")


class _InitPid:
    """The pipe on which bubblewrap tells its init's pid, when the argv asks for one."""

    def __init__(self, prefix: Sequence[str]) -> None:
        self._read = self._write = -1
        self._pid: int | None = None
        self._said = b""
        self.argv = list(prefix)
        self.pass_fds: tuple[int, ...] = ()
        if INFO_FD in self.argv:
            self._read, self._write = os.pipe()
            os.set_blocking(self._read, False)
            self.argv = [str(self._write) if arg == INFO_FD else arg for arg in self.argv]
            self.pass_fds = (self._write,)

    def started(self) -> None:
        """The child has its copy of the write end: ours goes, so the pipe ends with bwrap."""
        if self._write >= 0:
            os.close(self._write)
            self._write = -1

    def pid(self) -> int | None:
        """The init's pid, once bubblewrap has said it (before it runs the command)."""
        if self._pid is None and self._read >= 0:
            with contextlib.suppress(OSError):  # nothing written yet: BlockingIOError
                self._said += os.read(self._read, 4096)
            match = re.search(rb'"child-pid"\s*:\s*(\d+)', self._said)
            self._pid = int(match.group(1)) if match else None
        return self._pid

    def close(self) -> None:
        self.started()
        if self._read >= 0:
            os.close(self._read)
            self._read = -1


def _has_running_member(group: int) -> bool:
    try:
        pids = [name for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        return True  # no /proc (macOS): trust killpg, and there pid 1 reaps orphans
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat", "rb") as file:
                fields = file.read().rsplit(b")", 1)[1].split()
        except (OSError, IndexError):
            continue  # it ended while we looked
        # After the command's ")": state, ppid, pgrp.
        if int(fields[2]) == group and fields[0] not in (b"Z", b"X"):
            return True
    return False
