"""The exporters of ``actors/telemetry``, built from the ``OTEL_*`` variables: which signals go,
over which protocol, where, how often, and the caller's trace context (``TRACEPARENT``).

A setting Legato cannot honour (a protocol without its exporter) is said, naming the variable
and what to set instead, and that signal is left out: the run goes on.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from opentelemetry import trace

from actors.telemetry import protocol_of, signal_wanted
from actors.telemetry.otel import PREFIX, PROPAGATOR, Failures, Telemetry

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    import requests
    from opentelemetry import context as otel_context


def _exporter(env: Mapping[str, str], signal: str, warn: Callable[[str], None]) -> object | None:
    if not signal_wanted(env, signal):
        return None
    protocol, variable = protocol_of(env, signal)
    if protocol == "http/protobuf":
        if signal == "traces":
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

            return OTLPSpanExporter(session=_bounded_session(env, signal))
        if signal == "metrics":
            from opentelemetry.exporter.otlp.proto.http.metric_exporter import (
                OTLPMetricExporter,
            )

            return OTLPMetricExporter(session=_bounded_session(env, signal))
        from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter

        return OTLPLogExporter(session=_bounded_session(env, signal))
    if protocol == "grpc":
        try:
            if signal == "traces":
                from opentelemetry.exporter.otlp.proto.grpc.trace_exporter import (  # type: ignore[import-not-found]
                    OTLPSpanExporter as GrpcSpans,
                )

                return _made(GrpcSpans)
            if signal == "metrics":
                from opentelemetry.exporter.otlp.proto.grpc.metric_exporter import (  # type: ignore[import-not-found]
                    OTLPMetricExporter as GrpcMetrics,
                )

                return _made(GrpcMetrics)
            from opentelemetry.exporter.otlp.proto.grpc._log_exporter import (  # type: ignore[import-not-found]
                OTLPLogExporter as GrpcLogs,
            )

            return _made(GrpcLogs)
        except ImportError:
            warn(
                f"{variable}=grpc needs the OTLP gRPC exporter, which is not installed; "
                f"{signal} are not exported. Set {variable}=http/protobuf (the collector's "
                "port 4318), or install opentelemetry-exporter-otlp-proto-grpc"
            )
            return None
    warn(
        f"{variable}={protocol!r} is not a protocol Legato can export with; {signal} are not "
        f"exported. Set {variable}=http/protobuf (or grpc with its exporter installed)"
    )
    return None


# The most of a collector's answer that is read. An OTLP answer is empty, or a short message of
# partial success or of why the export was refused.
ANSWER_LIMIT = 64 * 1024


def _bounded_session(env: Mapping[str, str], signal: str) -> requests.Session | None:
    """An HTTP session (one per exporter: a session is not shared between threads) that reads
    no more than ``ANSWER_LIMIT`` of an answer, then drops the connection: a collector that
    answers without end would otherwise be held in memory, gigabytes a minute. None when a
    credential provider is named: the SDK makes that provider's session, as it always has."""
    providers = (
        "OTEL_PYTHON_EXPORTER_OTLP_HTTP_CREDENTIAL_PROVIDER",
        f"OTEL_PYTHON_EXPORTER_OTLP_HTTP_{signal.upper()}_CREDENTIAL_PROVIDER",
    )
    if any(env.get(name) for name in providers):
        return None
    import requests

    session = requests.Session()
    session.hooks["response"].append(_read_bounded)
    return session


def _read_bounded(response: requests.Response, **_: object) -> requests.Response:
    # A response hook runs before requests reads the body; what it leaves as the content is
    # what the exporter reads (``content``, ``text``).
    body = response.raw.read(ANSWER_LIMIT, decode_content=True)
    response._content = body or b""  # requests has no public way to bound what it reads
    response._content_consumed = True
    if len(body) >= ANSWER_LIMIT:
        response.close()  # the rest unread: the connection is dropped, not reused
    return response


def _made(exporter: type[object]) -> object:
    return exporter()


def _resource(env: Mapping[str, str]) -> object:
    from opentelemetry.sdk.resources import SERVICE_NAME, Resource

    # Resource.create reads OTEL_RESOURCE_ATTRIBUTES and OTEL_SERVICE_NAME from os.environ.
    attributes: dict[str, str] = {}
    if not (env.get("OTEL_SERVICE_NAME") or "").strip():
        attributes[SERVICE_NAME] = PREFIX
    return Resource.create(attributes)


def _interval(env: Mapping[str, str], names: tuple[str, ...], default: int) -> int:
    for name in names:
        value = (env.get(name) or "").strip()
        if value.isdigit() and int(value) > 0:
            return int(value)
    return default


def build(env: Mapping[str, str], warn: Callable[[str], None]) -> Telemetry | None:
    """The telemetry ``env`` describes; None when no signal can be exported."""
    # Before the SDK is imported: what it logs as it loads (a bad OTEL_RESOURCE_ATTRIBUTES) is
    # kept for the one warning, not written bare on stderr (a terminal's screen).
    failures = Failures(env)
    from opentelemetry.sdk._logs import LoggerProvider
    from opentelemetry.sdk._logs.export import BatchLogRecordProcessor
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    resource = _resource(env)
    spans = _exporter(env, "traces", warn)
    metrics = _exporter(env, "metrics", warn)
    logs = _exporter(env, "logs", warn)
    if spans is None and metrics is None and logs is None:
        return None
    # No provider shuts itself down at exit: ``Telemetry.shutdown`` does, with its bound. The
    # SDK's own exit handlers would wait on a hung collector for half a minute each.
    tracer_provider = TracerProvider(resource=resource, shutdown_on_exit=False)  # type: ignore[arg-type]
    if spans is not None:
        delay = _interval(env, ("OTEL_TRACES_EXPORT_INTERVAL", "OTEL_BSP_SCHEDULE_DELAY"), 5000)
        tracer_provider.add_span_processor(
            BatchSpanProcessor(spans, schedule_delay_millis=delay)  # type: ignore[arg-type]
        )
    readers = []
    if metrics is not None:
        every = _interval(env, ("OTEL_METRIC_EXPORT_INTERVAL",), 60000)
        readers.append(
            PeriodicExportingMetricReader(metrics, export_interval_millis=every)  # type: ignore[arg-type]
        )
    meter_provider = MeterProvider(
        resource=resource,  # type: ignore[arg-type]
        metric_readers=readers,
        shutdown_on_exit=False,
    )
    logger_provider = LoggerProvider(resource=resource, shutdown_on_exit=False)  # type: ignore[arg-type]
    if logs is not None:
        delay = _interval(env, ("OTEL_LOGS_EXPORT_INTERVAL", "OTEL_BLRP_SCHEDULE_DELAY"), 5000)
        logger_provider.add_log_record_processor(
            BatchLogRecordProcessor(logs, schedule_delay_millis=delay)  # type: ignore[arg-type]
        )
    return Telemetry(
        tracer_provider,
        meter_provider,
        logger_provider,
        inbound=_inbound(env),
        failures=failures,
        warn=warn,
    )


def _inbound(env: Mapping[str, str]) -> otel_context.Context | None:
    """The caller's trace context (``TRACEPARENT``, ``TRACESTATE``), if it gave a valid one."""
    carrier = {
        "traceparent": env.get("TRACEPARENT") or "",
        "tracestate": env.get("TRACESTATE") or "",
    }
    if not carrier["traceparent"]:
        return None
    extracted = PROPAGATOR.extract(carrier)
    if not trace.get_current_span(extracted).get_span_context().is_valid:
        return None
    return extracted
