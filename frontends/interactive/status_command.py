"""The ``statusLine`` command: the user's own script in place of Legato's status line.

The script gets the session's state as JSON on stdin, in the reference's shape (``state``), and
what it prints to stdout becomes the status line, colours and all. It runs in the background
through the hook runner (``RunStatusLine``), the one owner of the commands the settings run:
its own process group, no Legato credentials, bounded output, killed at ``TIMEOUT`` or when the
session ends. Input and drawing never wait for it.

It runs at the start, then whenever what it is told changes (an answer, a mode, a model, a
compaction) or ``refreshInterval`` seconds have passed, at most once per ``DEBOUNCE``. The facts
are compared when the screen is told something changed (``poke``) and at least once per
``IDLE_CHECK``, rather than every place that changes one being wired to a signal, so a new fact
needs no new wiring, and a session idle at its prompt is not woken three times a second.
A change while a run is going stops that run (its state is gone) and starts another, as the
reference does; the timer leaves a run that is going alone. A run that times out keeps the
last good line; one that fails brings Legato's own line back; either is said once, as a note.
"""

from __future__ import annotations

import math
import re
import time
from typing import TYPE_CHECKING, Any

import anyio

from actors.models import resolve_model
from actors.permission_modes import to_sdk
from actors.protocol import RunStatusLine
from runtime import KernelError

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from anyio.abc import TaskStatus

    from actors.protocol import HookRun, HookRunnerMsg, StatusLine
    from frontends.interactive.status import Status
    from runtime import Address

# The reference batches changes for 300 ms; a script that takes longer than TIMEOUT is killed.
DEBOUNCE = 0.3
IDLE_CHECK = 1.0  # the longest a change the screen was not told of waits to be seen
TIMEOUT = 5.0
MAX_LINES = 3  # the script's first lines: more would push the input up the screen
MAX_WIDTH = 500  # characters of one line kept (the terminal cuts it at its width anyway)

# Colour (SGR: ESC [ digits and semicolons m) is kept; every other escape sequence (cursor
# moves, screen clears, titles, OSC links, DCS...) and control character is dropped, so that a
# script cannot draw anywhere but its own row.
_SGR = re.compile(r"\x1b\[[0-9;]*m")
_SEQUENCE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"  # CSI
    r"|\x1b[\]PX^_][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC, DCS, SOS, PM, APC up to their end
    r"|\x1b[ -/]*[0-~]?"  # any other escape
    r"|\x9b[0-?]*[ -/]*[@-~]"  # the one-byte CSI
)
_CONTROL = re.compile(
    "[\x00-\x1f\x7f-\x9f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]"
)


def shown_lines(stdout: str, padding: int = 0) -> tuple[str, ...]:
    """The script's first lines as the status line shows them: colours kept, every other
    control gone, blank lines at the end dropped, ``padding`` spaces before each."""
    lines: list[str] = []
    for raw in stdout.replace("\r\n", "\n").split("\n")[: MAX_LINES + 1]:
        lines.append(_clean(raw.replace("\t", " "))[:MAX_WIDTH])
    while lines and not _SGR.sub("", lines[-1]).strip():
        lines.pop()
    pad = " " * padding
    return tuple(f"{pad}{line}\x1b[0m" for line in lines[:MAX_LINES])


def _clean(line: str) -> str:
    kept: list[str] = []
    at = 0
    for match in _SEQUENCE.finditer(line):
        kept.append(_CONTROL.sub("", line[at : match.start()]))
        if _SGR.fullmatch(match.group()):
            kept.append(match.group())
        at = match.end()
    kept.append(_CONTROL.sub("", line[at:]))
    return "".join(kept)


def state(
    status: Status, *, started: float, version: str, project_root: str, added: Sequence[str]
) -> dict[str, Any]:
    """The session's state in the reference's JSON (the hook runner adds ``session_id``,
    ``transcript_path``, ``cwd`` and ``workspace.current_dir``). Lines added and removed are
    left out: Legato does not count them."""
    window = resolve_model(status.model).context_window
    last = status.last_usage
    used = status.context_tokens
    # One decimal, as the status line's own figure: in a window of a million, a whole
    # number would read 0% for the first hundred answers.
    percent = round(used * 100 / window, 1) if used else None
    return {
        "hook_event_name": "Status",
        "model": {"id": status.model, "display_name": status.alias},
        "workspace": {"project_dir": project_root, "added_dirs": list(added)},
        "version": version,
        "output_style": {"name": "default"},
        "permission_mode": to_sdk(status.mode),
        "cost": {
            "total_cost_usd": status.cost,
            "total_duration_ms": int((time.monotonic() - started) * 1000),
            "total_api_duration_ms": status.api_ms,
        },
        "context_window": {
            "total_input_tokens": used,
            "total_output_tokens": last.output_tokens if last else 0,
            "context_window_size": window,
            "used_percentage": percent,
            "remaining_percentage": None if percent is None else round(100 - percent, 1),
            "current_usage": None
            if last is None
            else {
                "input_tokens": last.input_tokens,
                "output_tokens": last.output_tokens,
                "cache_creation_input_tokens": last.cache_creation_input_tokens,
                "cache_read_input_tokens": last.cache_read_input_tokens,
            },
        },
        "exceeds_200k_tokens": used + (last.output_tokens if last else 0) > 200_000,
        "fast_mode": status.fast_active,
    }


