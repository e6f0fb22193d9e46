"""Running one headless prompt: the session, the signals, the exit code.

A first SIGINT or SIGTERM interrupts the prompt the way the terminal's Ctrl-C will: only the
``RunPrompt`` request is cancelled, the conductor stops the running tools (their process groups
ended) and puts the conversation in order, and the session then closes normally. A second
signal while that happens cancels everything at once. Either way every process is reaped.
"""

from __future__ import annotations

import os
import signal
import sys
import time
import uuid
from typing import IO, TYPE_CHECKING

import anyio
import msgspec

from actors.errors import (
    EXIT_DENIED,
    EXIT_FAILURE,
    EXIT_OK,
    EXIT_SIGINT,
    SIGNAL_EXIT,
    LegatoError,
    SessionError,
)
from actors.permission_modes import to_sdk
from actors.protocol import (
    AttachReferences,
    DescribeSandbox,
    ExplainPermissions,
    GetContext,
    GetConversation,
    GetUsage,
    ListAgents,
    ListBackground,
    ListBackgroundAgents,
    Notice,
    PermissionRequest,
    RunPrompt,
    Show,
    TurnOutcome,
)
from actors.tool_routes import still_running
from frontends.commands.mcp_notes import not_started
from frontends.errors_out import report
from frontends.headless import session_commands
from frontends.headless.denials import DenialTally, writes_denied_warning
from frontends.headless.output_formats import renderer_for
from frontends.headless.render_stream_json import StreamJsonRenderer
from frontends.headless.render_text import TextRenderer
from frontends.headless.sdk_session import SdkOptions, init_line
from frontends.session import assemble
from frontends.skills.command_run import running
from frontends.startup import debug, session_words
from runtime import ActorCrashed, first_error, supervise

if TYPE_CHECKING:
    from actors.protocol import Block, SkillPrompt
    from frontends.headless.render import HeadlessRenderer
    from frontends.session import Session
    from frontends.session_options import SessionOptions

# Seconds queued work may take to finish after an interrupt (the session file's last lines).
STOP_GRACE = 0.5

# How long an interrupted prompt gets to stop its tools and close its turn (the conductor bounds
# its own part to 2 s; this is the frontend's outer bound on the same wait).
STOP_WAIT = 3.0


def run_headless(
    options: SessionOptions,
    *,
    prompt: str,
    stdout: IO[str] | None = None,
    stderr: IO[str] | None = None,
    command: SkillPrompt | None = None,
) -> int:
    """Runs one prompt in a session of its own, on trio; the exit code. ``command``: the skill
    or pattern the prompt was made from (``legato /<name> ...``)."""
    run = _HeadlessRun(
        options,
        prompt=prompt,
        stdout=stdout or sys.stdout,
        stderr=stderr or sys.stderr,
        command=command,
    )
    try:
        return anyio.run(run.exit_code, backend="trio")
    except KeyboardInterrupt:
        # Ctrl-C before the signal handler was installed (during start-up).
        return EXIT_SIGINT


