"""One HTTP exchange: read the request, check it like the API would, play the step.

Checks run in the real API's order: the route, the key (401), the ``anthropic-version`` header,
then the body (400). Only a request that passes them all uses a step.

A streamed step is sent with chunked transfer encoding, as the API does. That is also what makes
``cut_after`` detectable: the connection closes before the terminating zero-length chunk, so a
client sees an incomplete body rather than a short but complete one. Without ``delay`` the whole
stream goes out in one write; with it, one event per write with a pause between. A ``gate``
holds the stream before a block until a file exists (the order proofs of the pipeline tests).
"""

from __future__ import annotations

import os
import time
from http.server import BaseHTTPRequestHandler
from typing import TYPE_CHECKING, Any

import msgspec

from frontends.demo.scripted_api.sse import (
    block_start_position,
    count_input_tokens,
    error_body,
    event,
    message_json,
    stream_events,
)
from frontends.demo.scripted_api.steps import STATUS_OF_ERROR_TYPE, HttpError, RecordedRequest
from frontends.demo.scripted_api.validate import Invalid, check_body

if TYPE_CHECKING:
    from frontends.demo.scripted_api.connections import Scripted, _HTTPServer
    from frontends.demo.scripted_api.steps import Gate, Step

MESSAGES_PATH = "/v1/messages"
COUNT_TOKENS_PATH = "/v1/messages/count_tokens"
END_OF_BODY = b"0\r\n\r\n"
GATE_POLL = 0.002  # seconds between looks for a gate's file


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"  # keep-alive and chunked bodies, like the API
    disable_nagle_algorithm = True  # headers and body go out at once, no 40 ms delayed-ACK wait
    server: _HTTPServer

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: tests and benchmarks read the recorded requests instead of a log."""

    def do_POST(self) -> None:
        self._exchange()

    def do_GET(self) -> None:
        self._exchange()

    def _exchange(self) -> None:
        scripted = self.server.scripted
        if scripted.on_received is not None:
            scripted.on_received()
        request, body_problem = self._receive()
        request_id = scripted._record(request)
        route = request.path.split("?", 1)[0]
        refusal = _refusal(request, route, body_problem, scripted)
        if refusal is not None:
            self._error(refusal, request_id)
        elif route == COUNT_TOKENS_PATH:
            counted = {"input_tokens": count_input_tokens(request.body)}
            self._json(200, msgspec.json.encode(counted), request_id)
        else:
            number, step = scripted._take(request)
            if isinstance(step, HttpError):
                self._error(step, request_id)
            elif step.error is not None:
                self._error(step.error, request_id)
            else:
                self._play(step, number, request.body, request_id)

    def _receive(self) -> tuple[RecordedRequest, str | None]:
        """The request as recorded, and what is wrong with its body if anything."""
        headers: dict[str, str] = {}
        for name, value in self.headers.items():
            key = name.lower()
            headers[key] = f"{headers[key]}, {value}" if key in headers else value
        raw = self._read_body()
        body: Any = None
        problem: str | None = None
        if raw is None:
            problem = "content-length: not a valid length"
            self.close_connection = True  # the rest of the connection cannot be framed
        elif not raw:
            problem = "The request body is empty"
        else:
            try:
                body = msgspec.json.decode(raw)
            except msgspec.DecodeError as exc:
                problem = f"The request body is not valid JSON: {exc}"
        return RecordedRequest(self.command, self.path, headers, body), problem

    def _read_body(self) -> bytes | None:
        """The request body; None when its framing is broken."""
        try:
            if self.headers.get("transfer-encoding", "").lower() == "chunked":
                return self._read_chunked()
            length = int(self.headers.get("content-length") or 0)
        except ValueError:
            return None
        return self.rfile.read(length) if length >= 0 else None

    def _read_chunked(self) -> bytes:
        parts = []
        while size := int(self.rfile.readline().split(b";")[0].strip() or b"0", 16):
            parts.append(self.rfile.read(size))
            self.rfile.readline()
        while self.rfile.readline() not in (b"\r\n", b"\n", b""):
            pass  # trailers
        return b"".join(parts)

    def _play(self, step: Step, number: int, body: dict[str, Any], request_id: str) -> None:
        tool_ids = [
            tool_call.id or f"toolu_scripted_{number:03d}_{index}"
            for index, tool_call in enumerate(step.tool_calls)
        ]
        message_id = f"msg_scripted_{number:03d}"
        model = body["model"]
        # The prompt cache splits the input when the request marks cache_control (cache.py).
        input_tokens, created, read = self.server.scripted.cache.account(body)
        if body.get("stream"):
            events = stream_events(
                step,
                message_id=message_id,
                model=model,
                input_tokens=input_tokens,
                tool_ids=tool_ids,
                cached=(created, read),
            )
            self._stream(step, events, request_id)
        elif step.cut_after is not None:
            self.close_connection = True  # no answer at all: the connection just ends
        elif step.stream_error is not None:
            error_type, why = step.stream_error
            status = STATUS_OF_ERROR_TYPE.get(error_type, 500)
            self._error(HttpError(status=status, error_type=error_type, message=why), request_id)
        else:
            payload = message_json(
                step,
                message_id=message_id,
                model=model,
                input_tokens=input_tokens,
                tool_ids=tool_ids,
                cached=(created, read),
            )
            self._json(200, payload, request_id)

    def _stream(self, step: Step, events: list[bytes], request_id: str) -> None:
        cut = step.cut_after is not None
        if cut:
            events = events[: step.cut_after]
        self.send_response(200)
        self.send_header("content-type", "text/event-stream; charset=utf-8")
        self.send_header("cache-control", "no-cache")
        self.send_header("request-id", request_id)
        self.send_header("transfer-encoding", "chunked")
        held = None if step.gate is None else block_start_position(events, step.gate.before_block)
        try:
            self.end_headers()
            if step.delay > 0 or held is not None:
                if not self._paced(events, step, held, request_id):
                    self.close_connection = True  # the server is stopping mid-stream
                    return
            else:
                self.wfile.write(_chunk(b"".join(events)))
                self._sent(*events)
            if cut:
                self.close_connection = True
            else:
                self.wfile.write(END_OF_BODY)
        except OSError:
            self.close_connection = True  # the client hung up mid-stream; nothing to tell it

    def _paced(self, events: list[bytes], step: Step, held: int | None, request_id: str) -> bool:
        """One event per write, ``delay`` apart, the gate's block held; False if stopping."""
        stopping = self.server.scripted._stopping
        for index, data in enumerate(events):
            gate = step.gate if index == held else None
            if gate is not None and not self._wait_for(gate.path, gate.timeout):
                if stopping.is_set():
                    return False
                # Like a stream_error: the error event, then the body ends as it should.
                self.wfile.write(_chunk(_gate_failure(gate, request_id)))
                return True
            if index and step.delay > 0 and stopping.wait(step.delay):
                return False
            self.wfile.write(_chunk(data))
            self._sent(data)
        return True

    def _sent(self, *events: bytes) -> None:
        on_sent = self.server.scripted.on_sent
        if on_sent is not None:
            for data in events:
                on_sent(data)

    def _wait_for(self, path: str, timeout: float) -> bool:
        """Whether ``path`` came to exist within ``timeout`` (False also when stopping)."""
        deadline = time.monotonic() + timeout
        while not os.path.exists(path):
            if time.monotonic() > deadline or self.server.scripted._stopping.wait(GATE_POLL):
                return False
        return True

    def _error(self, error: HttpError, request_id: str) -> None:
        extra = {}
        if error.retry_after is not None:
            extra["retry-after"] = format(error.retry_after, "g")
        if error.retry_after_ms is not None:
            extra["retry-after-ms"] = format(error.retry_after_ms, "g")
        if error.should_retry is not None:
            extra["x-should-retry"] = "true" if error.should_retry else "false"
        body = msgspec.json.encode(error_body(error.api_type, error.api_message, request_id))
        self._json(error.status, body, request_id, extra)

    def _json(
        self, status: int, body: bytes, request_id: str, extra: dict[str, str] | None = None
    ) -> None:
        self.send_response(status)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.send_header("request-id", request_id)
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        try:
            self.end_headers()
            self.wfile.write(body)
        except OSError:
            self.close_connection = True


