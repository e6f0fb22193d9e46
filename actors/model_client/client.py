"""One streamed Messages API call, with the SDKs' retry rules, reporting through a callback.

Retrying is only safe while the caller has seen nothing of the answer: once a content event
went out, a failure is a ``StreamFailed`` and the caller decides (``MessageStarted`` alone
does not count; a ``Retrying`` event tells the caller to forget it).

Other providers (``providers/``) subclass ``MessagesClient`` and override the four wire hooks
(``prepare``, ``status_failure``, ``decoders`` and ``content_type``); retrying, timeouts and
streaming stay here, shared.
"""

from __future__ import annotations

import math
import random
import time
from typing import TYPE_CHECKING, Any, Protocol

import anyio
import httpx

from actors import telemetry
from actors.errors import ApiError, ConnectionFailed, StreamFailed
from actors.model_client import http, retry
from actors.model_client.assembler import MessageAssembler
from actors.model_client.coalesce import coalesce
from actors.model_client.sse import SSEDecoder
from actors.models import cost_usd, resolve_model
from actors.protocol import MessageStarted, Retrying

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

    from actors.model_client.endpoint import Endpoint
    from actors.protocol import MessageFinished, ModelEvent, ModelRequest
    from actors.telemetry.otel import Telemetry
    from runtime import Tracer

    Emit = Callable[[ModelEvent], Awaitable[None]]


class Decoder(Protocol):
    """Body bytes -> the provider's events (SSE events, event-stream frames)."""

    def feed(self, chunk: bytes, /) -> list[Any]: ...
    def finish(self) -> list[Any]: ...


class Assembler(Protocol):
    """The provider's events -> ``ModelEvent``s, ending in ``MessageFinished``."""

    finished: MessageFinished | None

    def feed(self, event: Any, /) -> list[ModelEvent]: ...
    def end(self) -> MessageFinished: ...


CONNECT_TIMEOUT = 10.0
DRAIN_GRACE = 0.2  # seconds to wait for the body's end after message_stop


class _Retryable(Exception):
    """An attempt failed in a way worth another try; ``error`` is raised if none is left."""

    def __init__(self, error: ApiError, reason: str, wait: float | None = None) -> None:
        super().__init__(reason)
        self.error = error
        self.reason = reason
        self.wait = wait  # what the server asked for, if anything


