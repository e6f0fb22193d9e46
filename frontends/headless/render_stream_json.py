"""``--output-format stream-json``: one JSON object per line: ``system`` (init),
``stream_event`` (each delta, in the Messages API's own event shape), ``assistant`` (each
finished message), ``user`` (each tool result), ``system`` (retries, notices), then the
``result`` object. A subagent's lines carry ``parent_tool_use_id``: the id of its Agent call."""

from __future__ import annotations

import uuid
from typing import IO, TYPE_CHECKING, Any

import msgspec

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
from frontends.headless.framing import Framing
from frontends.headless.render import HeadlessRenderer
from frontends.headless.render_json import result_object

if TYPE_CHECKING:
    from actors.protocol import UiEvent


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
