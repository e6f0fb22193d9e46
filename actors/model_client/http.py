"""The HTTP side of one request: the body and headers sent, and the error an answer maps to."""

from __future__ import annotations

import errno
import operator
import os
from typing import TYPE_CHECKING

import httpx
import msgspec

from actors.errors import (
    ApiError,
    AuthenticationError,
    ConnectionFailed,
    RateLimited,
    RequestRejected,
    ServerError,
)
from actors.model_client import wire
from actors.model_client.endpoint import CONFIG_FILE, key_remedy
from actors.protocol import ModelRequest

if TYPE_CHECKING:
    from collections.abc import Mapping

    from actors.model_client.endpoint import Endpoint
    from actors.protocol import Message

ANTHROPIC_VERSION = "2023-06-01"
FAST_MODE_BETA = "fast-mode-2026-02-01"

_DECODE_ERROR_BODY = msgspec.json.Decoder(wire.ErrorBody)

# Remedies for the rejections a user can fix; the others are Legato's own mistakes.
_REJECTION_REMEDIES = {
    402: "Check the billing settings of the account the API key belongs to",
    404: "Check the model name (--model, /model) and ASSISTANT_BASE_URL",
    413: "The conversation is too large: start a fresh one with /clear",
}


class _StreamingRequest(ModelRequest, frozen=True, kw_only=True):
    """The request as sent: ``ModelRequest``'s fields plus ``stream``, which has no default so
    that ``omit_defaults`` cannot drop it."""

    stream: bool


def encode_body(request: ModelRequest) -> bytes:
    fields = msgspec.structs.asdict(request)  # shallow: the messages are not copied
    return msgspec.json.encode(_StreamingRequest(**fields, stream=True))


class BodyEncoder:
    """``encode_body``, byte for byte, re-using the previous request's encoded messages.

    Each request re-sends the conversation, and all but its last few messages are the very
    objects the previous request sent (frozen; the conductor only appends, and the caching
    marks copy the two messages they change). Encoding them again walks thousands of small
    objects scattered over the heap, which in a 1,000-turn session costs more than the rest of
    the turn. So each message's JSON is kept, for the longest run of identical messages at the
    start, and only the messages after it are encoded. Identity only (``is``): an equal dict
    can differ in key order, hence in JSON. The previous messages are held, so no ``id`` is
    reused meanwhile.

    The body is joined once from the pieces: the history's JSON is copied once per request
    (a 1,000-turn history is ~400 KB, and each copy of that size costs more than encoding the
    newest messages).
    """

    def __init__(self) -> None:
        self._sent: list[Message] = []
        self._parts: list[bytes] = []  # each message of ``_sent`` as JSON, after the first with
        # the comma that separates it from the one before
        self.messages_encoded = 0  # for tests: the work must not grow with the conversation

    def encode(self, request: ModelRequest) -> bytes:
        messages = request.messages
        # Compared in C: the pointers only, no message is looked into.
        kept = [*map(operator.is_, messages, self._sent), False].index(False)
        parts = self._parts[:kept]
        for message in messages[kept:]:
            encoded = msgspec.json.encode(message)
            parts.append(b"," + encoded if parts else encoded)
        self.messages_encoded += len(messages) - kept
        self._sent, self._parts = list(messages), parts
        fields = msgspec.structs.asdict(request)
        # The rest of the request around a mark that JSON cannot hold (a NUL byte is always
        # escaped), where the messages go.
        fields["messages"] = msgspec.Raw(_HOLE)
        head, tail = msgspec.json.encode(_StreamingRequest(**fields, stream=True)).split(_HOLE)
        return b"".join([head, b"[", *parts, b"]", tail])


_HOLE = b"\0"


def request_headers(endpoint: Endpoint, request: ModelRequest) -> dict[str, str]:
    headers = {
        "x-api-key": endpoint.api_key or "",
        "anthropic-version": ANTHROPIC_VERSION,
        "content-type": "application/json",
        "accept": "text/event-stream",
    }
    if request.speed == "fast":
        headers["anthropic-beta"] = FAST_MODE_BETA
    return headers


def check_address(endpoint: Endpoint) -> None:
    """A base URL that is not http(s) can never work: say so before trying it."""
    if not endpoint.base_url.startswith(("http://", "https://")):
        where = endpoint.base_url_source or "The API address"
        raise ConnectionFailed(
            f"{where} is {endpoint.base_url!r}, which is not an http:// or https:// address",
            remedy="Set ASSISTANT_BASE_URL to an address such as https://api.anthropic.com, "
            "or unset it to use that default",
        )


