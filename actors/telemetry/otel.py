"""The OpenTelemetry side of ``actors/telemetry``: what the session reports turned into spans,
metrics and log events (the exporters are built by ``actors/telemetry/setup.py``).

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

import contextlib
import logging
import re
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
PROPAGATOR = TraceContextTextMapPropagator()


class Failures(logging.Handler):
    """What the SDK's export threads report (a collector refusing, a 404), kept rather than
    printed: a line written from a thread would land in the middle of a terminal session's
    screen. The first is said once, when the session ends."""

    def __init__(self, env: Mapping[str, str]) -> None:
        super().__init__(logging.WARNING)
        self.first: str | None = None
        self._hidden = _header_values(env)
        sdk = logging.getLogger("opentelemetry")
        sdk.addHandler(self)
        sdk.propagate = False

    def emit(self, record: logging.LogRecord) -> None:
        if self.first is None:
            # The SDK may quote the endpoint (one it cannot parse): not its password, which
            # would end up in a CI job's log.
            lines = record.getMessage().splitlines() or [record.levelname]
            said = _PASSWORD.sub(r"\1:***@", lines[0])
            # Nor the collector's headers, which it quotes when it cannot read one.
            for value in self._hidden:
                said = said.replace(value, "***")
            self.first = said[:300]


# A URL's ``user:password@``, wherever it is in a message.
_PASSWORD = re.compile(r"(?<=://)([^\s/:@]*):[^\s/@]*@")


def _header_values(env: Mapping[str, str]) -> tuple[str, ...]:
    """What the ``OTEL_EXPORTER_OTLP_*HEADERS`` variables hold that may be a token: each pair,
    and what follows its ``=`` (or the ``:`` of a mistyped one); longest first, so that a pair
    is hidden whole rather than around its value."""
    found: set[str] = set()
    for name, text in env.items():
        if not (name.startswith("OTEL_EXPORTER_OTLP_") and name.endswith("HEADERS")):
            continue
        for pair in text.split(","):
            found.add(pair.strip())
            for separator in "=:":
                found.add(pair.partition(separator)[2].strip())
    # A short one (``x-debug=1``) is no token, and hiding it would blot out every ``1``.
    return tuple(sorted((value for value in found if len(value) >= 6), key=len, reverse=True))


def exported_name(tool: str) -> str:
    """A tool's name as exported: an MCP tool's (``mcp__<server>__<tool>``, which names a
    user's server, an internal system's or a customer's) is ``mcp_tool``, as the reference
    exports it unless told to include tool details, which Legato never is."""
    return "mcp_tool" if tool.startswith("mcp__") else tool


def traceparent(span: Span) -> dict[str, str]:
    """``TRACEPARENT`` (and ``TRACESTATE``) naming ``span``, for a child process's environment."""
    carrier: dict[str, str] = {}
    PROPAGATOR.inject(carrier, context=trace.set_span_in_context(span))
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
        failures: Failures,
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
            attributes={**self._common(), "span.type": "tool", "tool_name": exported_name(name)},
        )

    def context_of(self, span: Span) -> dict[str, str]:
        """``TRACEPARENT`` (and ``TRACESTATE``) naming ``span``, for a child's environment."""
        return traceparent(span)

    def tool_finished(self, span: Span, name: str, outcome: str, duration_ms: int) -> None:
        name = exported_name(name)
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
        attributes = {
            "tool_name": exported_name(tool),
            "decision": "accept" if allowed else "reject",
        }
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
        # Ctrl-C during the flush (the run is over by now): leave at once, what was not sent is
        # dropped, and the exit code stays the run's.
        with contextlib.suppress(KeyboardInterrupt):
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
