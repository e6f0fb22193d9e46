"""A shell command as a process group: its output, kept small, and its end, made certain.

The command runs as a process group of its own (``actors/process_groups.py``), which ends with
the call: SIGTERM, a short grace, then SIGKILL; GRACE after a timeout, INTERRUPT_GRACE after an
interrupt. Output keeps its head and its tail in fixed memory (``HeadTail``), however much a
command prints.
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

from actors import process_groups
from actors.output_caps import HeadTail
from actors.tool_executor.command_env import without_terminal_sessions

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Mapping, Sequence

    from anyio.abc import ByteReceiveStream

    from actors.tool_executor.sandbox.layout import Layout

# How long to keep reading once the group is gone: a daemon that left the group may hold the pipe.
DRAIN = 1.0
# Live output goes to the UI at most this often, and at most this much of it at a time.
LIVE_INTERVAL = 0.1
LIVE_CAP = 4096
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
        process = await process_groups.start(
            [*info.argv, *shell(command, confinement.limits)],
            cwd=cwd,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
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
            await process_groups.stop(process, init=info.pid())
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
                await process_groups.stop(
                    process, grace=process_groups.INTERRUPT_GRACE, init=info.pid()
                )
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
