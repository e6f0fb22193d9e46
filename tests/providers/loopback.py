"""A tiny real HTTP server on loopback for provider tests: one callback answers every request."""

from __future__ import annotations

from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING

from tests.providers.threaded import ThreadedServer

if TYPE_CHECKING:
    from collections.abc import Callable


@dataclass(frozen=True)
class Request:
    method: str
    path: str  # as sent, percent-encoding included
    headers: dict[str, str]  # lower-case names
    body: bytes


@dataclass(frozen=True)
class Response:
    status: int
    headers: dict[str, str]
    chunks: list[bytes] = field(default_factory=list)  # written and flushed one by one


class Loopback(ThreadedServer):
    def __init__(self, answer: Callable[[Request], Response]) -> None:
        self.requests: list[Request] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_POST(self) -> None:
                size = int(self.headers.get("content-length", "0"))
                request = Request(
                    "POST",
                    self.path,
                    {k.lower(): v for k, v in self.headers.items()},
                    self.rfile.read(size),
                )
                outer.requests.append(request)
                response = answer(request)
                self.send_response(response.status)
                for name, value in response.headers.items():
                    self.send_header(name, value)
                self.send_header("content-length", str(sum(map(len, response.chunks))))
                self.end_headers()
                for chunk in response.chunks:
                    self.wfile.write(chunk)
                    self.wfile.flush()

            def log_message(self, format: str, *args: object) -> None:
                pass  # quiet tests

        server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        super().__init__(server)
