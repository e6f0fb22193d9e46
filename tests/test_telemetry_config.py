"""How the ``OTEL_*`` variables are read: what turns export on, a protocol Legato cannot speak,
a signal left out, a caller's trace context that is not one."""

from __future__ import annotations

from actors import telemetry
from actors.telemetry.setup import _inbound, build

ENDPOINT = {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9"}


def test_an_endpoint_turns_export_on_and_the_sdk_switch_turns_it_off() -> None:
    assert not telemetry.wanted({})
    assert not telemetry.wanted({"OTEL_EXPORTER_OTLP_ENDPOINT": "  "})
    assert not telemetry.wanted({"OTEL_SERVICE_NAME": "x", "OTEL_TRACES_EXPORTER": "otlp"})
    assert telemetry.wanted(ENDPOINT)
    assert telemetry.wanted({"OTEL_EXPORTER_OTLP_LOGS_ENDPOINT": "http://h:4318/v1/logs"})
    assert not telemetry.wanted(ENDPOINT | {"OTEL_SDK_DISABLED": "true"})


def test_a_protocol_it_cannot_speak_names_the_variable_and_leaves_only_that_signal_out() -> None:
    said: list[str] = []
    env = ENDPOINT | {"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/json"}
    built = build(env, said.append)
    assert built is not None  # metrics and logs still go
    built.shutdown(0.1)
    (warning,) = said
    assert warning.startswith("OTEL_EXPORTER_OTLP_TRACES_PROTOCOL='http/json' is not a protocol")
    assert "traces are not exported" in warning and "http/protobuf" in warning


def test_every_signal_set_to_none_exports_nothing() -> None:
    env = ENDPOINT | {f"OTEL_{s}_EXPORTER": "none" for s in ("TRACES", "METRICS", "LOGS")}
    said: list[str] = []
    assert build(env, said.append) is None
    assert said == []


def test_a_callers_context_is_taken_only_when_it_is_valid() -> None:
    good = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
    assert _inbound({"TRACEPARENT": good}) is not None
    for bad in ("", "garbage", "00-00000000000000000000000000000000-00f067aa0ba902b7-01"):
        assert _inbound({"TRACEPARENT": bad}) is None
    assert telemetry.trace_context({"TRACEPARENT": good, "TRACESTATE": "", "PATH": "/bin"}) == {
        "TRACEPARENT": good
    }


def test_doctor_says_whether_a_session_would_export_and_where() -> None:
    assert telemetry.describe({}).startswith("off (set OTEL_EXPORTER_OTLP_ENDPOINT")
    env = {
        "OTEL_EXPORTER_OTLP_ENDPOINT": "https://me:pw@collector.example:4318",
        "OTEL_LOGS_EXPORTER": "none",
    }
    assert telemetry.describe(env) == (
        "on: traces, metrics to https://me:***@collector.example:4318 over http/protobuf"
    )
