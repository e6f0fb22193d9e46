"""The listening socket of the scripted server and its connections, one thread each.

Stopping leaves nothing behind: ``server_close`` shuts down every open connection, so a
keep-alive thread waiting in ``recv`` or a stream mid-write wakes, and joins every thread.
``Scripted`` is what a connection's handler (``handler.py``) asks of the scripted server it
plays (``server.py``): named here, so that neither of those two modules imports the other.
"""

from __future__ import annotations

import contextlib
import socket
import sys
import threading
import time
from http.server import ThreadingHTTPServer
from socketserver import TCPServer
from typing import TYPE_CHECKING, Any, Protocol

if TYPE_CHECKING:
    from collections.abc import Callable
    from http.server import BaseHTTPRequestHandler

    from frontends.demo.scripted_api.cache import PromptCache
    from frontends.demo.scripted_api.steps import HttpError, RecordedRequest, Step

JOIN_TIMEOUT = 5.0  # seconds stop() waits for handler threads; only a hung script needs it


class Scripted(Protocol):
    """The scripted server as a request handler uses it (``server.ScriptedServer``)."""

    api_key: str | None
    on_sent: Callable[[bytes], None] | None
    on_received: Callable[[], None] | None
    cache: PromptCache
    _stopping: threading.Event

    def _record(self, request: RecordedRequest) -> str: ...

    def _take(self, request: RecordedRequest) -> tuple[int, Step | HttpError]: ...

    def signed(self, thinking: str, signature: str) -> bool: ...


class _HTTPServer(ThreadingHTTPServer):
    # Handler threads are daemons so a stuck one never keeps the interpreter alive. The stdlib
    # does not join daemon threads on close, so this class keeps and joins its own.
    daemon_threads = True

    def __init__(
        self, host: str, port: int, scripted: Scripted, handler: type[BaseHTTPRequestHandler]
    ) -> None:
        if ":" in host:
            self.address_family = socket.AF_INET6
        self.scripted = scripted
        self._connections: set[socket.socket] = set()
        self._handlers: list[threading.Thread] = []
        self._lock = threading.Lock()
        super().__init__((host, port), handler)
        # The accept loop only calls handle_request() once select() says a client is waiting;
        # should that client vanish before accept(), a blocking accept would hang the loop.
        self.socket.setblocking(False)
        self.timeout = 0

    def server_bind(self) -> None:
        # HTTPServer.server_bind resolves the host name (socket.getfqdn), which can stall on
        # a machine without DNS; loopback needs no name.
        TCPServer.server_bind(self)
        host, port = self.server_address[:2]
        self.server_name, self.server_port = str(host), int(port)

    def process_request(self, request: Any, client_address: Any) -> None:
        # Runs in the accept thread, so once stop() has joined that thread every connection
        # and its handler thread are known here.
        handler = threading.Thread(
            target=self.process_request_thread,
            args=(request, client_address),
            name=f"scripted-server-connection:{client_address[1]}",
            daemon=True,
        )
        with self._lock:
            self._connections.add(request)
            self._handlers = [thread for thread in self._handlers if thread.is_alive()]
            self._handlers.append(handler)
        handler.start()

    def shutdown_request(self, request: Any) -> None:
        with self._lock:
            self._connections.discard(request)
        super().shutdown_request(request)

    def server_close(self) -> None:
        """Close the listening socket, wake every handler (idle keep-alive or mid-stream), and
        join them all, within a bound in case a script callable hangs."""
        super().server_close()
        with self._lock:
            connections, handlers = list(self._connections), list(self._handlers)
        for connection in connections:
            with contextlib.suppress(OSError):  # already closed by its handler
                connection.shutdown(socket.SHUT_RDWR)
        deadline = time.monotonic() + JOIN_TIMEOUT
        for handler in handlers:
            handler.join(max(0.0, deadline - time.monotonic()))

    def handle_error(self, request: Any, client_address: Any) -> None:
        if isinstance(sys.exc_info()[1], ConnectionError):
            return  # the client went away; that is its right
        super().handle_error(request, client_address)
