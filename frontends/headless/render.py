"""Headless output: ``text``, ``json`` and ``stream-json`` (documented in docs/headless.md).

text         the assistant's words stream to stdout as they arrive; tool activity, retries and
             errors go to stderr, so ``legato --headless ... > answer.txt`` keeps only the answer.
json         nothing until the end, then one result object shaped like Claude Code's.
stream-json  one JSON object per line: ``system`` (init), ``stream_event`` (each delta, in the
             Messages API's own event shape), ``assistant`` (each finished message), ``user``
             (each tool result), ``system`` (retries, notices), then the ``result`` object.
             A subagent's lines carry ``parent_tool_use_id``: the id of its Agent call.
"""

from __future__ import annotations

import contextlib
import time
import uuid
from typing import IO, TYPE_CHECKING, Any

import anyio
import msgspec

from actors.counts import counted
from actors.errors import EXIT_OUTPUT_CLOSED, LegatoError
from actors.models import cost_usd, resolve_model
from actors.protocol import (
    AgentEvent,
    BlockFinished,
    HookFinished,
    HookStarted,
    MessageFinished,
    MessageStarted,
    Notice,
    Retrying,
    TextDelta,
    ThinkingDelta,
    ToolFinished,
    ToolInputDelta,
    ToolStarted,
    ToolUseStarted,
    TranscriptMirrored,
    TurnOutcome,
    Usage,
)
from actors.ui import Renderer
from actors.visible import escape_controls, project_relative
from frontends.headless.framing import Framing

if TYPE_CHECKING:
    from actors.protocol import SandboxReport, UiEvent
    from frontends.headless.denials import DenialTally

_encoder = msgspec.json.Encoder()


class OutputClosed(LegatoError):
    """Whoever read stdout stopped reading (``legato ... | head``): the run stops, cleanly."""

    exit_code = EXIT_OUTPUT_CLOSED


class _Guarded:
    """Output that never makes the session wait on its reader, and survives it leaving.

    Writes are collected and leave in ``drain``, in a worker thread: a reader that is slow or
    stalled (a pager nobody scrolls) holds up that thread, never the event loop, so tools,
    streaming and Ctrl-C go on (``abandon_on_cancel``: a cancelled run does not wait for it).
    Python ignores SIGPIPE, so a reader that went away shows as ``BrokenPipeError``: on stdout
    that ends the run as SIGPIPE would (``OutputClosed``, once; later output is dropped); on
    stderr, where only notes go, the notes are dropped.

    ``visible``: what is written has its control characters escaped (actors/visible.py), for
    output a terminal shows: the model's text, a tool's output, a file's name. Legato's own
    headless output has no escape sequences, so nothing of its own is lost.
    """

    def __init__(self, stream: IO[str], *, fatal: bool, visible: bool = True) -> None:
        self._stream = stream
        self._fatal = fatal
        self._visible = visible
        self._pending: list[str] = []
        self._in_flight = False  # a worker thread is writing (perhaps blocked on a full pipe)
        self._draining: anyio.Lock | None = None  # one writer at a time keeps lines in order
        self.closed_by_reader = False

    def write(self, text: str) -> None:
        if not self.closed_by_reader:
            self._pending.append(text)  # escaped as it leaves, all pending text at once

    def _taken(self) -> str:
        """What is pending, joined and taken; escaped once for it all (the escape is made
        character by character, so this is what escaping each piece would give)."""
        text = "".join(self._pending)
        self._pending.clear()
        return escape_controls(text) if self._visible else text

    def flush(self) -> None:
        """Nothing to do here: output leaves in ``drain`` (or ``flush_now`` at the very end)."""

    async def drain(self) -> None:
        if not self._pending:
            return
        if self._draining is None:
            self._draining = anyio.Lock()
        # The UI actor and the control channel (stream-json input) both drain: one at a time,
        # each taking what is pending when its turn comes, so lines leave in the order written.
        async with self._draining:
            if not self._pending:
                return
            text = self._taken()
            self._in_flight = True
            try:
                await anyio.to_thread.run_sync(self._write_out, text, abandon_on_cancel=True)
            finally:
                self._in_flight = False

    def flush_now(self) -> None:
        """Write what is pending from this thread; for the last words, once the session is over.

        Skipped while an abandoned write is still blocked: the stream is not ours to use then.
        """
        if self._in_flight:
            return
        text = self._taken()
        with contextlib.suppress(OutputClosed):
            self._write_out(text)

    def _write_out(self, text: str) -> None:
        if self.closed_by_reader or not text:
            return
        try:
            self._stream.write(text)
            self._stream.flush()
        except (BrokenPipeError, ValueError):  # ValueError: the stream itself was closed
            self.closed_by_reader = True
            if self._fatal:
                raise OutputClosed(
                    "stdout was closed before the answer ended (its reader stopped reading); "
                    "the run was stopped",
                    remedy="Read the whole output, or use --output-format json and parse it",
                ) from None


