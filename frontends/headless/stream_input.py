"""``--input-format stream-json``: one session fed NDJSON on stdin, as the Claude Agent SDK
drives its CLI (the protocol is written down in docs/headless.md).

Lines in: ``user`` messages (queued, run one after another in the same conversation) and
``control_request``s (``initialize``, ``interrupt``, ``set_permission_mode``, ``set_model``,
``get_context_usage``, ``mcp_status``; anything else gets an error response), and the
``control_response``s that answer Legato's own requests (``can_use_tool`` with
``--permission-prompt-tool stdio``, ``hook_callback`` for the hooks ``initialize`` registered).
Lines out: stream-json (frontends/headless/render_stream_json.py), control responses among them.

End of input finishes the queued prompts and exits: 0, or 1 when the last prompt failed.
``interrupt`` stops the running prompt the way Esc does and the next one runs; SIGINT and
SIGTERM stop the running prompt and exit. A line that is not JSON, or not a message Legato
knows, is answered with a ``system`` ``notice`` line and skipped. A reader that closes stdout
ends the run (exit 141); one that is slow delays only the output (frontends/headless/guarded.py).
"""

from __future__ import annotations

import math
import signal
import sys
import time
import uuid
from dataclasses import dataclass, field
from typing import IO, TYPE_CHECKING, Any

import anyio
import msgspec

from actors.errors import (
    EXIT_FAILURE,
    EXIT_OK,
    EXIT_OUTPUT_CLOSED,
    EXIT_SIGINT,
    SIGNAL_EXIT,
    LegatoError,
    UsageError,
)
from actors.nesting import MAX_DEPTH, too_deep
from actors.protocol import (
    DescribeSandbox,
    GetContext,
    GetConversation,
    ListAgents,
    Notice,
    RunPrompt,
    Show,
    TurnOutcome,
    Usage,
)
from frontends.errors_out import report
from frontends.headless.control import ControlChannel, ControlError
from frontends.headless.guarded import OutputClosed
from frontends.headless.render_stream_json import StreamJsonRenderer
from frontends.headless.requests import Requests, prompt_text
from frontends.headless.run import STOP_GRACE, STOP_WAIT
from frontends.headless.sdk_session import assemble_for_sdk, init_line
from frontends.skills.command_run import running
from frontends.startup import debug, session_words
from runtime import ActorCrashed, first_error, supervise

if TYPE_CHECKING:
    from actors.protocol import Block
    from frontends.headless.sdk_session import SdkOptions
    from frontends.session import Session

_decoder = msgspec.json.Decoder()


@dataclass
class _Prompt:
    text: str
    notes: list[str] = field(default_factory=list)
    blocks: tuple[Block, ...] = ()  # images and documents after the text
    id: str = ""  # the user message's uuid: what the SDK's rewind_files names


def run_stream_json(options: SdkOptions, *, stdin: IO[bytes] | None = None) -> int:
    run = _StreamSession(options, stdin or sys.stdin.buffer, sys.stdout, sys.stderr)
    try:
        return anyio.run(run.exit_code, backend="trio")
    except KeyboardInterrupt:
        return EXIT_SIGINT


