"""What the scripted server plays: one ``Step`` per ``POST /v1/messages``, in order.

A step is either a streamed answer (thinking, text, raw blocks, tool calls, in the API's block
order), possibly cut short or failing mid-stream, or a plain HTTP error. Steps are msgspec
Structs so that JSON scripts (``python -m frontends.demo.scripted_api --script FILE``) decode into
exactly the same thing the constructors below build, with typos caught by field name.

The API's server-side web search is a step of raw ``blocks`` (``server_tool_use``,
``web_search_tool_result``, a text citing them) and ``stop_reason`` (``pause_turn`` for a paused
search): ``web_search(...)`` in ``web_search.py`` builds it, sealing each result so that the
server can refuse a request that sends it back changed; a JSON script copies its ``blocks``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import msgspec

USAGE_FIELDS = frozenset(
    {"input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"}
)

# The error type the real API sends with each status (the Messages API's error documentation).
ERROR_TYPES: dict[int, str] = {
    400: "invalid_request_error",
    401: "authentication_error",
    402: "billing_error",
    403: "permission_error",
    404: "not_found_error",
    409: "conflict_error",
    413: "request_too_large",
    429: "rate_limit_error",
    500: "api_error",
    504: "timeout_error",
    529: "overloaded_error",
}
STATUS_OF_ERROR_TYPE = {error_type: status for status, error_type in ERROR_TYPES.items()}

DEFAULT_MESSAGES: dict[str, str] = {
    "invalid_request_error": "Invalid request",
    "authentication_error": "invalid x-api-key",
    "billing_error": "Your credit balance is too low to access the Anthropic API",
    "permission_error": "Your API key does not have permission to use the specified resource",
    "not_found_error": "Not found",
    "conflict_error": "Conflict",
    "request_too_large": "Request exceeds the maximum allowed number of bytes",
    "rate_limit_error": "Number of requests has exceeded your rate limit",
    "api_error": "Internal server error",
    "timeout_error": "Request timed out",
    "overloaded_error": "Overloaded",
}


class ScriptError(ValueError):
    """A step (or a script file) that cannot be played; the message names the step and field."""


class ToolCall(msgspec.Struct, frozen=True, forbid_unknown_fields=True):
    """One ``tool_use`` block. Without ``id`` the server makes one that is unique per request."""

    name: str
    input: dict[str, Any] = msgspec.field(default_factory=dict)
    id: str | None = None

    def __post_init__(self) -> None:
        if not self.name:
            raise ValueError("a tool call needs a non-empty name")


class HttpError(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """A plain HTTP error answer with the API's JSON error body."""

    status: int = 429
    error_type: str | None = None  # None: the API's type for ``status``
    message: str | None = None  # None: a message like the API's for the type
    retry_after: float | None = None  # seconds, sent as ``retry-after``
    retry_after_ms: float | None = None  # sent as ``retry-after-ms``
    should_retry: bool | None = None  # sent as ``x-should-retry: true|false``

    def __post_init__(self) -> None:
        if not 400 <= self.status <= 599:
            raise ValueError(f"status {self.status} is not an HTTP error (400-599)")

    @property
    def api_type(self) -> str:
        """The error type sent: ``error_type``, or the API's type for ``status``."""
        if self.error_type is not None:
            return self.error_type
        return ERROR_TYPES.get(
            self.status, "api_error" if self.status >= 500 else "invalid_request_error"
        )

    @property
    def api_message(self) -> str:
        """The message sent: ``message``, or one like the API's for the type."""
        return (
            self.message
            if self.message is not None
            else DEFAULT_MESSAGES.get(self.api_type, "Error")
        )


