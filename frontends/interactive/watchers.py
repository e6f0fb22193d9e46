"""The session's tasks that run beside the prompt loop, for as long as the screen is up.

The prompt_toolkit application itself; the listing of files and commands for completion; the
sandbox's warning; signals; the background commands' status lines; and each permission mode
picked with Shift+Tab, told to the broker in order.
"""

from __future__ import annotations

import contextlib
import math
import signal
from typing import TYPE_CHECKING

import anyio
from rich.text import Text

from actors.protocol import (
    ExplainPermissions,
    ListBackground,
    ListBackgroundAgents,
    ListCommands,
    ListFiles,
    SetMode,
    TakeSandboxWarning,
)
from frontends.commands.permission_session import mode_note
from frontends.interactive.completion import MAX_FILES
from frontends.interactive.status import CYCLE
from frontends.interactive.tasks import status_lines
from runtime import KernelError, release_collector

if TYPE_CHECKING:
    from actors.protocol import CommandInfo
    from frontends.interactive.hosting import Hosting
    from frontends.interactive.screen import Screen
    from frontends.interactive.status import Status
    from frontends.interactive.view import TurnView
    from frontends.session import Session

# How often the background commands' status lines are brought up to date while any runs: their
# ages count in seconds.
BACKGROUND_TICK = 1.0


class Watchers:
    """The tasks beside the loop: part of ``InteractiveSession``, which sets the fields."""

    view: TurnView
    screen: Screen
    status: Status
    session: Session
    files: tuple[str, ...]
    skills: list[tuple[str, str]]
    _hosting: Hosting
    _background_poke: anyio.Event
    _mode_changed: anyio.Event

    async def _run_app(self, done: anyio.Event) -> None:
        try:
            await self.screen.app.run_async(handle_sigint=False)
        finally:
            done.set()
            self.screen.request_exit()  # the app ended (exit, or a crash in it): so does the loop

    async def _list_files(self) -> None:
        # A /resume that ended the session before the listing came: none for completion.
        with contextlib.suppress(KernelError):
            self.files = await self.session.tools.address.ask(ListFiles(limit=MAX_FILES))
            found = await self._commands()
            self.skills = [(f"/{info.name}", info.description) for info in found]
        self.screen.offer_completions()
        # Start-up is over, the prompt up and its completions loaded: the cycle collector,
        # held since `main`, runs from here on whether or not a prompt comes (the screen's
        # redraws make garbage while the person reads or types).
        release_collector()

    async def _say_sandbox(self) -> None:
        # Under the banner, once the session's trial of the sandbox is made: asked in the
        # background so the prompt does not wait for it. A command that comes first says it
        # instead, and then the answer is None.
        # Not answered when /resume ends the session first: the picked one does not say it.
        warning = None
        with contextlib.suppress(KernelError):
            warning = await self.session.tools.address.ask(TakeSandboxWarning())
        if warning is not None:
            self.view.note("warning", warning)
            self.screen.changed()

    async def _watch_signals(self) -> None:
        # SIGTERM and SIGHUP end the session cleanly, so the terminal is restored. SIGINT (a
        # `kill -INT`, since Ctrl-C arrives as a key in raw mode) acts like Ctrl-C.
        with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGHUP, signal.SIGINT) as signals:
            async for received in signals:
                if received == signal.SIGINT and self.screen.busy is not None:
                    self.screen.busy.cancel()
                else:
                    self.screen.request_exit()

    async def _watch_background(self) -> None:
        """A status line for each running background command, under the answer: the executor
        is asked once a second while a prompt or a background command runs, else when a prompt
        or a command starts or ends (``_background_poke``)."""
        while True:
            try:
                commands = await self.session.tools.address.ask(ListBackground())
                agents = await self.session.conductor.address.ask(ListBackgroundAgents())
            except KernelError:
                # The executor is gone: /resume is switching sessions (at the end, this task
                # is cancelled before the actors stop). The next session's are asked.
                await self._hosting.up.wait()
                continue
            lines = status_lines(commands, agents)
            if lines != self.screen.background:
                self.screen.background = lines
                self.screen.changed()
            active = bool(lines) or self.screen.busy is not None
            with anyio.move_on_after(BACKGROUND_TICK if active else math.inf):
                await self._background_poke.wait()
            self._background_poke = anyio.Event()

    # ── permission mode ─────────────────────────────────────────────────────────────────────

    def _cycle_mode(self) -> None:
        self.status.mode = CYCLE[self.status.mode]
        self._mode_changed.set()
        self.screen.changed()

    async def _sync_mode(self) -> None:
        """Tells the broker each mode the user picks with Shift+Tab, in order."""
        while True:
            await self._mode_changed.wait()
            self._mode_changed = anyio.Event()
            broker = self.session.permissions.address
            await broker.ask(SetMode(mode=self.status.mode))
            # Whether the answers given earlier still hold is said with the change, not left
            # to be found out when a question does not come.
            note = mode_note(await broker.ask(ExplainPermissions()))
            if note is not None:
                self.view.say(Text(note, style="legato.muted"))
                self.screen.changed()

    async def _commands(self) -> tuple[CommandInfo, ...]:
        return await self.session.skills.address.ask(ListCommands())