class MessagesClient:
    content_type = "text/event-stream"  # what a streaming answer's content type starts with

    def __init__(
        self,
        http_client: httpx.AsyncClient,
        endpoint: Endpoint,
        *,
        max_retries: int = 2,
        read_timeout: float = 60.0,
        jitter: Callable[[], float] = random.random,
        sleep: Callable[[float], Awaitable[None]] = anyio.sleep,
        tracer: Tracer | None = None,
    ) -> None:
        self.endpoint = endpoint
        self._tracer = tracer
        self.max_retries = max_retries
        self.read_timeout = read_timeout
        self._http = http_client
        self._jitter = jitter
        self._sleep = sleep  # anyio.sleep: cancellable, and virtual under trio's MockClock
        self._timeout = httpx.Timeout(read_timeout, connect=CONNECT_TIMEOUT)
        self._body = http.BodyEncoder()  # a session's requests share their history

    def __repr__(self) -> str:
        return f"MessagesClient({self.endpoint!r})"

    async def stream(self, request: ModelRequest, emit: Emit) -> MessageFinished:
        """Stream one message through ``emit``; returns (and emits last) ``MessageFinished``."""
        if telemetry.current is not None:
            return await self._exported(telemetry.current, request, emit)
        return await self._stream(request, emit)

    async def _exported(
        self, exported: Telemetry, request: ModelRequest, emit: Emit
    ) -> MessageFinished:
        """``_stream`` in a request span, its usage and cost counted (retries included)."""
        span = exported.request_started(request.model)
        started = time.monotonic()
        try:
            finished = await self._stream(request, emit)
        except BaseException as error:
            took = round((time.monotonic() - started) * 1000)
            cancelled = isinstance(error, anyio.get_cancelled_exc_class())
            reason = "interrupted" if cancelled else type(error).__name__
            status = error.status if isinstance(error, ApiError) else None
            exported.request_failed(span, request.model, reason, took, status)
            raise
        took = round((time.monotonic() - started) * 1000)
        cost = cost_usd(resolve_model(request.model), finished.usage)
        exported.request_finished(span, request.model, finished.usage, cost, took)
        return finished

    async def _stream(self, request: ModelRequest, emit: Emit) -> MessageFinished:
        url, body, headers = self.prepare(request)
        retries = 0
        while True:
            try:
                return await self._attempt(url, body, headers, _Attempt(emit))
            except _Retryable as failure:
                if retries >= self.max_retries:
                    raise failure.error from None
                delay = failure.wait if failure.wait is not None else self._backoff(retries)
                retries += 1
                if self._tracer is not None:
                    self._tracer(
                        "retry", {"attempt": retries, "delay": delay, "reason": failure.reason}
                    )
                await emit(Retrying(attempt=retries, delay=delay, reason=failure.reason))
                await self._sleep(delay)

    # -- the wire hooks, one provider each ------------------------------------------------------

    def prepare(self, request: ModelRequest) -> tuple[str, bytes, dict[str, str]]:
        """The URL, body and headers to POST; raises for a request that cannot be sent."""
        if not self.endpoint.api_key:
            raise http.no_key_error()
        http.check_address(self.endpoint)
        return (
            self.endpoint.messages_url,
            self._body.encode(request),
            http.request_headers(self.endpoint, request),
        )

    def status_failure(self, status: int, headers: httpx.Headers, body: bytes) -> ApiError:
        return http.status_error(self.endpoint, status, headers, body)

    def decoders(self, request_id: str | None) -> tuple[Decoder, Assembler]:
        return SSEDecoder(), MessageAssembler(request_id=request_id)

    # -- shared by every provider -------------------------------------------------------------

    def _backoff(self, retries_made: int) -> float:
        return retry.backoff(retries_made, self._jitter)

    async def _attempt(
        self, url: str, body: bytes, headers: dict[str, str], attempt: _Attempt
    ) -> MessageFinished:
        started = time.monotonic()
        if self._tracer is not None:
            self._tracer("request", {"url": url, "headers": headers, "bytes": len(body)})
        try:
            async with self._http.stream(
                "POST", url, content=body, headers=headers, timeout=self._timeout
            ) as response:
                attempt.request_id = response.headers.get("request-id")
                if self._tracer is not None:
                    self._tracer(
                        "response",
                        {
                            "url": url,
                            "status": response.status_code,
                            "request_id": attempt.request_id,
                        },
                    )
                if response.status_code >= 400:
                    raise self._status_failure(response, await response.aread())
                finished = await self._read_stream(url, response, attempt)
                if self._tracer is not None:
                    self._tracer(
                        "finished",
                        {
                            "stop_reason": finished.stop_reason,
                            "input_tokens": finished.usage.input_tokens,
                            "output_tokens": finished.usage.output_tokens,
                            "speed": finished.usage.speed,
                            "ms": f"{(time.monotonic() - started) * 1000:.0f}",
                        },
                    )
                return finished
        except httpx.TimeoutException as exc:
            if attempt.content:
                raise StreamFailed(
                    f"The API at {url} stopped sending the answer partway "
                    f"(nothing for {self.read_timeout:g} s)",
                    request_id=attempt.request_id,
                ) from None
            problem = _timeout_problem(exc, self.read_timeout)
            if isinstance(exc, httpx.ConnectTimeout):
                failure = http.connection_error(
                    self.endpoint, url, exc, attempt.request_id, reason=problem
                )
                raise _Retryable(failure, problem) from None
            # Connected but silent is a stall, not an unreachable address: say which it was.
            stalled = isinstance(exc, httpx.ReadTimeout)
            what = "The API at {} went silent" if stalled else "Could not reach the API at {}"
            raise _Retryable(
                ConnectionFailed(
                    f"{what.format(url)}: {problem}",
                    request_id=attempt.request_id,
                    remedy=(
                        "Try again; if answers often stall, raise --stream-timeout "
                        "(or ASSISTANT_STREAM_TIMEOUT)"
                    )
                    if stalled
                    else None,
                ),
                problem,
            ) from None
        except httpx.UnsupportedProtocol as exc:
            raise ConnectionFailed(f"Could not reach the API at {url}: {exc}") from None
        except httpx.RequestError as exc:
            problem = str(exc) or type(exc).__name__
            if attempt.content:
                raise StreamFailed(
                    f"The connection to {url} broke partway through the answer ({problem})",
                    request_id=attempt.request_id,
                ) from None
            failure = http.connection_error(self.endpoint, url, exc, attempt.request_id)
            raise _Retryable(failure, f"connection failed: {problem}") from None

    def _status_failure(self, response: httpx.Response, body: bytes) -> Exception:
        status, headers = response.status_code, response.headers
        error = self.status_failure(status, headers, body)
        if not retry.status_is_retryable(status, headers):
            return error
        return _Retryable(error, error.message, retry.retry_after(headers))

    async def _read_stream(
        self, url: str, response: httpx.Response, attempt: _Attempt
    ) -> MessageFinished:
        request_id = attempt.request_id
        content_type = response.headers.get("content-type", "")
        if not content_type.startswith(self.content_type):
            raise ConnectionFailed(
                f"The server at {url} answered HTTP {response.status_code}"
                f" with {content_type or 'no'} content type instead of an event stream:"
                " is it the right API?",
                status=response.status_code,
                request_id=request_id,
            )
        body, chunks = anyio.create_memory_object_stream[bytes | httpx.RequestError](math.inf)
        async with chunks, anyio.create_task_group() as reader:
            reader.start_soon(_read_body, response, body)
            outcome = await self._assemble(chunks, attempt)
            if not isinstance(outcome, Exception):
                # The body's end follows message_stop at once; reading it lets the connection
                # go back to the pool for the next turn instead of a new TLS handshake.
                with anyio.move_on_after(DRAIN_GRACE):
                    async for _ in chunks:
                        pass
            reader.cancel_scope.cancel()  # a failure, or a server that keeps the body open
        if isinstance(outcome, Exception):
            raise outcome
        return outcome

    async def _assemble(
        self, chunks: MemoryObjectReceiveStream[bytes | httpx.RequestError], attempt: _Attempt
    ) -> MessageFinished | Exception:
        """Decode and emit the body's events; a failure is returned, for the caller to raise
        once the reader task has ended (raised here, the task group would wrap it)."""
        decoder, assembler = self.decoders(attempt.request_id)
        try:
            async for first in chunks:
                # Whatever else has already arrived is taken too, so that a burst becomes one
                # batch of merged deltas (see coalesce.py) rather than one message per token.
                for chunk in _with_queued(first, chunks):
                    if isinstance(chunk, Exception):
                        raise chunk
                    events: list[ModelEvent] = []
                    try:
                        for sse in decoder.feed(chunk):
                            events.extend(assembler.feed(sse))
                            if assembler.finished is not None:
                                break
                    except Exception:
                        # What came before the failure in the same read is part of the answer
                        # (shown, kept, and a tool call that was complete may have started),
                        # however the network happened to cut the bytes.
                        await attempt.emit_all(coalesce(events))
                        raise
                    await attempt.emit_all(coalesce(events))
                    if assembler.finished is not None:
                        return assembler.finished
            for sse in decoder.finish():
                await attempt.emit_all(assembler.feed(sse))
            if assembler.finished is None and not attempt.content:
                raise _Retryable(
                    StreamFailed(
                        "The answer stream ended before it began (no message_stop)",
                        request_id=attempt.request_id,
                    ),
                    "the stream ended before the answer began",
                )
            return assembler.end()  # a StreamFailed if the answer was cut short
        except Exception as exc:
            return exc