class HeadlessRenderer(Renderer):
    """Keeps track of what is running, so an interruption can say what it stopped."""

    # Whether stdout is shown as text; the JSON formats' stdout stays exact JSON (whose
    # strings carry control characters escaped already).
    visible_stdout = True

    def __init__(self, stdout: IO[str], stderr: IO[str]) -> None:
        self.stdout = _Guarded(stdout, fatal=True, visible=self.visible_stdout)
        self.stderr = _Guarded(stderr, fatal=False)
        self.streaming = False
        self.running: dict[str, tuple[str, str, float]] = {}  # id -> (tool, summary, started)
        self.sandbox: SandboxReport | None = None  # for the result object, once known
        self.turns = 0
        self.usage = Usage()
        self.finished: tuple[str, str, float] | None = None  # the call a ToolFinished ends
        self.calls = 0  # tool calls started so far (a command's may be the sandbox's trial)
        # A ``--headless`` run's denied calls, said before its result (frontends/headless/run.py
        # sets it); ``denials_fail``: a skill or pattern run, which fails when it changed nothing.
        self.denials: DenialTally | None = None
        self.denials_fail = False

    async def show(self, event: UiEvent) -> None:
        match event:
            case MessageStarted():
                self.streaming = True
            case MessageFinished(usage=usage):
                self.streaming = False
                self.turns += 1
                self.usage = self.usage + usage
            case ToolStarted(id=call_id, name=name, summary=summary):
                self.running[call_id] = (name, summary, time.monotonic())
                self.calls += 1
            case ToolFinished(result=result):
                self.finished = self.running.pop(result.tool_use_id, None)
            case _:
                pass
        if self.denials is not None:
            self.denials.see(event)
            if isinstance(event, TurnOutcome) and (note := self.denials.report()) is not None:
                failed = self.denials_fail and self.denials.nothing_changed
                self.render(Notice("error" if failed else "warning", note))
        self.render(event)
        await self.stdout.drain()
        await self.stderr.drain()

    def render(self, event: UiEvent) -> None:
        raise NotImplementedError

    def activity(self) -> str:
        """What was going on, in a few words: 'running Bash(sleep 100) for 3.2 s'."""
        now = time.monotonic()
        parts = [
            f"{_call(name, _short(summary))} after {now - started:.1f} s"
            for name, summary, started in self.running.values()
        ]
        if parts and self.streaming:  # calls start while the answer is still streaming
            return "running " + ", ".join(parts) + " while the model was answering"
        if parts:
            return "running " + ", ".join(parts)
        if self.streaming:
            return "while the model was answering"
        return "between steps"

    def write_line(self, stream: _Guarded, obj: Any) -> None:
        stream.write(_encoder.encode(obj).decode() + "\n")
        stream.flush()


