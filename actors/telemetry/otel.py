"""The OpenTelemetry side of ``actors/telemetry``: exporters built from the ``OTEL_*``
variables, and what the session reports turned into spans, metrics and log events.

Shapes follow the reference assistant's (``<prefix>.interaction`` / ``.llm_request`` /
``.tool`` spans, ``.token.usage`` / ``.cost.usage`` / ... counters, ``.user_prompt`` /
``.api_request`` / ``.tool_result`` events), named ``legato.*``. What is exported is counts,
names, times and outcomes: never a prompt's text, a file's content, a command, or a tool's
input or output.

Export runs in the SDK's own threads, batched and bounded (a queue that drops when full), so a
collector that is slow or gone costs the run nothing; ``shutdown`` flushes with a short bound.
The SDK's calls do not raise, and its export threads log their failures rather than raise
them: telemetry never breaks a run.
"""

from __future__ import annotations

import logging
import threading
import time
from typing import TYPE_CHECKING

from opentelemetry import context as otel_context
from opentelemetry import trace
from opentelemetry.trace import Span, Status, StatusCode
from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from opentelemetry._logs import Logger
    from opentelemetry.metrics import Counter
    from opentelemetry.sdk._logs import LoggerProvider
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.trace import TracerProvider

    from actors.protocol import Usage

PREFIX = "legato"
SIGNALS = ("traces", "metrics", "logs")
_PROPAGATOR = TraceContextTextMapPropagator()


def _protocol(env: Mapping[str, str], signal: str) -> tuple[str, str]:
    """The protocol asked for ``signal`` and the variable that asked it."""
    for name in (f"OTEL_EXPORTER_OTLP_{signal.upper()}_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"):
        value = (env.get(name) or "").strip().lower()
        if value:
            return value, name
    return "http/protobuf", "OTEL_EXPORTER_OTLP_PROTOCOL"


def _exporter_wanted(env: Mapping[str, str], signal: str) -> bool:
    """``OTEL_<SIGNAL>_EXPORTER``: ``none`` turns one signal off; unset or ``otlp`` keeps it."""
    chosen = (env.get(f"OTEL_{signal.upper()}_EXPORTER") or "otlp").lower().split(",")
    return "otlp" in (part.strip() for part in chosen)


def _exporter(env: Mapping[str, str], signal: str, warn: Callable[[str], None]) -> object | None:
    if not _exporter_wanted(env, signal):
        return None
    protocol, variable = _protocol(env, signal)
    if protocol == "http/protobuf":
        if signal == "traces":
            from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

            return OTLPSpanExporter()
        if signal == "metrics":
            from opentelemetry.exporter.otlp.proto.http.metric_exporter import (
                OTLPMetricExporter,
            )

            return OTLPMetricExporter()
        from opentelemetry.exporter.otlp.proto.http._log_exporter import OTLPLogExporter

        return OTLPLogExporter()
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
    from opentelemetry.sdk._logs import LoggerProvider
    from opentelemetry.sdk._logs.export import BatchLogRecordProcessor
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import PeriodicExportingMetricReader
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import BatchSpanProcessor

    failures = _Failures()
    resource = _resource(env)
    spans = _exporter(env, "traces", warn)
    metrics = _exporter(env, "metrics", warn)
    logs = _exporter(env, "logs", warn)
    if spans is None and metrics is None and logs is None:
        return None
    tracer_provider = TracerProvider(resource=resource)  # type: ignore[arg-type]
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
    meter_provider = MeterProvider(resource=resource, metric_readers=readers)  # type: ignore[arg-type]
    logger_provider = LoggerProvider(resource=resource)  # type: ignore[arg-type]
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