class _StreamSession:
    def __init__(
        self, options: SdkOptions, stdin: IO[bytes], stdout: IO[str], stderr: IO[str]
    ) -> None:
        self.options = options
        self.stdin = stdin
        self.session_id = options.session.session_id or str(uuid.uuid4())
        self.renderer = StreamJsonRenderer(
            stdout,
            stderr,
            self.session_id,
            partial=options.session.partial_messages,
            hook_events=options.session.hook_events,
        )
        self.channel = ControlChannel(self._send)
        self.stopped_by: signal.Signals | None = None
        self.current: anyio.CancelScope | None = None  # the running prompt's
        self.interrupted = False
        self.last_failed = False
        self.mode = options.permission_mode  # the SDK's name for it
        self.model: str | None = None  # set_model's choice; None: the session's start-up model
        self._stop_reading: anyio.CancelScope | None = None  # made on the loop, in _serve
        self._started = False  # the session is up: a signal then stops it tidily

    # ── lines out ────────────────────────────────────────────────────────────────────────

    async def _send(self, obj: dict[str, Any]) -> None:
        self.renderer.write_line(self.renderer.stdout, obj)
        await self.renderer.stdout.drain()

    async def notice(self, level: str, text: str) -> None:
        self.renderer.emit({"type": "system", "subtype": "notice", "level": level, "text": text})
        await self.renderer.stdout.drain()

    # ── the run ──────────────────────────────────────────────────────────────────────────

    async def exit_code(self) -> int:
        try:
            async with anyio.create_task_group() as group:
                group.start_soon(self._watch_signals, group.cancel_scope)
                code = await self._serve()
                group.cancel_scope.cancel()
        except BaseExceptionGroup as failure:
            error = first_error(failure)
            cause = error.cause if isinstance(error, ActorCrashed) else error
            if isinstance(cause, OutputClosed):
                return EXIT_OUTPUT_CLOSED
            if isinstance(cause, LegatoError):
                return report(cause, self.renderer.stderr)
            raise
        finally:
            self.renderer.stdout.flush_now()
            self.renderer.stderr.flush_now()
        if self.stopped_by is not None:
            self.renderer.stderr.write(f"legato: stopped by {self.stopped_by.name}\n")
            self.renderer.stderr.flush_now()
            return SIGNAL_EXIT[self.stopped_by]
        return code

    async def _watch_signals(self, scope: anyio.CancelScope) -> None:
        with anyio.open_signal_receiver(signal.SIGINT, signal.SIGTERM) as signals:
            async for received in signals:
                if self.stopped_by is not None:
                    scope.cancel()  # a second signal: stop waiting for a tidy end
                    return
                self.stopped_by = signal.Signals(received)
                if not self._started:
                    scope.cancel()  # no session yet: nothing to stop tidily
                    return
                self.channel.close(f"the run was stopped by {self.stopped_by.name}")
                if self.current is not None:
                    self.current.cancel()
                if self._stop_reading is not None:
                    self._stop_reading.cancel()

    async def _serve(self) -> int:
        lines_in, lines = anyio.create_memory_object_stream[bytes](16)
        self._stop_reading = stop_reading = anyio.CancelScope()
        async with anyio.create_task_group() as group:
            group.start_soon(self._read_stdin, lines_in)
            first = await self._first_message(lines)
            if first is None:  # input ended before any message: there is nothing to do
                group.cancel_scope.cancel()
                return EXIT_OK
            initialize = _initialize(first)
            sdk = assemble_for_sdk(
                self.options,
                self.renderer,
                self.session_id,
                init=initialize[1] if initialize else None,
                channel=self.channel,
                interrupt=self.interrupt,
            )
            requests = Requests(sdk, self)
            if initialize is not None:
                await requests.answer(initialize[0], requests.initialize(sdk))
                first = None
            async with supervise(sdk.session.actors, tracer=debug.tracer()) as supervision:
                self._started = True
                await self._start(sdk.session)
                prompts_in, prompts = anyio.create_memory_object_stream[_Prompt](math.inf)
                async with anyio.create_task_group() as work:
                    work.start_soon(self._run_prompts, sdk.session, prompts)
                    with stop_reading:
                        if first is not None:
                            await self._dispatch(first, requests, prompts_in, work)
                        async for line in lines:
                            message = await self._parse(line)
                            if message is not None:
                                await self._dispatch(message, requests, prompts_in, work)
                    # End of input (or a signal): what is queued still runs, then the session
                    # ends. Nothing can answer a control request any more.
                    self.channel.close("stdin was closed, so nothing can answer this request")
                    prompts_in.close()
                if self.stopped_by is not None:
                    supervision.grace = STOP_GRACE
            group.cancel_scope.cancel()
        return EXIT_FAILURE if self.last_failed else EXIT_OK

    async def _read_stdin(self, lines_in: anyio.abc.ObjectSendStream[bytes]) -> None:
        """Lines from stdin, read in a worker thread (stdin may be a terminal, which must stay
        blocking); a thread still blocked when the run ends is abandoned."""
        async with lines_in:
            while True:
                line = await anyio.to_thread.run_sync(self.stdin.readline, abandon_on_cancel=True)
                if not line:
                    return
                if line.strip():
                    await lines_in.send(line)

    async def _first_message(
        self, lines: anyio.abc.ObjectReceiveStream[bytes]
    ) -> dict[str, Any] | None:
        """The first line that is a message; None when input ends first. The session starts
        after it, so that hooks ``initialize`` registers are in place from the start."""
        async for line in lines:
            message = await self._parse(line)
            if message is not None:
                return message
        return None

    async def _parse(self, line: bytes) -> dict[str, Any] | None:
        if too_deep(line) is not None:  # the decoder would recurse
            await self.notice(
                "error",
                f"input line skipped: JSON nested more than {MAX_DEPTH} levels deep: "
                f"{_clip(line)}; no message of docs/headless.md nests that deep",
            )
            return None
        try:
            message = _decoder.decode(line)
        except msgspec.DecodeError as error:
            await self.notice(
                "error",
                f"input line skipped: not JSON ({error}): {_clip(line)}; each line of stdin must "
                "be one JSON object (docs/headless.md)",
            )
            return None
        if not isinstance(message, dict):
            await self.notice("error", f"input line skipped: not a JSON object: {_clip(line)}")
            return None
        return message

    async def _start(self, session: Session) -> None:
        context = await session.memory.address.ask(GetContext())
        # The init line first, as docs/headless.md says; the warnings after it.
        self.renderer.emit(await init_line(session, self.options, self.mode))
        for warning in context.warnings:
            await session.ui.address.tell(Show(Notice("warning", warning)))
        if faults := (await session.skills.address.ask(ListAgents())).describe_faults():
            await session.ui.address.tell(Show(Notice("warning", faults)))
        await self.renderer.stdout.drain()

    async def _dispatch(
        self,
        message: dict[str, Any],
        requests: Requests,
        prompts: anyio.abc.ObjectSendStream[_Prompt],
        work: anyio.abc.TaskGroup,
    ) -> None:
        kind = message.get("type")
        if kind == "user":
            text, blocks, notes = prompt_text(message)
            if text is None:
                await self.notice("error", f"user message skipped: {notes[0]}")
                return
            given = message.get("uuid")
            message_id = given if isinstance(given, str) and 0 < len(given) <= 100 else ""
            message_id = message_id or str(uuid.uuid4())
            if self.options.replay_user_messages:
                await self._send(
                    {
                        "type": "user",
                        "message": message.get("message"),
                        "parent_tool_use_id": None,
                        "session_id": self.session_id,
                        "uuid": message_id,
                        "isReplay": True,
                    }
                )
            await prompts.send(_Prompt(text, notes, blocks, message_id))
        elif kind == "control_request":
            work.start_soon(requests.handle, message)
        elif kind == "control_response":
            if not self.channel.answered(message.get("response")):
                await self.notice("warning", "control_response for no waiting request; skipped")
        elif kind in ("control_cancel_request", "keep_alive", "update_environment_variables"):
            pass  # nothing of Legato's waits on the program; nothing to do
        else:
            await self.notice(
                "warning",
                f"input message of type {_clip(repr(kind).encode())} skipped: Legato reads "
                "'user', 'control_request' and 'control_response' messages",
            )

    # ── prompts ──────────────────────────────────────────────────────────────────────────

    async def _run_prompts(
        self, session: Session, prompts: anyio.abc.ObjectReceiveStream[_Prompt]
    ) -> None:
        calls = -1  # the renderer's count of calls when the sandbox was last described
        async for prompt in prompts:
            if self.stopped_by is not None:
                return
            for note in prompt.notes:
                await session.ui.address.tell(Show(Notice("warning", note)))
            text: str | None = prompt.text
            blocks = prompt.blocks
            command = None
            if session_words.named(prompt.text):  # the session's own: /undo, /rewind N...
                outcome = await self._session_command(session, prompt.text)
                self.last_failed = outcome.is_error
                await session.saved()
                await session.ui.address.tell(Show(outcome))
                continue
            if prompt.text.lstrip().startswith("/"):  # a command of the project's, as typed
                from frontends.skills.in_session import prepare_prompt

                prepared = await prepare_prompt(session, prompt.text)
                text, command = prepared.prompt, prepared.command
                blocks = (*prepared.blocks, *blocks)
            if text is None:
                outcome = self._said(prepared.said, failed=prepared.failed)
            else:
                after = None  # a command that names its model has it for its prompt alone
                if command is not None and command.model is not None:
                    after = self.model or (await session.memory.address.ask(GetContext())).model
                async with running(command, session, text, model_after=after) as text:
                    outcome = await self._run_one(session, text, blocks, prompt)
            self.last_failed = outcome.is_error
            # The result says whether commands ran confined, as headless results do. Asked
            # again only after calls ran (a command makes the sandbox's one trial) and while
            # the trial is not over: most prompts of a long session do not pay for it.
            known = self.renderer.sandbox
            if known is None or (not known.tried and self.renderer.calls != calls):
                calls = self.renderer.calls
                self.renderer.sandbox = await session.tools.address.ask(
                    DescribeSandbox(try_it=False)
                )
            await session.saved()
            await session.ui.address.tell(Show(outcome))

    async def _session_command(self, session: Session, text: str) -> TurnOutcome:
        """``/undo``, ``/compact``, ``/context``, ``/rewind N``, ``/export <file>``: run as a
        headless run runs them; what they did is the result, a bad one an error result."""
        from frontends.headless import session_commands

        home = self.options.session.home or str(await anyio.Path.home())
        try:
            said = await session_commands.run(
                session, text, project_root=self.options.session.project_root, home=home
            )
        except UsageError as error:
            return self._said(error.describe(), failed=True)
        return self._said(said, failed=False)

    def _said(self, text: str, *, failed: bool) -> TurnOutcome:
        """The outcome of a command Legato answered itself (``/help``), or could not run."""
        return TurnOutcome(
            result="" if failed else text,
            is_error=failed,
            subtype="error_during_execution" if failed else "success",
            num_turns=0,
            duration_ms=0,
            duration_api_ms=0,
            usage=Usage(),
            total_cost_usd=None,
            session_id=self.session_id,
            error=text if failed else None,
        )

    async def _run_one(
        self,
        session: Session,
        text: str,
        blocks: tuple[Block, ...] = (),
        given: _Prompt | None = None,  # as it came: what it was typed as, its uuid
    ) -> TurnOutcome:
        started = time.monotonic()
        turns, usage = self.renderer.turns, self.renderer.usage
        self.current = scope = anyio.CancelScope()
        self.interrupted = False
        conductor = session.conductor.address
        try:
            with scope:
                plan = self.mode == "plan"
                return await conductor.ask(
                    RunPrompt(
                        text=text,
                        max_turns=self.options.session.max_turns,
                        plan=plan,
                        blocks=blocks,
                        typed=None if given is None else given.text,
                        message_id="" if given is None else given.id,
                        output_schema=self.options.session.json_schema,
                    )
                )
        finally:
            self.current = None
        # Interrupted: the conductor answers this only once the prompt has let go (its tools
        # stopped and reported, the conversation closed), so the next prompt starts clean.
        with anyio.move_on_after(STOP_WAIT):
            await conductor.ask(GetConversation())
        why = "interrupted by the program's interrupt request"
        if self.stopped_by is not None:
            why = f"stopped by {self.stopped_by.name}"
        return TurnOutcome(
            result="",
            is_error=True,
            subtype="error_during_execution",
            num_turns=self.renderer.turns - turns,
            duration_ms=round((time.monotonic() - started) * 1000),
            duration_api_ms=0,
            usage=_minus(self.renderer.usage, usage),
            total_cost_usd=None,
            session_id=self.session_id,
            error=why,
        )

    def interrupt(self) -> bool:
        """Stops the running prompt; False when none runs."""
        if self.current is None or self.current.cancel_called:
            return False
        self.interrupted = True
        self.current.cancel()
        return True

    async def answer_control(self, request_id: str, response: dict[str, Any]) -> None:
        await self._send(
            {
                "type": "control_response",
                "response": {"subtype": "success", "request_id": request_id, "response": response},
            }
        )

    async def refuse_control(self, request_id: str, error: str) -> None:
        await self._send(
            {
                "type": "control_response",
                "response": {"subtype": "error", "request_id": request_id, "error": error},
            }
        )


def _initialize(message: dict[str, Any] | None) -> tuple[str, dict[str, Any]] | None:
    """The first message, when it is the SDK's ``initialize`` request: its id and body."""
    if message is None or message.get("type") != "control_request":
        return None
    body = message.get("request")
    if not isinstance(body, dict) or body.get("subtype") != "initialize":
        return None
    return str(message.get("request_id", "")), body


def _minus(total: Usage, before: Usage) -> Usage:
    return Usage(
        total.input_tokens - before.input_tokens,
        total.output_tokens - before.output_tokens,
        total.cache_creation_input_tokens - before.cache_creation_input_tokens,
        total.cache_read_input_tokens - before.cache_read_input_tokens,
    )


def _clip(line: bytes, width: int = 80) -> str:
    text = line.decode("utf-8", "replace").strip()
    text = "".join(c if c.isprintable() else "?" for c in text)
    return text if len(text) <= width else text[: width - 1] + "…"


__all__ = ["ControlError", "run_stream_json"]