class Gate(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """Hold the stream before block ``before_block`` starts until the file ``path`` exists.

    For tests that prove an order: a tool call's command creates the file, and the rest of the
    answer is sent only once it has, so the answer cannot finish before the call ran. Should the
    file not appear within ``timeout`` seconds (a safety net, not a measurement), the stream
    ends with an ``api_error`` saying so.
    """

    path: str
    before_block: int
    timeout: float = 10.0

    def __post_init__(self) -> None:
        if self.before_block < 1:
            raise ValueError(f"a gate holds a block after the first, got {self.before_block}")
        if self.timeout <= 0:
            raise ValueError(f"a gate's timeout must be positive, got {self.timeout}")


class Step(msgspec.Struct, frozen=True, kw_only=True, forbid_unknown_fields=True):
    """One scripted answer. Blocks stream in the order thinking, text, ``blocks``, tool calls."""

    text: str | None = None
    thinking: str | None = None
    signature: str | None = None  # None with thinking: a deterministic one derived from it
    blocks: tuple[dict[str, Any], ...] = ()  # raw content blocks sent as-is (start + stop)
    tool_calls: tuple[ToolCall, ...] = ()
    chunk_words: int = 1  # words per text_delta / thinking_delta
    delay: float = 0.0  # seconds between SSE events
    stop_reason: str | None = None  # None: "tool_use" with tool calls, else "end_turn"
    stop_sequence: str | None = None
    usage: dict[str, int] | None = None  # overrides the computed token counts
    cut_after: int | None = None  # close the connection after this many SSE events
    stream_error: tuple[str, str] | None = None  # (error type, message) as ``event: error``
    error_after: int | None = None  # events before the error; None: after the last block
    error: HttpError | None = None  # answer with this HTTP error instead of a stream
    gate: Gate | None = None  # hold the stream until a file exists (see Gate)

    def __post_init__(self) -> None:
        has_content = (
            self.text is not None or self.thinking is not None or self.blocks or self.tool_calls
        )
        if self.error is not None and (
            has_content
            or self.cut_after is not None
            or self.stream_error is not None
            or self.gate is not None
        ):
            raise ValueError(
                "an error step cannot also have content, cut_after, stream_error or a gate"
            )
        if self.signature is not None and self.thinking is None:
            raise ValueError("signature needs thinking")
        if self.chunk_words < 1:
            raise ValueError(f"chunk_words must be at least 1, got {self.chunk_words}")
        if self.delay < 0:
            raise ValueError(f"delay must not be negative, got {self.delay}")
        for name, count in (("cut_after", self.cut_after), ("error_after", self.error_after)):
            if count is not None and count < 0:
                raise ValueError(f"{name} must not be negative, got {count}")
        if self.error_after is not None and self.stream_error is None:
            raise ValueError("error_after needs stream_error")
        if self.cut_after is not None and self.stream_error is not None:
            raise ValueError("a step is either cut (cut_after) or fails (stream_error), not both")
        for index, block in enumerate(self.blocks):
            if not isinstance(block.get("type"), str):
                raise ValueError(f"blocks[{index}] needs a string 'type'")
        if self.usage is not None and (unknown := sorted(set(self.usage) - USAGE_FIELDS)):
            raise ValueError(f"unknown usage field(s) {unknown}; known: {sorted(USAGE_FIELDS)}")

    @property
    def final_stop_reason(self) -> str:
        if self.stop_reason is not None:
            return self.stop_reason
        if self.stop_sequence is not None:
            return "stop_sequence"
        return "tool_use" if self.tool_calls else "end_turn"


class RecordedRequest(msgspec.Struct, frozen=True):
    """One request as the server saw it; ``body`` is the parsed JSON, or None if it was not JSON."""

    method: str
    path: str
    headers: dict[str, str]  # names lower-cased; repeated headers joined with ", "
    body: Any


Script = Sequence[Step | Mapping[str, Any]] | Callable[[RecordedRequest], Step | Mapping[str, Any]]
"""The steps in order, or a function that picks the step from the request it answers."""


def to_step(value: Step | Mapping[str, Any], where: str = "step") -> Step:
    """A Step from a Step or its dict form (JSON scripts); ScriptError names the bad field."""
    if isinstance(value, Step):
        return value
    try:
        return msgspec.convert(value, Step)
    except msgspec.ValidationError as exc:
        raise ScriptError(f"{where}: {exc}") from None


def to_steps(values: Sequence[Step | Mapping[str, Any]]) -> list[Step]:
    return [to_step(value, f"step {number}") for number, value in enumerate(values, 1)]


def call(name: str, input: Mapping[str, Any] | None = None, *, id: str | None = None) -> ToolCall:
    """One tool call for ``tool_calls``: ``call("Read", {"file_path": "/x"})``."""
    return ToolCall(name, dict(input or {}), id)


def text(
    text: str,
    *,
    chunk_words: int = 1,
    delay: float = 0.0,
    stop_reason: str = "end_turn",
    usage: Mapping[str, int] | None = None,
    thinking: str | None = None,
    signature: str | None = None,
    cut_after: int | None = None,
    stream_error: tuple[str, str] | None = None,
    error_after: int | None = None,
) -> Step:
    """A streamed text answer, ``chunk_words`` words per text_delta."""
    return _build(
        text=text,
        thinking=thinking,
        signature=signature,
        chunk_words=chunk_words,
        delay=delay,
        stop_reason=stop_reason,
        usage=dict(usage) if usage is not None else None,
        cut_after=cut_after,
        stream_error=stream_error,
        error_after=error_after,
    )


def tool_calls(
    calls: Sequence[ToolCall],
    text: str | None = None,
    *,
    chunk_words: int = 1,
    delay: float = 0.0,
    stop_reason: str = "tool_use",
    usage: Mapping[str, int] | None = None,
    thinking: str | None = None,
    signature: str | None = None,
    cut_after: int | None = None,
    stream_error: tuple[str, str] | None = None,
    error_after: int | None = None,
    gate: Gate | None = None,
) -> Step:
    """An optional text block, then one tool_use block per call; stop_reason "tool_use"."""
    return _build(
        gate=gate,
        text=text,
        tool_calls=tuple(calls),
        thinking=thinking,
        signature=signature,
        chunk_words=chunk_words,
        delay=delay,
        stop_reason=stop_reason,
        usage=dict(usage) if usage is not None else None,
        cut_after=cut_after,
        stream_error=stream_error,
        error_after=error_after,
    )


def error(
    status: int = 429,
    error_type: str | None = None,
    message: str | None = None,
    *,
    retry_after: float | None = None,
    retry_after_ms: float | None = None,
    should_retry: bool | None = None,
) -> Step:
    """A plain HTTP error; type and message default to the API's for ``status``."""
    try:
        reply = HttpError(
            status=status,
            error_type=error_type,
            message=message,
            retry_after=retry_after,
            retry_after_ms=retry_after_ms,
            should_retry=should_retry,
        )
    except ValueError as exc:
        raise ScriptError(str(exc)) from None
    return _build(error=reply)


def _build(**fields: Any) -> Step:
    # A ValueError from __post_init__ is a mistake in the script, reported in its own words.
    try:
        return Step(**fields)
    except ValueError as exc:
        raise ScriptError(str(exc)) from None
