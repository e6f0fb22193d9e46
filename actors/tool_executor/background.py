"""Commands left running in the background: started by Bash, read by TaskOutput, stopped by
TaskStop, and never outliving the session.

Each command runs as ``run_group`` runs a foreground one (its own process group, the same
confinement and environment), in a task group of the executor's that outlives the call that
started it but not the session: ``close`` cancels it when the session ends, and each command's
group is then stopped as an interrupted command's is. A command also ends by itself, when its
timeout passes, or when the model (TaskStop) or the person (``/tasks stop``) stops it.

Every command that has ended is reported to the model once: by the read that shows its end, by
the TaskStop that ended it, or else by a note at the start of the model's next turn (``news``).
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import os
import shutil
import tempfile
import time
from typing import TYPE_CHECKING, Literal

import anyio
import msgspec

from actors.errors import ToolFailure
from actors.protocol import BackgroundCommand, CommandId
from actors.settings import MAX_BACKGROUND_COMMANDS
from actors.tool_executor.process import run_group
from actors.tool_executor.sandbox.watch import put_back_line, putting_back
from actors.tool_executor.spool import Spool
from actors.tool_routes import no_such_job, parse_job_id

if TYPE_CHECKING:
    from collections.abc import Mapping

    from anyio.abc import TaskGroup, TaskStatus

    from actors.tool_executor.process import Confinement
    from actors.tool_executor.sandbox.layout import Layout

# A background command may run this long when the call gives no timeout: long enough for a
# build, a test suite or a development server through a working session, short enough that a
# forgotten one does not run all day. The session's end stops it sooner.
DEFAULT_TIMEOUT = 2 * 60 * 60.0
# The output kept in memory for each command, and the most one read returns.
DEFAULT_BUFFER = 32 * 1024
# Ended commands the model has been told of stay readable, the newest this many: each holds up
# to a buffer of output, so keeping every one made a long session grow by one buffer a command.
KEPT_ENDED = 20

State = Literal["running", "exited", "killed", "timed out", "ended with the session", "failed"]


async def _quiet(text: str) -> None:
    """Live output of a background command goes nowhere: it is read with TaskOutput."""


class Job(msgspec.Struct, eq=False):
    id: CommandId
    command: str
    spool: Spool
    timeout: float
    started: float = msgspec.field(default_factory=time.monotonic)
    state: State = "running"
    code: int | None = None  # when it exited, its status (negative: the signal that ended it)
    ended: float | None = None
    who_stopped: str = ""  # "the model", "the user"
    failure: str = ""  # why it could not start
    read_to: int = 0  # the offset the next read starts from
    cwd: str = ""
    layout: Layout | None = None  # what the sandbox enforced on it; None: it ran unconfined
    explained: bool = False  # a read has said what the sandbox refused it, if anything
    reported: bool = False  # the model has been told of its end
    scope: anyio.CancelScope = msgspec.field(default_factory=anyio.CancelScope)
    done: anyio.Event = msgspec.field(default_factory=anyio.Event)

    def age(self) -> float:
        return (self.ended or time.monotonic()) - self.started

    def status(self) -> str:
        """Its state in a few words, as the model and the person read it."""
        took = f"{self.age():.1f} s"
        match self.state:
            case "running":
                return f"running for {took}"
            case "exited" if self.code is not None and self.code < 0:
                return f"killed by signal {-self.code} after {took}"
            case "exited":
                return f"exited with code {self.code} after {took}"
            case "killed":
                return f"killed by {self.who_stopped} after {took}"
            case "timed out":
                return f"timed out after {took}; it and every process it started were stopped"
            case "ended with the session":
                return "stopped: the session ended"
            case _:
                return f"failed: {self.failure}"

    def describe(self) -> BackgroundCommand:
        return BackgroundCommand(
            id=str(self.id),
            command=self.command,
            state=self.state,
            status=self.status(),
            age=self.age(),
            last_line=self.spool.last_line(),
        )


class Jobs:
    """The session's background commands, by id, in the order they started."""

    def __init__(
        self, *, buffer: int = DEFAULT_BUFFER, limit: int = MAX_BACKGROUND_COMMANDS
    ) -> None:
        self.buffer = buffer
        self.limit = limit
        self._jobs: dict[CommandId, Job] = {}
        self._ids = itertools.count(1)
        self._group: TaskGroup | None = None
        self._closed = False
        self._folder: str | None = None

    async def serve(self, *, task_status: TaskStatus[None] = anyio.TASK_STATUS_IGNORED) -> None:
        """Hold the commands' task group until ``close``: run in the executor's task group."""
        async with anyio.create_task_group() as group:
            self._group = group
            task_status.started()
            if self._closed:
                group.cancel_scope.cancel()
            await anyio.sleep_forever()

    def close(self) -> None:
        """The session ends: every command still running is stopped (the cancellation of each
        ``run_group`` stops its process group), and no more start."""
        self._closed = True
        if self._group is not None:
            self._group.cancel_scope.cancel()

    def remove_files(self) -> None:
        """The spill files go with the session (after ``close`` and the commands' end)."""
        for job in self._jobs.values():
            job.spool.close()
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)
            self._folder = None

    def running(self) -> int:
        return sum(job.state == "running" for job in self._jobs.values())

    def check_room(self) -> None:
        """Fail clearly when as many commands run as the settings allow."""
        if self._closed or self._group is None:
            raise ToolFailure("The session is ending: no background command starts now.")
        if self.running() >= self.limit:
            running = ", ".join(str(j.id) for j in self._jobs.values() if j.state == "running")
            raise ToolFailure(
                f"{self.running()} background commands are running ({running}), as many as "
                f"maxBackgroundCommands allows ({self.limit}).",
                remedy="Stop one with TaskStop, wait for one to end, or raise "
                "maxBackgroundCommands in .legato/settings.json",
            )

    def start(
        self,
        command: str,
        *,
        cwd: str,
        confinement: Confinement,
        timeout: float,
        env: Mapping[str, str] | None,
    ) -> Job:
        """Start ``command`` in the background; returns at once with its record."""
        self.check_room()
        assert self._group is not None  # check_room said so
        self._forget_old()
        job_id = CommandId(next(self._ids))
        spool = Spool(self.buffer, functools.partial(self._spill_path, str(job_id)))
        job = Job(
            id=job_id,
            command=command,
            spool=spool,
            timeout=timeout,
            cwd=cwd,
            layout=confinement.layout,
        )
        self._jobs[job_id] = job
        self._group.start_soon(self._run, job, confinement, env)
        return job

    async def _run(self, job: Job, confinement: Confinement, env: Mapping[str, str] | None) -> None:
        try:
            with job.scope:
                async with putting_back(confinement.watched, job.cwd) as put_back:
                    ran = await run_group(
                        job.command,
                        cwd=job.cwd,
                        confinement=confinement,
                        timeout=job.timeout,
                        cap=self.buffer,
                        emit=_quiet,
                        capture=job.spool,
                        env=env,
                    )
                if put_back:
                    job.spool.feed(put_back_line(put_back).encode() + b"\n")
                if ran.returncode is None:
                    job.state = "timed out"
                else:
                    job.state, job.code = "exited", ran.returncode
        except OSError as exc:  # it could not start: bash or bwrap missing, too many files
            job.state, job.failure = "failed", exc.strerror or str(exc)
        except Exception as exc:  # a bug: the command fails, not the session
            job.state, job.failure = "failed", f"{type(exc).__name__}: {exc}"
        finally:
            if job.state == "running":  # cancelled: by a stop, or by the session's end
                job.state = "killed" if job.who_stopped else "ended with the session"
            job.ended = time.monotonic()
            job.spool.close()
            job.done.set()

    def get(self, job_id: CommandId) -> Job:
        job = self._jobs.get(job_id)
        if job is None:
            raise ToolFailure(no_such_job("command", str(job_id), self.ids()))
        return job

    def find(self, text: str) -> Job:
        """The command a model's TaskOutput or TaskStop names: the conductor answers those of
        an agent's id, so any id that is not a command's is answered here, as unknown."""
        job_id = parse_job_id(text)
        if not isinstance(job_id, CommandId):
            raise ToolFailure(no_such_job("command", text, self.ids()))
        return self.get(job_id)

    def ids(self) -> list[str]:
        return [str(job_id) for job_id in self._jobs]

    async def stop(self, job: Job, *, by: str) -> Job:
        """Stop a running command and wait until its whole process group has ended."""
        if job.state == "running":
            job.who_stopped = by
            job.scope.cancel()
            # Bounded by the group's stop (its grace, then SIGKILL) and the drain of the pipe.
            await job.done.wait()
        return job

    def news(self) -> tuple[str, ...]:
        """A line for each command that has ended since the model last heard of it; each is
        told once."""
        lines = []
        for job in self._jobs.values():
            if job.state != "running" and not job.reported:
                job.reported = True
                lines.append(
                    f"Background command {job.id} ({_short(job.command)}) has ended: "
                    f"{job.status()}. Read its last output with TaskOutput."
                )
        return tuple(lines)

    def listing(self) -> tuple[BackgroundCommand, ...]:
        return tuple(job.describe() for job in self._jobs.values())

    def _forget_old(self) -> None:
        """Drop the oldest ended commands past ``KEPT_ENDED``, output and spill file with them;
        only those whose end the model has heard of, so none ends untold."""
        told = [job for job in self._jobs.values() if job.state != "running" and job.reported]
        for job in told[: max(0, len(told) - KEPT_ENDED)]:
            del self._jobs[job.id]
            if job.spool.path is not None:
                with contextlib.suppress(OSError):
                    os.unlink(job.spool.path)

    def _spill_path(self, job_id: str) -> str:
        if self._folder is None:
            # Private to the user, outside the project: the output may hold anything.
            self._folder = tempfile.mkdtemp(prefix="legato-background-")
        return os.path.join(self._folder, f"{job_id}.log")


def _short(command: str) -> str:
    line = command.strip().splitlines()[0] if command.strip() else command
    return repr(line if len(line) <= 60 else line[:57] + "...")