def no_key_error() -> AuthenticationError:
    return AuthenticationError(
        f"No API key is set: ASSISTANT_API_KEY, apiKey in {CONFIG_FILE} and ANTHROPIC_API_KEY "
        "are all empty",
        remedy="Set ASSISTANT_API_KEY to your API key: export ASSISTANT_API_KEY=<your key>",
    )


def status_error(
    endpoint: Endpoint, status: int, headers: Mapping[str, str], body: bytes
) -> ApiError:
    """The error for an HTTP error response, once retrying is over (or not allowed)."""
    request_id = headers.get("request-id")
    kind, text = _error_body(status, body)
    detail = endpoint.redact(f"HTTP {status} {kind}: {text}" if text else f"HTTP {status} {kind}")
    if status in (401, 403):
        source = endpoint.key_source or "the configuration"
        what = "rejected" if status == 401 else "does not allow this request with"
        return AuthenticationError(
            f"The API at {endpoint.base_url} {what} the API key from {source} ({detail})",
            status=status,
            request_id=request_id,
            remedy=key_remedy(endpoint.key_source),
        )
    if status in (429, 529):
        return RateLimited(
            f"The API is rate limiting or overloaded ({detail})",
            status=status,
            request_id=request_id,
        )
    if status >= 500:
        return ServerError(
            f"The API failed to answer ({detail})", status=status, request_id=request_id
        )
    return RequestRejected(
        f"The API rejected the request ({detail})",
        status=status,
        request_id=request_id,
        remedy=_REJECTION_REMEDIES.get(status),
    )


def connection_error(
    endpoint: Endpoint,
    url: str,
    error: httpx.HTTPError,
    request_id: str | None = None,
    *,
    reason: str | None = None,
) -> ConnectionFailed:
    """The error for a request that reached no answer: through a proxy, the proxy is the part
    that failed (the API was never tried), so it is named, with the variable that set it.
    ``reason`` replaces the system's words (a connect timeout's "no connection within 10 s")."""
    reason = reason or connection_reason(error)
    proxy = endpoint.proxy
    connecting = httpx.ConnectError | httpx.ConnectTimeout | httpx.ProxyError
    if proxy is None or not isinstance(error, connecting):
        return ConnectionFailed(
            f"Could not reach the API at {url}: {reason}", request_id=request_id
        )
    remedy = (
        f"Check that the proxy at {proxy} is running and {proxy.variable} names it "
        f"(echo ${proxy.variable}); unset {proxy.variable} to connect directly"
    )
    if isinstance(error, httpx.ProxyError):
        what = f"the proxy {proxy} (set by {proxy.variable}) would not open a tunnel: {reason}"
    elif reason.startswith(f"[Errno {errno.ECONNREFUSED}]"):
        what = f"the proxy {proxy} refused the connection (set by {proxy.variable})"
    else:
        what = f"the proxy {proxy} (set by {proxy.variable}) could not be reached: {reason}"
    return ConnectionFailed(
        f"Could not reach the API at {url}: {what}", request_id=request_id, remedy=remedy
    )


def connection_reason(error: httpx.HTTPError) -> str:
    """Why a connection failed, as the system says it ("[Errno 111] Connection refused"): an
    async connect wraps that in words of its own ("All connection attempts failed")."""
    causes: list[BaseException] = [error]
    seen: set[int] = set()
    while causes:
        cause = causes.pop(0)
        if id(cause) in seen:
            continue
        seen.add(id(cause))
        if isinstance(cause, OSError) and cause.errno is not None and cause.errno > 0:
            return f"[Errno {cause.errno}] {os.strerror(cause.errno)}"
        if isinstance(cause, BaseExceptionGroup):
            causes += cause.exceptions
        causes += [c for c in (cause.__cause__, cause.__context__) if c is not None]
    return str(error) or type(error).__name__


def _error_body(status: int, body: bytes) -> tuple[str, str]:
    """The API's error type and message; a proxy's HTML page gives its first line instead."""
    try:
        error = _DECODE_ERROR_BODY.decode(body).error
    except msgspec.DecodeError:
        first_line = body.decode("utf-8", errors="replace").strip().split("\n", 1)[0]
        return "error", first_line[:200]
    return error.type, error.message