class StatusCommand:
    """Runs the command in the background and keeps ``status.custom`` to what it printed."""

    def __init__(
        self,
        setting: StatusLine,
        # The session's hook runner now: /resume replaces the session, and its runner with it.
        hooks: Callable[[], Address[HookRunnerMsg]],
        status: Status,
        *,
        project_root: str,
        added: Sequence[str],
        version: str,
        columns: Callable[[], int],
        note: Callable[[str], None],
        changed: Callable[[], None],
    ) -> None:
        self.setting = setting
        self._hooks = hooks
        self._status = status
        self._root = project_root
        self._added = tuple(added)
        self._version = version
        self._columns = columns
        self._note = note
        self._changed = changed
        self._started = time.monotonic()
        self._told: set[str] = set()  # the notes given: each kind once a session
        self._poked = anyio.Event()

    def poke(self) -> None:
        """Something on screen changed: compare the facts now rather than at the next check."""
        self._poked.set()

    async def run_forever(self) -> None:
        shown: tuple[Any, ...] | None = None
        every = self.setting.refresh_interval
        last = -math.inf
        running: tuple[anyio.CancelScope, anyio.Event] | None = None  # its scope, its end
        async with anyio.create_task_group() as tasks:
            while True:
                facts = self._status.facts()
                changed = facts != shown
                due = every is not None and anyio.current_time() - last >= every
                busy = running is not None and not running[1].is_set()
                if changed or (due and not busy):
                    shown, last = facts, anyio.current_time()
                    if running is not None:
                        # As the reference does: a run still going tells of a state that is
                        # gone, so it is stopped (its process group with it) for the new one.
                        running[0].cancel()
                    running = await tasks.start(self._run_once)
                await anyio.sleep(DEBOUNCE)
                wait = IDLE_CHECK
                if every is not None:  # the timer's run is checked for when it falls due
                    wait = min(wait, max(0.0, last + every - anyio.current_time()))
                with anyio.move_on_after(wait):
                    await self._poked.wait()
                self._poked = anyio.Event()

    async def _run_once(
        self, *, task_status: TaskStatus[tuple[anyio.CancelScope, anyio.Event]]
    ) -> None:
        ended = anyio.Event()
        with anyio.CancelScope() as scope:
            task_status.started((scope, ended))
            try:
                await self.refresh()
            finally:
                ended.set()

    async def refresh(self) -> None:
        """One run of the command, its output shown (or the failure noted)."""
        ask = RunStatusLine(
            command=self.setting.command,
            state=state(
                self._status,
                started=self._started,
                version=self._version,
                project_root=self._root,
                added=self._added,
            ),
            timeout=TIMEOUT,
            columns=self._columns(),
        )
        try:
            run = await self._hooks().ask(ask)
        except KernelError:
            return  # the session is ending, or being switched by /resume: the next run goes on
        self._show(run)

    def _show(self, run: HookRun) -> None:
        status = self._status
        if run.timed_out:
            self._once(
                "timeout",
                f"The statusLine command took over {TIMEOUT:g} s and was stopped; the status "
                "line shows what it printed last. Make it faster (cache slow parts such as git "
                "status), or remove statusLine from your settings.",
            )
        elif run.exit_code != 0:
            status.custom = ()
            reason = _first_line(run.stderr) or (
                "it could not start" if run.exit_code is None else f"exit code {run.exit_code}"
            )
            self._once(
                "failed",
                f"The statusLine command failed ({reason}); Legato's own status line is shown "
                f"instead. Try it by hand: echo '{{}}' | {self.setting.command}",
            )
        else:
            status.custom = shown_lines(run.stdout, self.setting.padding)
        self._changed()

    def _once(self, kind: str, text: str) -> None:
        if kind not in self._told:
            self._told.add(kind)
            self._note(text)


def _first_line(text: str) -> str:
    line = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return _clean(line)[:200]
