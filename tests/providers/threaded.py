"""A socketserver run in a background thread, on loopback, for the duration of a ``with``."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Self

if TYPE_CHECKING:
    import socketserver
    from types import TracebackType


class ThreadedServer:
    def __init__(self, server: socketserver.TCPServer) -> None:
        self._server = server
        # A short poll interval: shutdown() waits for one, and the default is half a second.
        self._thread = threading.Thread(
            target=server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def __enter__(self) -> Self:
        self._thread.start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self._server.shutdown()
        self._server.server_close()
        self._thread.join()