def _refusal(
    request: RecordedRequest, route: str, body_problem: str | None, scripted: Scripted
) -> HttpError | None:
    """The error the API would answer instead of a message, checked in the API's order."""
    if request.method != "POST" or route not in (MESSAGES_PATH, COUNT_TOKENS_PATH):
        return HttpError(status=404, message=f"Not found: {request.method} {route}")
    api_key = scripted.api_key
    if api_key is not None and (why := _auth_failure(request.headers, api_key)):
        return HttpError(status=401, message=why)
    if "anthropic-version" not in request.headers:
        return HttpError(status=400, message="anthropic-version: header is required")
    if body_problem is not None:
        return HttpError(status=400, message=body_problem)
    try:
        check_body(request.body, count_tokens=route == COUNT_TOKENS_PATH, signed=scripted.signed)
    except Invalid as exc:
        return HttpError(status=400, message=str(exc))
    return None


def _auth_failure(headers: dict[str, str], api_key: str) -> str | None:
    """Why the key is refused, or None. The API takes ``x-api-key`` or ``authorization: Bearer``
    (the official SDK sends the key the second way)."""
    sent = [headers[name] for name in ("x-api-key", "authorization") if name in headers]
    if not sent:
        return "x-api-key header is required"
    if api_key in sent or f"Bearer {api_key}" in sent:
        return None
    return "invalid x-api-key"


def _gate_failure(gate: Gate, request_id: str) -> bytes:
    why = f"scripted server: {gate.path} did not appear within {gate.timeout:g} s (the gate)"
    return event(error_body("api_error", why, request_id))


def _chunk(data: bytes) -> bytes:
    """One chunk of a chunked body; empty data must not be sent, it would end the body."""
    return b"%x\r\n%s\r\n" % (len(data), data) if data else b""