class _Failures(logging.Handler):
    """What the SDK's export threads report (a collector refusing, a 404), kept rather than
    printed: a line written from a thread would land in the middle of a terminal session's
    screen. The first is said once, when the session ends."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.first: str | None = None
        sdk = logging.getLogger("opentelemetry")
        sdk.addHandler(self)
        sdk.propagate = False

    def emit(self, record: logging.LogRecord) -> None:
        if self.first is None:
            self.first = record.getMessage().splitlines()[0][:300]


def _inbound(env: Mapping[str, str]) -> otel_context.Context | None:
    """The caller's trace context (``TRACEPARENT``, ``TRACESTATE``), if it gave a valid one."""
    carrier = {
        "traceparent": env.get("TRACEPARENT") or "",
        "tracestate": env.get("TRACESTATE") or "",
    }
    if not carrier["traceparent"]:
        return None
    extracted = _PROPAGATOR.extract(carrier)
    if not trace.get_current_span(extracted).get_span_context().is_valid:
        return None
    return extracted


def traceparent(span: Span) -> dict[str, str]:
    """``TRACEPARENT`` (and ``TRACESTATE``) naming ``span``, for a child process's environment."""
    carrier: dict[str, str] = {}
    _PROPAGATOR.inject(carrier, context=trace.set_span_in_context(span))
    return {name.upper(): value for name, value in carrier.items()}


