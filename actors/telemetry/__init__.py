"""OpenTelemetry export of a session's work: one owner for traces, metrics and log events.

Off unless an OTLP endpoint is configured (``OTEL_EXPORTER_OTLP_ENDPOINT`` or a per-signal
one): then ``start`` builds the exporters (``setup.py``; it and ``otel.py`` are the only modules
that import OpenTelemetry) and ``current`` holds them. Every place that reports (the conductor's
prompt, the model client's request, the executor's tool call, the broker's decision) tests
``current is None`` first, so a session without telemetry pays one comparison and imports
nothing of OpenTelemetry.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from actors.visible import escape_controls, without_password

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from actors.telemetry.otel import Telemetry

__all__ = [
    "CONTEXT_VARIABLES",
    "ENDPOINT_VARIABLES",
    "current",
    "describe",
    "for_children",
    "protocol_of",
    "signal_wanted",
    "start",
    "stop",
    "trace_context",
    "wanted",
]

ENDPOINT_VARIABLES = (
    "OTEL_EXPORTER_OTLP_ENDPOINT",
    "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT",
    "OTEL_EXPORTER_OTLP_METRICS_ENDPOINT",
    "OTEL_EXPORTER_OTLP_LOGS_ENDPOINT",
)

CONTEXT_VARIABLES = ("TRACEPARENT", "TRACESTATE")
SIGNALS = ("traces", "metrics", "logs")

current: Telemetry | None = None


# A W3C ``traceparent``: version, trace id, parent span id, flags; all-zero ids are invalid, and
# so is version ff. ``tracestate``: printable ASCII, as long as the spec lets a caller make it.
_TRACEPARENT = re.compile(
    r"(?!ff)[0-9a-f]{2}-(?!0{32})[0-9a-f]{32}-(?!0{16})[0-9a-f]{16}-[0-9a-f]{2}"
)
_TRACESTATE = re.compile(r"[\x20-\x7e]{1,512}")


def trace_context(env: Mapping[str, str]) -> dict[str, str]:
    """The W3C trace context ``env`` carries, for a child process whose environment is built
    from a short list (an MCP server's), so that it stays in its caller's trace. Only a valid
    ``TRACEPARENT`` is carried (and ``TRACESTATE`` beside one): anything else in those
    variables (a newline, an escape sequence, a megabyte) is not a trace, and no child gets it."""
    parent = env.get("TRACEPARENT") or ""
    if not _TRACEPARENT.fullmatch(parent):
        return {}
    state = env.get("TRACESTATE") or ""
    return {"TRACEPARENT": parent} | ({"TRACESTATE": state} if _TRACESTATE.fullmatch(state) else {})


def for_children(env: Mapping[str, str]) -> dict[str, str]:
    """``env`` for a child process (a command, a hook): without any ``OTEL_*`` variable, as the
    reference does (a traced program a command runs sets its own, rather than exporting to
    Legato's collector with its token), and with ``TRACEPARENT`` and ``TRACESTATE`` only when
    they are a valid trace context (``trace_context``)."""
    kept = {
        name: value
        for name, value in env.items()
        if name not in CONTEXT_VARIABLES and not name.startswith("OTEL_")
    }
    return kept | trace_context(env)


def wanted(env: Mapping[str, str]) -> bool:
    """Whether ``env`` asks for export: an endpoint is set, and the SDK is not switched off."""
    if (env.get("OTEL_SDK_DISABLED") or "").strip().lower() == "true":
        return False
    return any((env.get(name) or "").strip() for name in ENDPOINT_VARIABLES)


def protocol_of(env: Mapping[str, str], signal: str) -> tuple[str, str]:
    """The protocol asked for ``signal`` (``traces``, ``metrics``, ``logs``) and the variable
    that asked it."""
    for name in (f"OTEL_EXPORTER_OTLP_{signal.upper()}_PROTOCOL", "OTEL_EXPORTER_OTLP_PROTOCOL"):
        value = (env.get(name) or "").strip().lower()
        if value:
            return value, name
    return "http/protobuf", "OTEL_EXPORTER_OTLP_PROTOCOL"


def signal_wanted(env: Mapping[str, str], signal: str) -> bool:
    """``OTEL_<SIGNAL>_EXPORTER``: ``none`` turns one signal off; unset or ``otlp`` keeps it."""
    chosen = (env.get(f"OTEL_{signal.upper()}_EXPORTER") or "otlp").lower().split(",")
    return "otlp" in (part.strip() for part in chosen)


def describe(env: Mapping[str, str]) -> str:
    """One line for ``legato doctor``: whether a session would export, what and where."""
    if not wanted(env):
        return "off (set OTEL_EXPORTER_OTLP_ENDPOINT to export traces, metrics and events)"
    signals = [signal for signal in SIGNALS if signal_wanted(env, signal)]
    if not signals:
        return "off (every OTEL_*_EXPORTER is none)"
    protocols = sorted({protocol_of(env, signal)[0] for signal in signals})
    endpoint = next((env[name].strip() for name in ENDPOINT_VARIABLES if env.get(name)), "")
    where = escape_controls(without_password(endpoint))
    return f"on: {', '.join(signals)} to {where} over {', '.join(protocols)}"


def start(env: Mapping[str, str], warn: Callable[[str], None]) -> None:
    """Start exporting when ``env`` asks for it; a setting it cannot honour is said through
    ``warn`` and that signal (or all) is not exported: the run itself goes on."""
    global current
    if not wanted(env) or current is not None:
        return
    try:
        from actors.telemetry.setup import build

        current = build(env, warn)
    except Exception as error:  # an SDK refusing a setting: the run goes on without export
        warn(f"telemetry is not exported: {type(error).__name__}: {error}")


def stop(timeout: float = 1.0) -> None:
    """Flush what is waiting and end export, in at most ``timeout`` seconds (a collector that
    does not answer costs the exit no more)."""
    global current
    telemetry, current = current, None
    if telemetry is not None:
        telemetry.shutdown(timeout)
