"""A small OTLP/HTTP receiver on loopback: what a collector's port 4318 accepts.

It takes ``/v1/traces``, ``/v1/metrics`` and ``/v1/logs`` as protobuf, keeps the raw bytes
(for a test to search for what must not be there) and decodes them with
``opentelemetry.proto``.
"""

from __future__ import annotations

import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from opentelemetry.proto.collector.logs.v1.logs_service_pb2 import ExportLogsServiceRequest
from opentelemetry.proto.collector.metrics.v1.metrics_service_pb2 import (
    ExportMetricsServiceRequest,
)
from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import ExportTraceServiceRequest

KINDS: dict[str, type[Any]] = {
    "/v1/traces": ExportTraceServiceRequest,
    "/v1/metrics": ExportMetricsServiceRequest,
    "/v1/logs": ExportLogsServiceRequest,
}


class Sink:
    def __init__(self) -> None:
        self.bodies: dict[str, list[bytes]] = {path: [] for path in KINDS}
        self.headers: list[dict[str, str]] = []
        sink = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length") or 0))
                known = self.path in KINDS
                if known:
                    sink.bodies[self.path].append(body)
                    sink.headers.append(dict(self.headers))
                self.send_response(200 if known else 404)
                self.send_header("content-type", "application/x-protobuf")
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, format: str, *args: object) -> None:
                pass

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> Sink:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    def raw(self) -> bytes:
        return b"".join(body for bodies in self.bodies.values() for body in bodies)

    def decoded(self, path: str) -> list[Any]:
        found = []
        for body in self.bodies[path]:
            message = KINDS[path]()
            message.ParseFromString(body)
            found.append(message)
        return found

    def spans(self) -> list[Any]:
        return [
            span
            for request in self.decoded("/v1/traces")
            for resource in request.resource_spans
            for scope in resource.scope_spans
            for span in scope.spans
        ]

    def metrics(self) -> dict[str, list[Any]]:
        """Each metric's data points, by name, as its last export gave them (the counters are
        cumulative: each export holds the totals so far)."""
        found: dict[str, list[Any]] = {}
        for request in self.decoded("/v1/metrics"):
            for resource in request.resource_metrics:
                for scope in resource.scope_metrics:
                    for metric in scope.metrics:
                        found[metric.name] = list(metric.sum.data_points)
        return found

    def logs(self) -> list[Any]:
        return [
            record
            for request in self.decoded("/v1/logs")
            for resource in request.resource_logs
            for scope in resource.scope_logs
            for record in scope.log_records
        ]

    def resources(self) -> list[dict[str, str]]:
        return [
            {kv.key: kv.value.string_value for kv in resource.resource.attributes}
            for request in self.decoded("/v1/traces")
            for resource in request.resource_spans
        ]
