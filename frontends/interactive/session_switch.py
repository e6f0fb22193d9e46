"""``/resume`` in a running session: the one on the screen ends, a saved one takes its place.

The session's actors end first (their queued work done, the session saved), then the picked
one's start as ``--resume`` starts them, and its last exchanges are shown under what is on the
screen, as they are under the banner of a session started with ``--resume``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec
from rich.text import Text

from actors.errors import LegatoError, UsageError
from actors.protocol import GetContext, GetContextFill, LoadSession, SetMode, Usage
from frontends.interactive.questions import Questions
from frontends.interactive.resumed import resumed_header, resumed_lines
from frontends.session import assemble
from runtime import ActorCrashed

if TYPE_CHECKING:
    import anyio

    from frontends.interactive.hosting import Hosting
    from frontends.interactive.renderer import TerminalRenderer
    from frontends.interactive.status import Status
    from frontends.session import Session
    from frontends.session_options import SessionOptions


class SessionSwitch(Questions):
    """Switching sessions: part of ``InteractiveSession``, which sets the fields."""

    options: SessionOptions
    session: Session
    status: Status
    renderer: TerminalRenderer
    root: str
    model_flag: str | None
    _hosting: Hosting
    _background_poke: anyio.Event
    _typed_ahead: bool

    async def _resume(self, argument: str) -> None:
        """Switch to another saved session of the project: this one's actors end (it stays
        saved), the picked one's start as ``--resume`` starts them, and its last exchanges
        are shown under what is on the screen."""
        from frontends.interactive.resume_command import session_to_resume

        if self._typed_ahead:
            # Typed while the prompt ran, for the conversation the person saw then: not
            # switched away from under what that prompt just said.
            self.view.note(
                "error",
                "/resume: a prompt was running when it was typed, so it did not switch "
                "sessions\n  → Type /resume again now",
            )
            return
        if self.session.sessions is None:
            self.view.note("error", "/resume: this session is not saved, so it has none to list")
            return
        if self.screen.background:
            self.view.note(
                "error",
                "/resume: background commands or agents are running, and switching sessions "
                "would stop them\n  → Wait for them, or stop them with /tasks stop <id>, then "
                "/resume",
            )
            return
        try:
            picked = await session_to_resume(
                argument,
                self.session.sessions.address,
                self.session.id,
                say=lambda shown: self.view.say(Text(shown)),
                ask=self._pick,
            )
        except UsageError as error:
            self.view.note("error", error.describe())
            return
        if picked is None:
            self.view.say(Text("No session picked; this one goes on.", style="legato.muted"))
            return
        left = self.session.id
        # This session's actors end first (their queued work done, the session saved), so
        # that nothing of theirs is running or writing when the picked one's start.
        await self._hosting.stop()
        # When the picked one cannot start, the one left goes on as a resume of it would (a
        # session with nothing saved yet goes on as a new one).
        if not await self._start_session(picked) and not await self._start_session(left):
            await self._start_session(None)
        # The usage and cost go on from the session's saved ones, not the one left's.
        self.status.usage, self.status.cost, self.status.cost_known = Usage(), 0.0, True
        session = self.session
        context = await session.memory.address.ask(GetContext())
        self.status.model = context.model
        try:
            await session.permissions.address.ask(SetMode(mode=self.status.mode))
        except UsageError as error:  # a settings file changed since: the session's own mode
            self.view.note("warning", error.describe())
            self.status.mode = context.permission_mode
        await self._show_resumed()
        self._background_poke.set()

    async def _start_session(self, resumed: str | None) -> bool:
        """Start the saved session ``resumed`` (None: a new one) as the one on the screen;
        False, said, when it cannot start (a session file that cannot be read)."""
        options = msgspec.structs.replace(
            self.options, session_id=resumed, resume=resumed is not None, initial_prompt=None
        )
        self.session = assemble(options, renderer=self.renderer)
        try:
            await self._hosting.start(self.session)
        except (ActorCrashed, LegatoError) as error:
            cause = error.cause if isinstance(error, ActorCrashed) else error
            said = cause.describe() if isinstance(cause, LegatoError) else str(cause)
            self.view.note("error", f"/resume: session {resumed} could not be opened: {said}")
            return False
        return True

    async def _show_resumed(self) -> None:
        """The resumed conversation's last exchanges under the banner; its usage counted, so
        that /cost and the status line go on from it."""
        if self.session.sessions is None:
            return
        saved = await self.session.sessions.address.ask(LoadSession())
        if saved.model and self.model_flag is None:
            # The conductor goes on with the session's /model choice, as --model did not say.
            self.status.model = saved.model
        for counted in saved.spent:
            self.status.count(counted.usage, model=counted.model)
        self.status.context_tokens = (
            await self.session.conductor.address.ask(GetContextFill())
        ).tokens
        self.view.say(resumed_header(saved))
        for line in resumed_lines(saved.messages, root=self.root):
            self.view.say(line)
        self.screen.changed()
