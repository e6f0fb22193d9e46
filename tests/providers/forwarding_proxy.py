"""A tiny forwarding HTTP proxy on loopback: it records each request's absolute URL, sends the
request on to its server with ``Connection: close``, and pipes the answer back as it comes.
A ``CONNECT`` (for an https:// address) is recorded and refused."""

from __future__ import annotations

import socket
import socketserver
import threading
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

if TYPE_CHECKING:
    from types import TracebackType

HOP_BY_HOP = ("connection", "proxy-connection", "proxy-authorization", "keep-alive")


class ForwardingProxy:
    def __init__(self) -> None:
        self.seen: list[str] = []  # "METHOD absolute-url" of each request forwarded
        outer = self

        class Handler(socketserver.StreamRequestHandler):
            def handle(self) -> None:
                method, target, version = self.rfile.readline().decode().split()
                if method == "CONNECT":
                    # An https:// address: the tunnel request alone shows HTTPS_PROXY was used;
                    # no TLS server stands behind it here, so it is refused.
                    outer.seen.append(f"CONNECT {target}")
                    self.wfile.write(b"HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n")
                    return
                head: list[str] = []
                length = 0
                while (line := self.rfile.readline().decode()) not in ("\r\n", "\n", ""):
                    name = line.split(":", 1)[0].strip().lower()
                    if name == "content-length":
                        length = int(line.split(":", 1)[1])
                    if name not in HOP_BY_HOP:
                        head.append(line.rstrip("\r\n"))
                body = self.rfile.read(length)
                outer.seen.append(f"{method} {target}")
                url = urlsplit(target)
                path = url.path + (f"?{url.query}" if url.query else "")
                with socket.create_connection((url.hostname, url.port or 80)) as upstream:
                    lines = [f"{method} {path} {version}", *head, "Connection: close", "", ""]
                    upstream.sendall("\r\n".join(lines).encode() + body)
                    while data := upstream.recv(65536):
                        self.wfile.write(data)
                        self.wfile.flush()

        self._server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.02}, daemon=True
        )

    @property
    def url(self) -> str:
        host, port = self._server.server_address[:2]
        return f"http://{host!s}:{port}"

    def __enter__(self) -> ForwardingProxy:
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