class _HeadlessRun:
    """One headless prompt: its session, the signals that stop it, what it says and its exit
    code."""

    def __init__(
        self,
        options: SessionOptions,
        *,
        prompt: str,
        stdout: IO[str],
        stderr: IO[str],
        command: SkillPrompt | None = None,
    ) -> None:
        # Headless whoever built the options: nobody is at a terminal to answer a question.
        session_id = options.session_id or str(uuid.uuid4())
        options = msgspec.structs.replace(options, session_id=session_id, headless=True)
        self.options = options
        self.project_root = options.project_root
        self.prompt = prompt
        self.session_id = session_id
        self.command = command
        self.renderer: HeadlessRenderer = renderer_for(
            options.output_format,
            stdout,
            stderr,
            self.session_id,
            partial=options.partial_messages,
            root=options.project_root,
        )
        self.renderer.denials = DenialTally(options.project_root)
        self.renderer.denials_fail = command is not None
        # Everything goes through the renderer's guarded streams: a reader that stops reading
        # (`| head`) ends the run cleanly instead of with a BrokenPipeError.
        self.stdout = self.renderer.stdout
        self.stderr = self.renderer.stderr
        self.stopped_by: signal.Signals | None = None
        self.stopped_what = ""  # what was running when the signal came, for the one-line note
        self.prompt_scope: anyio.CancelScope | None = None  # made in ``exit_code``: needs the loop
        self.started = time.monotonic()

    async def exit_code(self) -> int:
        """Runs the session with the signals watched; a failure or a signal is said on stderr
        (and, in json formats, as the result) and turned into its exit code."""
        self.prompt_scope = prompt_scope = anyio.CancelScope()
        try:
            async with anyio.create_task_group() as group:
                group.start_soon(self._watch_signals, group.cancel_scope)
                code = await self._run_session(prompt_scope)
                group.cancel_scope.cancel()
            if self.stopped_by is not None:
                return self._report_interruption(self.stopped_by)
            return code
        except BaseExceptionGroup as failure:
            error = first_error(failure)
            if isinstance(error, ActorCrashed):
                return self._report_failure(error.cause, error)
            if isinstance(error, LegatoError):
                return self._report_failure(error, error)
            raise
        finally:
            # The last words (an error, the interrupted result) were written after the session.
            self.stdout.flush_now()
            self.stderr.flush_now()

    async def _watch_signals(self, scope: anyio.CancelScope) -> None:
        with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
            async for received in signals:
                if self.stopped_by is not None:
                    scope.cancel()  # a second signal: stop waiting for a tidy end
                    return
                self.stopped_by = signal.Signals(received)
                # Said now: once the tools report, the renderer no longer shows them running.
                self.stopped_what = self.renderer.activity()
                if self.prompt_scope is not None:
                    self.prompt_scope.cancel()

    async def _run_session(self, prompt_scope: anyio.CancelScope) -> int:
        """Starts the session, runs the prompt in ``prompt_scope`` (which a signal cancels),
        shows how it ended and stops the session; the exit code."""
        session = assemble(self.options, renderer=self.renderer)
        async with supervise(session.actors, tracer=debug.tracer()) as supervision:
            context = await session.memory.address.ask(GetContext())
            if isinstance(self.renderer, StreamJsonRenderer):
                mode = to_sdk(context.permission_mode)
                options = SdkOptions(self.options, permission_mode=mode)
                self.renderer.emit(await init_line(session, options, options.permission_mode))
            for warning in context.warnings:
                await session.ui.address.tell(Show(Notice("warning", warning)))
            # After the init line, which docs/headless.md says comes first.
            if faults := (await session.skills.address.ask(ListAgents())).describe_faults():
                await session.ui.address.tell(Show(Notice("warning", faults)))
            # The MCP client lists these and does not start them; the run goes on without.
            for server in context.mcp_servers:
                if not server.approved:
                    note = not_started(server.name, server.source)
                    await session.ui.address.tell(Show(Notice("warning", note)))
            if (denied := await self._writes_denied(session)) is not None:
                await session.ui.address.tell(Show(Notice("warning", denied)))
            with prompt_scope:
                outcome = await self._answer(session)
                self.renderer.sandbox = await session.tools.address.ask(
                    DescribeSandbox(try_it=False)
                )
                await session.saved()
                await session.ui.address.tell(Show(outcome))
                if left := await _still_running(session):
                    await session.ui.address.tell(Show(Notice("warning", left)))
            if prompt_scope.cancelled_caught:
                # The conductor answers this only once the interrupted prompt has let go: its
                # tools stopped and reported, the conversation closed. Then the session ends.
                with anyio.move_on_after(STOP_WAIT):
                    await session.conductor.address.ask(GetConversation())
                # The user said stop: what is still queued gets a moment, not the usual grace
                # (the UI may be waiting on a reader that no longer reads).
                supervision.grace = STOP_GRACE
                return EXIT_FAILURE  # replaced by the signal's code in ``exit_code``
        if outcome.is_error and isinstance(self.renderer, TextRenderer):
            # What ended the turn (max turns, an API error), in the one format; exit 1.
            return report(SessionError(outcome.error or outcome.subtype), self.stderr)
        if outcome.is_error:
            return EXIT_FAILURE
        # The tally saw the prompt's every event: the UI actor showed them all before it
        # stopped, the outcome last.
        nothing_done = self.renderer.denials is not None and self.renderer.denials.nothing_changed
        return EXIT_DENIED if self.command is not None and nothing_done else EXIT_OK

    async def _writes_denied(self, session: Session) -> str | None:
        """Before a pattern runs (patterns generate files): a warning when the mode will deny
        its writes whatever it writes, with the flag or setting that lets it write."""
        if self.command is None or self.command.kind != "pattern":
            return None
        # A file the pattern might create, judged by the broker as the Write would be.
        sample = os.path.join(self.project_root, f"{self.command.name}.generated")
        request = PermissionRequest(tool="Write", kind="create", paths=(sample,))
        report = await session.permissions.address.ask(ExplainPermissions(requests=(request,)))
        if report.assessments[0].outcome == "allowed":
            return None
        # With allowedPaths entries another path may be allowed: not certain, so nothing said.
        every_write = report.mode == "plan"
        if not every_write and dict(report.rules).get("allowedPaths"):
            return None
        return writes_denied_warning(
            self.command.name, report.mode, report.rules_file, all_denied=every_write
        )

    async def _answer(self, session: Session) -> TurnOutcome:
        """The prompt run by the conductor, or the session command it names."""
        if session_words.named(self.prompt):
            home = self.options.home or await _home()
            said = await session_commands.run(
                session, self.prompt, project_root=self.project_root, home=home
            )
            return await self._said(session, said)
        prompt, blocks = await self._attach_references(session)
        async with running(self.command, session, prompt) as prompt:
            return await session.conductor.address.ask(
                RunPrompt(
                    text=prompt,
                    max_turns=self.options.max_turns,
                    blocks=blocks,
                    output_schema=self.options.json_schema,
                )
            )

    async def _attach_references(self, session: Session) -> tuple[str, tuple[Block, ...]]:
        """The prompt with the files its ``@path`` references name, read by the session's tool
        executor under the permission rules; what was left out is a warning."""
        if "@" not in self.prompt:
            return self.prompt, ()
        # A project's skill or pattern wrote its prompt's names, not the person who ran it.
        named_by_user = self.command is None or not self.command.from_project
        attachment = await session.tools.address.ask(
            AttachReferences(text=self.prompt, named_by_user=named_by_user)
        )
        for note in attachment.notes:
            await session.ui.address.tell(Show(Notice("warning", note)))
        return attachment.prompt, attachment.blocks

    async def _said(self, session: Session, said: str) -> TurnOutcome:
        """What a session command did, as the run's result."""
        conductor = session.conductor.address
        if isinstance(self.renderer, TextRenderer):
            # Text output shows what the model streams; here nothing streams, so say it.
            self.stdout.write(f"{said}\n")
        return TurnOutcome(
            result=said,
            is_error=False,
            subtype="success",
            num_turns=0,
            duration_ms=round((time.monotonic() - self.started) * 1000),
            duration_api_ms=0,
            usage=await conductor.ask(GetUsage()),  # a compaction's summary costs tokens
            total_cost_usd=None,
            session_id=self.session_id,
        )

    def _report_failure(self, error: BaseException, raised: BaseException) -> int:
        # A bug, not a user's mistake, is said as what was raised: it names the actor.
        return report(error if isinstance(error, LegatoError) else raised, self.stderr)

    def _report_interruption(self, received: signal.Signals) -> int:
        what = self.stopped_what
        self.stderr.write(f"\nlegato: stopped by {received.name} {what}\n")
        self.stderr.flush()
        if self.options.output_format != "text":
            outcome = TurnOutcome(
                result="",
                is_error=True,
                subtype="interrupted",
                num_turns=self.renderer.turns,
                duration_ms=round((time.monotonic() - self.started) * 1000),
                duration_api_ms=0,
                usage=self.renderer.usage,
                total_cost_usd=None,
                session_id=self.session_id,
                error=f"stopped by {received.name} {what}",
            )
            self.renderer.render(outcome)
        return SIGNAL_EXIT[received]


async def _still_running(session: Session) -> str | None:
    """What the model left running in the background, which the run's end stops, in words; None
    when nothing runs. A run in CI should not end with work quietly cut off."""
    commands = await session.tools.address.ask(ListBackground())
    agents = await session.conductor.address.ask(ListBackgroundAgents())
    running = still_running(commands, agents)
    if not running:
        return None
    return (
        f"stopping what still runs in the background as the run ends: {', '.join(running)}; "
        "to keep such work, have the prompt wait for it (TaskOutput with block)"
    )


async def _home() -> str:
    return str(await anyio.Path.home())
