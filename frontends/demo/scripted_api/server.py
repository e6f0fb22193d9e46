"""A real loopback HTTP/1.1 server speaking the Messages API, playing a script of Steps.

It runs in a background thread (stdlib ``ThreadingHTTPServer``, one thread per connection) so
sync code, trio tests and asyncio tests can all drive it. Requests are checked like the real API
checks them; each valid ``POST /v1/messages`` plays the next step.

Stopping is quick and leaves nothing behind: the accept loop waits on a self-pipe as well as the
listening socket (so no polling interval to wait out), open keep-alive connections are shut down
so their threads wake from ``recv``, delayed streams wait on an Event instead of sleeping, and
every handler thread is joined.
"""

from __future__ import annotations

import selectors
import socket
import threading
from typing import TYPE_CHECKING, Any

from frontends.demo.scripted_api.cache import PromptCache
from frontends.demo.scripted_api.connections import _HTTPServer
from frontends.demo.scripted_api.handler import Handler
from frontends.demo.scripted_api.sse import signature_for
from frontends.demo.scripted_api.steps import HttpError, Step, to_step, to_steps

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping
    from types import TracebackType

    from frontends.demo.scripted_api.steps import RecordedRequest, Script


class ScriptedServer:
    """Plays ``steps`` (or asks ``steps(request)``) for each ``POST /v1/messages``, in order.

    Requests the real API would refuse (401, 400) are answered without using a step; a request
    after the script ran out gets 500 ``api_error`` with ``x-should-retry: false``.
    """

    def __init__(
        self,
        steps: Script,
        *,
        api_key: str | None = None,
        host: str = "127.0.0.1",
        port: int = 0,
        on_sent: Callable[[bytes], None] | None = None,
        on_received: Callable[[], None] | None = None,
        keep_requests: bool = True,
    ) -> None:
        self.api_key = api_key
        # Called with each SSE event of a streamed answer once it is written to the socket
        # (from the connection's thread): benchmarks time what the client does after it.
        self.on_sent = on_sent
        # Called when a request's headers are read, before its body is read and checked: the
        # moment the client is done, without the server's own time for a large body.
        self.on_received = on_received
        self.host = host
        self.port = port
        self._script: Callable[[RecordedRequest], Step | Mapping[str, Any]] | None = None
        self._steps: list[Step] = []
        if callable(steps):
            self._script = steps
        else:
            self._steps = to_steps(steps)
        self._played = 0  # steps of ``_steps`` already used
        self._step_requests = 0  # requests that asked for a step, to number them
        self._responses = 0  # every answer, for request-id
        self._requests: list[RecordedRequest] = []
        # The signatures given with a thinking block of a step's own (``signature=``, or a raw
        # block): a request may send back only these, or the derived one (sse.signature_for).
        self._signatures: set[tuple[str, str]] = set()
        # A session of a thousand turns would keep a quadratic amount of request bodies.
        self._keep_requests = keep_requests
        self.cache = PromptCache()  # answers cache_control marks as the API does (cache.py)
        # Reentrant: a script callable may read ``server.requests`` or ``server.remaining``.
        self._lock = threading.RLock()
        self._stopping = threading.Event()
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None
        self._wake: tuple[socket.socket, socket.socket] | None = None

    # ── lifecycle ────────────────────────────────────────────────────────────────────────

    def start(self) -> None:
        if self._httpd is not None:
            raise RuntimeError("the scripted server is already running")
        self._stopping.clear()
        httpd = _HTTPServer(self.host, self.port, self, Handler)
        self._httpd = httpd
        self._wake = socket.socketpair()
        self._thread = threading.Thread(
            target=self._accept_loop,
            args=(httpd, self._wake[0]),
            name=f"scripted-server:{httpd.server_address[1]}",
            daemon=True,
        )
        self._thread.start()

    def stop(self) -> None:
        """Stop accepting, end open connections and streams, join every thread. Idempotent."""
        httpd, thread, wake = self._httpd, self._thread, self._wake
        if httpd is None or thread is None or wake is None:
            return
        self._stopping.set()
        wake[1].send(b"x")
        thread.join()
        httpd.server_close()
        for sock in wake:
            sock.close()
        self._httpd = self._thread = self._wake = None

    def __enter__(self) -> ScriptedServer:
        self.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.stop()

    @staticmethod
    def _accept_loop(httpd: _HTTPServer, wake: socket.socket) -> None:
        with selectors.DefaultSelector() as selector:
            selector.register(httpd, selectors.EVENT_READ)
            selector.register(wake, selectors.EVENT_READ)
            while True:
                ready = selector.select()
                if any(key.fileobj is wake for key, _ in ready):
                    return
                httpd.handle_request()

    # ── what tests read ──────────────────────────────────────────────────────────────────

    @property
    def url(self) -> str:
        if self._httpd is None:
            raise RuntimeError("the scripted server is not running: use 'with server:' first")
        host, port = self._httpd.server_address[:2]
        host = str(host)
        return f"http://[{host}]:{port}" if ":" in host else f"http://{host}:{port}"

    @property
    def requests(self) -> list[RecordedRequest]:
        """Every request received so far, in arrival order (a snapshot)."""
        with self._lock:
            return list(self._requests)

    @property
    def remaining(self) -> list[Step]:
        """Steps not yet played (always empty for a callable script)."""
        with self._lock:
            return self._steps[self._played :]

    # ── used by the request handler ──────────────────────────────────────────────────────

    def _record(self, request: RecordedRequest) -> str:
        """Keep the request; return the request-id for its answer."""
        with self._lock:
            if self._keep_requests:
                self._requests.append(request)
            self._responses += 1
            return f"req_scripted_{self._responses:06d}"

    def _take(self, request: RecordedRequest) -> tuple[int, Step | HttpError]:
        """The next step for a valid request, or the 500 that says why there is none."""
        with self._lock:
            self._step_requests += 1
            number = self._step_requests
            if self._script is not None:
                # Called under the lock so a script sees requests one at a time, in order.
                try:
                    step = to_step(self._script(request), f"step for request {number}")
                    return number, self._issued(step)
                except Exception as exc:  # a broken test script: answer loudly, keep serving
                    message = f"scripted server: the script failed on request {number}: {exc!r}"
                    return number, HttpError(status=500, message=message, should_retry=False)
            if self._played >= len(self._steps):
                message = f"scripted server: no step left for request {number}"
                return number, HttpError(status=500, message=message, should_retry=False)
            self._played += 1
            return number, self._issued(self._steps[self._played - 1])

    def _issued(self, step: Step | HttpError) -> Step | HttpError:
        if isinstance(step, Step):
            if step.thinking is not None and step.signature is not None:
                self._signatures.add((step.thinking, step.signature))
            for block in step.blocks:
                if block.get("type") == "thinking":
                    self._signatures.add((block.get("thinking", ""), block.get("signature", "")))
        return step

    def signed(self, thinking: str, signature: str) -> bool:
        """Whether ``signature`` is the one this server gave with ``thinking``."""
        with self._lock:
            return signature == signature_for(thinking) or (thinking, signature) in self._signatures