class TextRenderer(HeadlessRenderer):
    def __init__(self, stdout: IO[str], stderr: IO[str], *, root: str = "") -> None:
        super().__init__(stdout, stderr)
        self.root = root  # the project's folder, left out of the paths in tool lines
        self._ends_with_newline = True
        # Notes that came while a text block streamed (a call starts as soon as its block is
        # complete, and the text goes on): a note ends stdout's line, which would put a line
        # break in the middle of the answer, so they wait for the block's end.
        self._held: list[str] | None = None

    def render(self, event: UiEvent) -> None:
        match event:
            case TextDelta(text=text) if text:
                self.stdout.write(text)
                self.stdout.flush()
                self._ends_with_newline = text.endswith("\n")
                if self._held is None:
                    self._held = []
            case BlockFinished(block=block) if block.get("type") == "text":
                self._release()
            case MessageFinished():
                self._release()
                self._end_line()
            case ToolStarted(name=name, summary=summary):
                self._note(f"⏺ {_call(name, _short(summary))}")
            case ToolFinished(result=result, elapsed=elapsed, remedy=remedy):
                lines = result.content.strip().splitlines()
                first = project_relative(lines[0].strip(), self.root) if lines else ""
                more = f" (+{counted(len(lines) - 1, 'line')})" if len(lines) > 1 else ""
                status = "✗" if result.is_error else "✓"
                name = (
                    f"{_call(self.finished[0], _tail(self.finished[1], 40))} "
                    if self.finished
                    else ""
                )
                if result.denied:
                    # Whole: a denial's remedy comes last, where a cut would fall.
                    first, more = " ".join(result.content.split()), ""
                else:
                    first = _short(first, 80)
                self._note(f"  ⎿ {status} {name}{elapsed:.1f}s: {first}{more}")
                if remedy:
                    self._note("    → " + "\n      ".join(remedy.split("\n")))
            case Retrying(attempt=attempt, delay=delay, reason=reason):
                self._note(f"legato: {reason}; retrying in {delay:.1f} s (attempt {attempt})")
            case Notice(level=level, text=text):
                self._note(f"legato: {level}: {text}")
            case TurnOutcome(structured_output=value) if value is not None:
                # The value is what a script reads: on stdout, as JSON, on a line of its own.
                self._end_line()
                self.stdout.write(_encoder.encode(value).decode() + "\n")
                self.stdout.flush()
            case _:
                pass

    def _end_line(self) -> None:
        if not self._ends_with_newline:
            self.stdout.write("\n")
            self.stdout.flush()
            self._ends_with_newline = True

    def _note(self, line: str) -> None:
        if self._held is not None:
            self._held.append(line)
            return
        self._end_line()
        self.stderr.write(line + "\n")
        self.stderr.flush()

    def _release(self) -> None:
        held, self._held = self._held or [], None
        for line in held:
            self._note(line)

    async def close(self) -> None:
        self._release()
        self._end_line()
        with contextlib.suppress(OutputClosed):  # already reported by the write that found it
            await self.stdout.drain()


class JsonRenderer(HeadlessRenderer):
    visible_stdout = False

    def render(self, event: UiEvent) -> None:
        match event:
            case TurnOutcome():
                self.write_line(self.stdout, result_object(event, self.sandbox))
            case Notice(level="warning" | "error", text=text):
                self.stderr.write(f"legato: {text}\n")
            case _:
                pass


class StreamJsonRenderer(HeadlessRenderer):
    """One JSON line per event, each with ``uuid`` and ``session_id``, shaped as the Agent SDK
    reads Claude Code's (docs/headless.md): stream events only when asked for, hook lines only
    when asked for (or outside the SDK), assistant messages with their id and model, and a
    result with the stop reason and the usage of each model."""

    visible_stdout = False

    def __init__(
        self,
        stdout: IO[str],
        stderr: IO[str],
        session_id: str,
        *,
        partial: bool = False,
        hook_events: bool = True,
    ) -> None:
        super().__init__(stdout, stderr)
        self.session_id = session_id
        self.partial = partial  # stream_event lines (--include-partial-messages)
        self.hook_events = hook_events
        self.ledger = UsageLedger()
        # The results' running total: each result's total_cost_usd covers every prompt so
        # far, as the reference's does in streaming input mode. A result of unknown cost (a
        # command Legato answered, a model without prices) adds nothing to it.
        self.spent: float | None = None
        self.framing = Framing()  # the API's block and message events around the deltas

    def emit(self, obj: dict[str, Any], parent: str | None = None) -> None:
        obj["parent_tool_use_id"] = parent
        obj["session_id"] = self.session_id
        obj["uuid"] = str(uuid.uuid4())
        self.write_line(self.stdout, obj)

    def render(self, event: UiEvent) -> None:
        if isinstance(event, TranscriptMirrored):
            # The saved lines as they are: the program's store keeps exactly what a resume reads.
            entries = [msgspec.Raw(line) for line in event.lines.splitlines()]
            mirrored = {"type": "transcript_mirror", "filePath": event.file_path}
            self.write_line(self.stdout, {**mirrored, "entries": entries})
            return
        if isinstance(event, TurnOutcome):
            result = result_object(event, self.sandbox)
            result.update(self.ledger.close())
            if event.total_cost_usd is not None:
                self.spent = (self.spent or 0.0) + event.total_cost_usd
            result["total_cost_usd"] = self.spent
            result["errors"] = [event.error] if event.error else []
            result["uuid"] = str(uuid.uuid4())
            self.write_line(self.stdout, result)
            return
        parent: str | None = None
        model: str | None = None
        if isinstance(event, AgentEvent):
            # A subagent's line, tied to the Agent call that started it, as the Agent SDK
            # reads it.
            parent, model, event = event.parent_tool_use_id, event.model, event.event
        if isinstance(event, MessageStarted):
            self.ledger.started(parent, event.id, model or event.model)
        elif isinstance(event, MessageFinished):
            message_id, model = self.ledger.finished(parent, event.usage, event.stop_reason)
            for api_event in self.framing.ended(event, parent) if self.partial else ():
                self.emit({"type": "stream_event", "event": api_event}, parent)
            self.emit(_assistant(event, message_id, model), parent)
            return
        if isinstance(event, HookStarted | HookFinished) and not self.hook_events:
            return
        for api_event in self.framing.before(event, parent) if self.partial else ():
            self.emit({"type": "stream_event", "event": api_event}, parent)
        line = _line(event, partial=self.partial)
        if line is not None:
            self.emit(line, parent)


