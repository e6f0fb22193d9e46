"""Running one headless prompt: the session, the signals, the exit code."""

from __future__ import annotations

import signal
import sys
import time
import uuid
from typing import IO, TYPE_CHECKING

import anyio

from actors.errors import LegatoError
from actors.protocol import GetContext, Notice, RunPrompt, Show, TurnOutcome
from frontends.cli import EXIT_FAILURE, EXIT_OK, EXIT_SIGINT, EXIT_SIGTERM
from frontends.headless.render import HeadlessRenderer, TextRenderer, renderer_for
from frontends.session import assemble
from runtime import ActorCrashed, first_error, supervise

if TYPE_CHECKING:
    from collections.abc import Mapping

    from actors.protocol import PermissionMode

_SIGNAL_EXIT = {signal.SIGINT: EXIT_SIGINT, signal.SIGTERM: EXIT_SIGTERM}


def run_headless(
    *,
    project_root: str,
    prompt: str,
    model: str | None = None,
    permission_mode: PermissionMode | None = None,
    output_format: str = "text",
    max_turns: int = 50,
    env: Mapping[str, str] | None = None,
    home: str | None = None,
    stdout: IO[str] | None = None,
    stderr: IO[str] | None = None,
) -> int:
    job = _HeadlessJob(
        project_root=project_root,
        prompt=prompt,
        model=model,
        permission_mode=permission_mode,
        output_format=output_format,
        max_turns=max_turns,
        env=env,
        home=home,
        stdout=stdout or sys.stdout,
        stderr=stderr or sys.stderr,
    )
    try:
        return anyio.run(job.run, backend="trio")
    except KeyboardInterrupt:
        # Ctrl-C before the signal handler was installed (during start-up).
        return EXIT_SIGINT


class _HeadlessJob:
    def __init__(
        self,
        *,
        project_root: str,
        prompt: str,
        model: str | None,
        permission_mode: PermissionMode | None,
        output_format: str,
        max_turns: int,
        env: Mapping[str, str] | None,
        home: str | None,
        stdout: IO[str],
        stderr: IO[str],
    ) -> None:
        self.project_root = project_root
        self.prompt = prompt
        self.model = model
        self.permission_mode = permission_mode
        self.output_format = output_format
        self.max_turns = max_turns
        self.env = env
        self.home = home
        self.stdout = stdout
        self.stderr = stderr
        self.session_id = str(uuid.uuid4())
        self.renderer: HeadlessRenderer = renderer_for(
            output_format, stdout, stderr, self.session_id
        )
        self.stopped_by: signal.Signals | None = None
        self.started = time.monotonic()

    async def run(self) -> int:
        try:
            async with anyio.create_task_group() as group:
                group.start_soon(self._watch_signals, group.cancel_scope)
                code = await self._session()
                group.cancel_scope.cancel()
        except BaseExceptionGroup as failure:
            error = first_error(failure)
            if isinstance(error, ActorCrashed):
                return self._fail(error.cause, error)
            if isinstance(error, LegatoError):
                return self._fail(error, error)
            raise
        if self.stopped_by is not None:
            return self._interrupted(self.stopped_by)
        return code

    async def _watch_signals(self, scope: anyio.CancelScope) -> None:
        with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
            async for received in signals:
                self.stopped_by = signal.Signals(received)
                scope.cancel()
                return

    async def _session(self) -> int:
        session = assemble(
            self.project_root,
            renderer=self.renderer,
            headless=True,
            model=self.model,
            permission_mode=self.permission_mode,
            env=self.env,
            home=self.home,
            session_id=self.session_id,
        )
        async with supervise(session.actors):
            context = await session.memory.address.ask(GetContext())
            for warning in context.warnings:
                await session.ui.address.tell(Show(Notice("warning", warning)))
            outcome = await session.conductor.address.ask(
                RunPrompt(text=self.prompt, max_turns=self.max_turns)
            )
            await session.ui.address.tell(Show(outcome))
        if outcome.is_error and isinstance(self.renderer, TextRenderer):
            self.stderr.write(f"legato: error: {outcome.error or outcome.subtype}\n")
        return EXIT_FAILURE if outcome.is_error else EXIT_OK

    def _fail(self, error: BaseException, raised: BaseException) -> int:
        if isinstance(error, LegatoError):
            self.stderr.write(f"legato: error: {error.describe()}\n")
            return error.exit_code
        # A bug, not a user's mistake: say which actor, keep it to one line plus a hint.
        self.stderr.write(
            f"legato: internal error: {raised}\n"
            "  → Please report it; run with ASSISTANT_LOG=debug for details\n"
        )
        return EXIT_FAILURE

    def _interrupted(self, received: signal.Signals) -> int:
        what = self.renderer.activity()
        self.stderr.write(f"\nlegato: stopped by {received.name} {what}\n")
        self.stderr.flush()
        if self.output_format != "text":
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
        return _SIGNAL_EXIT[received]