class Telemetry:
    """The session's exporters, and the prompt span that the requests and tool calls join."""

    def __init__(
        self,
        tracer_provider: TracerProvider,
        meter_provider: MeterProvider,
        logger_provider: LoggerProvider,
        *,
        inbound: otel_context.Context | None,
        failures: _Failures,
        warn: Callable[[str], None],
    ) -> None:
        self._providers = (tracer_provider, meter_provider, logger_provider)
        self._failures = failures
        self._warn = warn
        self._tracer = tracer_provider.get_tracer(PREFIX)
        self._logger: Logger = logger_provider.get_logger(PREFIX)
        meter = meter_provider.get_meter(PREFIX)
        self._inbound = inbound
        self._prompt: Span | None = None
        self._prompts = 0
        self._session_id = ""
        self._counters: dict[str, Counter] = {
            "session": meter.create_counter(f"{PREFIX}.session.count", "1", "Sessions started"),
            "tokens": meter.create_counter(f"{PREFIX}.token.usage", "tokens", "Tokens used"),
            "cost": meter.create_counter(f"{PREFIX}.cost.usage", "USD", "Cost of the requests"),
            "tools": meter.create_counter(f"{PREFIX}.tool.count", "1", "Tool calls finished"),
            "decisions": meter.create_counter(
                f"{PREFIX}.permission.decision", "1", "Permission decisions"
            ),
        }

    # -- the session ------------------------------------------------------------------------

    def session_started(self, session_id: str) -> None:
        self._session_id = session_id
        self._counters["session"].add(1, self._common())

    def _common(self) -> dict[str, str]:
        return {"session.id": self._session_id} if self._session_id else {}

    def _parent(self) -> otel_context.Context | None:
        if self._prompt is not None:
            return trace.set_span_in_context(self._prompt)
        return self._inbound

    def _event(self, name: str, attributes: dict[str, str | int | float | bool]) -> None:
        self._logger.emit(
            event_name=f"{PREFIX}.{name}",
            body=f"{PREFIX}.{name}",
            attributes={**self._common(), "event.name": f"{PREFIX}.{name}", **attributes},
            context=self._parent(),
        )

    # -- a prompt -----------------------------------------------------------------------------

    def prompt_started(self, length: int) -> None:
        self._prompts += 1
        self._prompt = self._tracer.start_span(
            f"{PREFIX}.interaction",
            context=self._inbound,
            attributes={
                **self._common(),
                "span.type": "interaction",
                "user_prompt": "<REDACTED>",
                "user_prompt_length": length,
                "interaction.sequence": self._prompts,
            },
        )
        self._event("user_prompt", {"prompt_length": length, "prompt": "<REDACTED>"})

    def prompt_finished(self, outcome: str, duration_ms: int) -> None:
        span, self._prompt = self._prompt, None
        if span is not None:
            span.set_attribute("interaction.duration_ms", duration_ms)
            span.set_attribute("outcome", outcome)
            span.end()

    # -- a model request ------------------------------------------------------------------------

    def request_started(self, model: str) -> Span:
        return self._tracer.start_span(
            f"{PREFIX}.llm_request",
            context=self._parent(),
            attributes={
                **self._common(),
                "span.type": "llm_request",
                "model": model,
                "gen_ai.system": "anthropic",
                "gen_ai.request.model": model,
            },
        )

    def request_finished(
        self, span: Span, model: str, usage: Usage, cost: float | None, duration_ms: int
    ) -> None:
        tokens = {
            "input": usage.input_tokens,
            "output": usage.output_tokens,
            "cacheRead": usage.cache_read_input_tokens,
            "cacheCreation": usage.cache_creation_input_tokens,
        }
        figures: dict[str, str | int | float | bool] = {
            "model": model,
            "duration_ms": duration_ms,
            "input_tokens": usage.input_tokens,
            "output_tokens": usage.output_tokens,
            "cache_read_tokens": usage.cache_read_input_tokens,
            "cache_creation_tokens": usage.cache_creation_input_tokens,
        }
        if cost is not None:
            figures["cost_usd"] = cost
        span.set_attributes({**figures, "success": True})
        span.end()
        common = {**self._common(), "model": model}
        for kind, count in tokens.items():
            if count:
                self._counters["tokens"].add(count, {**common, "type": kind})
        if cost is not None:
            self._counters["cost"].add(cost, {**self._common(), "model": model})
        self._event("api_request", figures)

    def request_failed(
        self, span: Span, model: str, error: str, duration_ms: int, status: int | None
    ) -> None:
        """``error``: the kind of failure (a class name, ``interrupted``), never its text, which
        may quote the API's answer; ``status``: the HTTP status, when there was one."""
        figures: dict[str, str | int | float | bool] = {
            "model": model,
            "error": error,
            "duration_ms": duration_ms,
        }
        if status is not None:
            figures["status_code"] = status
        span.set_attributes({**figures, "success": False})
        span.set_status(Status(StatusCode.ERROR, error))
        span.end()
        self._event("api_error", figures)

    # -- a tool call ----------------------------------------------------------------------------

    def tool_started(self, name: str) -> Span:
        return self._tracer.start_span(
            f"{PREFIX}.tool",
            context=self._parent(),
            attributes={**self._common(), "span.type": "tool", "tool_name": name},
        )

    def tool_finished(self, span: Span, name: str, outcome: str, duration_ms: int) -> None:
        success = outcome == "success"
        span.set_attributes({"success": success, "outcome": outcome, "duration_ms": duration_ms})
        if not success:
            span.set_status(Status(StatusCode.ERROR, outcome))
        span.end()
        self._counters["tools"].add(1, {**self._common(), "tool_name": name, "outcome": outcome})
        self._event(
            "tool_result",
            {"tool_name": name, "success": success, "outcome": outcome, "duration_ms": duration_ms},
        )

    # -- a permission decision ------------------------------------------------------------------

    def decided(self, tool: str, allowed: bool) -> None:
        attributes = {"tool_name": tool, "decision": "accept" if allowed else "reject"}
        self._counters["decisions"].add(1, {**self._common(), **attributes})
        self._event("tool_decision", dict(attributes))

    # -- the end ---------------------------------------------------------------------------

    def shutdown(self, timeout: float) -> None:
        """End any open prompt span, flush and shut the exporters down, in a thread of its own
        that the exit waits ``timeout`` seconds for at most."""
        if self._prompt is not None:
            self.prompt_finished("interrupted", 0)

        def flush() -> None:
            # Shutting a provider down exports what it holds (a metric reader its last values).
            for provider in self._providers:
                provider.shutdown()

        worker = threading.Thread(target=flush, name="telemetry-flush", daemon=True)
        started = time.monotonic()
        worker.start()
        worker.join(max(0.0, timeout - (time.monotonic() - started)))
        logging.getLogger("opentelemetry").removeHandler(self._failures)
        if self._failures.first is not None:
            self._warn(
                f"telemetry could not all be exported ({self._failures.first}); check "
                "OTEL_EXPORTER_OTLP_ENDPOINT and that the collector is up"
            )
        elif worker.is_alive():
            self._warn(
                f"telemetry export did not finish within {timeout:g} s; what was left is "
                "dropped. Check OTEL_EXPORTER_OTLP_ENDPOINT and that the collector is up"
            )