class UsageLedger:
    """Which message is streaming in each conversation (the main one, each subagent's), and
    the tokens and cost of each model over the prompt, for the result's ``modelUsage``."""

    def __init__(self) -> None:
        self._streaming: dict[str | None, tuple[str, str]] = {}  # parent -> (id, model)
        self._models: dict[str, Usage] = {}
        self.stop_reason: str | None = None

    def started(self, parent: str | None, message_id: str, model: str) -> None:
        self._streaming[parent] = (message_id, model)

    def finished(
        self, parent: str | None, usage: Usage, stop_reason: str | None
    ) -> tuple[str, str]:
        message_id, model = self._streaming.get(parent, ("", ""))
        self._models[model] = self._models.get(model, Usage()) + usage
        if parent is None:
            self.stop_reason = stop_reason
        return message_id, model

    def close(self) -> dict[str, Any]:
        """The result's fields of the prompt that ended. ``modelUsage`` is the running total
        of the whole process, as the reference's is in streaming input mode (its ``usage`` is
        the prompt's alone)."""
        per_model = {}
        for model_id, usage in self._models.items():
            model = resolve_model(model_id) if model_id else None
            per_model[model_id] = {
                "inputTokens": usage.input_tokens,
                "outputTokens": usage.output_tokens,
                "cacheReadInputTokens": usage.cache_read_input_tokens,
                "cacheCreationInputTokens": usage.cache_creation_input_tokens,
                "webSearchRequests": 0,
                "costUSD": (cost_usd(model, usage) if model is not None else None) or 0.0,
                "contextWindow": model.context_window if model is not None else 0,
            }
        fields = {"stop_reason": self.stop_reason, "modelUsage": per_model}
        self.stop_reason = None
        return fields


def _assistant(event: MessageFinished, message_id: str, model: str) -> dict[str, Any]:
    return {
        "type": "assistant",
        "message": {
            "id": message_id,
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": event.message.content,
            "stop_reason": event.stop_reason,
            "stop_sequence": None,
            "usage": msgspec.to_builtins(event.usage),
        },
    }


def _line(event: UiEvent, *, partial: bool) -> dict[str, Any] | None:
    """The stream-json line for an event, without its ids; None: no line."""
    api_event = _api_event(event)
    if api_event is not None:
        return {"type": "stream_event", "event": api_event} if partial else None
    match event:
        case ToolStarted(id=call_id, name=name, summary=summary):
            return {"type": "system", "subtype": "tool_started", "tool_use_id": call_id,
                    "tool_name": name, "summary": summary}  # fmt: skip
        case ToolFinished(result=result, elapsed=elapsed):
            return {
                "type": "user",
                "message": {"role": "user", "content": [result.block()]},
                "elapsed_ms": round(elapsed * 1000),
            }
        case Retrying(attempt=attempt, delay=delay, reason=reason):
            return {"type": "system", "subtype": "api_retry", "attempt": attempt,
                    "retry_delay_ms": round(delay * 1000), "error": reason}  # fmt: skip
        case Notice(level=level, text=text):
            return {"type": "system", "subtype": "notice", "level": level, "text": text}
        case HookStarted(id=hook_id, name=name, event=hook_event):
            # Claude Code's names for a hook's start and end.
            return {"type": "system", "subtype": "hook_started", "hook_id": hook_id,
                    "hook_name": name, "hook_event": hook_event}  # fmt: skip
        case HookFinished() as ended:
            return {
                "type": "system",
                "subtype": "hook_response",
                "hook_id": ended.id,
                "hook_name": ended.name,
                "hook_event": ended.event,
                "output": ended.stdout + ended.stderr,
                "stdout": ended.stdout,
                "stderr": ended.stderr,
                "exit_code": ended.exit_code,
                "outcome": ended.outcome,
            }
        case _:
            return None