def _with_queued(
    first: bytes | httpx.RequestError,
    chunks: MemoryObjectReceiveStream[bytes | httpx.RequestError],
    limit: int = 1 << 20,
) -> list[bytes | httpx.RequestError]:
    """``first`` and the chunks queued behind it, bytes joined up to ``limit``."""
    if isinstance(first, Exception):
        return [first]
    joined = [first]
    size = len(first)
    while size < limit:
        try:
            chunk = chunks.receive_nowait()
        except (anyio.WouldBlock, anyio.EndOfStream):
            break
        if isinstance(chunk, Exception):
            return [b"".join(joined), chunk]
        joined.append(chunk)
        size += len(chunk)
    return [b"".join(joined)]


async def _read_body(
    response: httpx.Response, sink: MemoryObjectSendStream[bytes | httpx.RequestError]
) -> None:
    """Pump the body into an unbounded buffer, in a task of its own.

    httpx's body iterators are nested async generators; left suspended (by a ``return`` or an
    exception in the loop), they are finalised by the garbage collector and trio warns. Here the
    only waits are inside httpx, so the loop ends by exhaustion, by an error raised through the
    generators, or by cancellation delivered inside them: each of which closes them all. The
    buffer is unbounded so that sending never waits; it holds at most one answer's bytes.
    """
    async with sink:
        try:
            async for chunk in response.aiter_bytes():
                sink.send_nowait(chunk)
        except httpx.RequestError as exc:
            sink.send_nowait(exc)


class _Attempt:
    """What one attempt has passed to the caller, to know whether a retry is still allowed."""

    __slots__ = ("_emit", "content", "request_id")

    def __init__(self, emit: Emit) -> None:
        self._emit = emit
        self.content = False
        self.request_id: str | None = None

    async def emit_all(self, events: list[ModelEvent]) -> None:
        for event in events:
            if not isinstance(event, MessageStarted):
                self.content = True
            await self._emit(event)


def _timeout_problem(exc: httpx.TimeoutException, read_timeout: float) -> str:
    if isinstance(exc, httpx.ConnectTimeout):
        return f"no connection within {CONNECT_TIMEOUT:g} s"
    if isinstance(exc, httpx.ReadTimeout):
        return f"no answer for {read_timeout:g} s"
    return f"timed out ({type(exc).__name__})"
