"""A tiny forwarding HTTP proxy on loopback: it records each request's absolute URL, sends the
request on to its server with ``Connection: close``, and pipes the answer back as it comes.
A ``CONNECT`` (for an https:// address) is recorded and refused."""

from __future__ import annotations

import socket
import socketserver
from urllib.parse import urlsplit

from tests.providers.threaded import ThreadedServer

HOP_BY_HOP = ("connection", "proxy-connection", "proxy-authorization", "keep-alive")


class ForwardingProxy(ThreadedServer):
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

        server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Handler)
        server.daemon_threads = True
        super().__init__(server)