def _api_event(event: UiEvent) -> dict[str, Any] | None:
    """Deltas in the Messages API's own stream shape, as Claude Code's stream_event carries."""
    match event:
        case MessageStarted(id=message_id, model=model):
            return {"type": "message_start", "message": {"id": message_id, "model": model}}
        case TextDelta(index=index, text=text):
            delta: dict[str, Any] = {"type": "text_delta", "text": text}
        case ThinkingDelta(index=index, thinking=thinking):
            delta = {"type": "thinking_delta", "thinking": thinking}
        case ToolInputDelta(index=index, partial_json=partial):
            delta = {"type": "input_json_delta", "partial_json": partial}
        case ToolUseStarted(index=index, id=call_id, name=name):
            return {
                "type": "content_block_start",
                "index": index,
                "content_block": {"type": "tool_use", "id": call_id, "name": name, "input": {}},
            }
        case BlockFinished(index=index):
            return {"type": "content_block_stop", "index": index}
        case _:
            return None
    return {"type": "content_block_delta", "index": index, "delta": delta}


def result_object(outcome: TurnOutcome, sandbox: SandboxReport | None = None) -> dict[str, Any]:
    """The final result, field for field like Claude Code's ``--output-format json``, and
    ``sandbox``: whether the session's commands run confined (``active`` is null while the
    session's trial of the sandbox has not finished), and under Landlock, what it does not
    enforce."""
    obj: dict[str, Any] = {
        "type": "result",
        "subtype": outcome.subtype,
        "is_error": outcome.is_error,
        "duration_ms": outcome.duration_ms,
        "duration_api_ms": outcome.duration_api_ms,
        "num_turns": outcome.num_turns,
        "result": outcome.result,
        "session_id": outcome.session_id,
        "total_cost_usd": outcome.total_cost_usd,
        "usage": msgspec.to_builtins(outcome.usage),
        "permission_denials": list(outcome.permission_denials),
    }
    if outcome.error:
        obj["error"] = outcome.error
    if outcome.structured_output is not None:
        obj["structured_output"] = outcome.structured_output
    if sandbox is not None:
        obj["sandbox"] = {
            "active": sandbox.active if sandbox.tried else None,
            "mechanism": sandbox.mechanism,
            "not_enforced": list(sandbox.not_enforced),
            "not_enforced_because": sandbox.why_not,
        }
    return obj


def _call(name: str, target: str) -> str:
    """A tool line's call: ``Edit(greet.py)``, or the name alone when nothing names a target;
    an MCP tool's summary (``toy: shout {"text": "ab"}``) alone, since it names the server and
    the tool that ``mcp__toy__shout`` would name again."""
    if name.startswith("mcp__") and target:
        return target
    return f"{name}({target})" if target else name


def _short(text: str, width: int = 80) -> str:
    line = " ".join(text.split())
    return line if len(line) <= width else line[: width - 1] + "…"


def _tail(text: str, width: int) -> str:
    """The end of a long path or command, which is the part that tells calls apart."""
    line = " ".join(text.split())
    return line if len(line) <= width else "…" + line[-(width - 1) :]


def renderer_for(
    output_format: str,
    stdout: IO[str],
    stderr: IO[str],
    session_id: str,
    *,
    partial: bool = False,
    root: str = "",
) -> HeadlessRenderer:
    if output_format == "json":
        return JsonRenderer(stdout, stderr)
    if output_format == "stream-json":
        return StreamJsonRenderer(stdout, stderr, session_id, partial=partial)
    return TextRenderer(stdout, stderr, root=root)
