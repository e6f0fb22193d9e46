"""Retry decisions, waits, request shape and key lookup: the pure parts below the HTTP edge."""

from __future__ import annotations

import email.utils

import msgspec
import pytest

from actors.model_client.endpoint import Endpoint, resolve_endpoint
from actors.model_client.http import encode_body, request_headers, status_error
from actors.model_client.retry import backoff, retry_after, status_is_retryable
from actors.protocol import GlobalConfig, Message, ModelRequest

KEY = "sk-ant-test-0123456789-SECRET"


@pytest.mark.parametrize(
    ("status", "headers", "expected"),
    [
        (408, {}, True),
        (409, {}, True),
        (429, {}, True),
        (500, {}, True),
        (529, {}, True),
        (400, {}, False),
        (401, {}, False),
        (404, {}, False),
        (400, {"x-should-retry": "true"}, True),
        (529, {"x-should-retry": "false"}, False),
        (503, {"x-should-retry": "maybe"}, True),
    ],
)
def test_which_statuses_are_retried(status: int, headers: dict[str, str], expected: bool) -> None:
    assert status_is_retryable(status, headers) is expected


@pytest.mark.parametrize(
    ("headers", "expected"),
    [
        ({"retry-after-ms": "250"}, 0.25),
        ({"retry-after-ms": "250", "retry-after": "9"}, 0.25),
        ({"retry-after": "2.5"}, 2.5),
        ({"retry-after-ms": "nonsense", "retry-after": "3"}, 3.0),
        ({"retry-after": "60"}, 60.0),
        ({"retry-after": "61"}, None),  # too long: back off normally instead
        ({"retry-after": "0"}, None),
        ({"retry-after": "-1"}, None),
        ({"retry-after": "nan"}, None),
        ({"retry-after": "soon"}, None),
        ({}, None),
    ],
)
def test_the_servers_wait_is_honoured_when_sensible(
    headers: dict[str, str], expected: float | None
) -> None:
    assert retry_after(headers) == expected


def test_retry_after_as_an_http_date() -> None:
    date = email.utils.formatdate(1_000_030, usegmt=True)
    assert retry_after({"retry-after": date}, now=lambda: 1_000_000.0) == 30.0


def test_backoff_doubles_from_half_a_second_up_to_eight_less_up_to_a_quarter() -> None:
    assert [backoff(n, lambda: 0.0) for n in range(6)] == [0.5, 1.0, 2.0, 4.0, 8.0, 8.0]
    assert backoff(0, lambda: 1.0) == 0.375
    assert backoff(5, lambda: 0.5) == 7.0


def config(key: str | None = None) -> GlobalConfig:
    return GlobalConfig(api_key=key)


def test_key_order_is_env_then_config_then_anthropic_env() -> None:
    both = {"ASSISTANT_API_KEY": "a", "ANTHROPIC_API_KEY": "c"}
    assert resolve_endpoint(both, config("b")).api_key == "a"
    assert resolve_endpoint({"ANTHROPIC_API_KEY": "c"}, config("b")).api_key == "b"
    found = resolve_endpoint({"ANTHROPIC_API_KEY": "c", "ASSISTANT_API_KEY": " "}, config())
    assert (found.api_key, found.key_source) == ("c", "ANTHROPIC_API_KEY")
    assert resolve_endpoint({}, config()).api_key is None


@pytest.mark.parametrize(
    ("given", "expected"),
    [
        (None, "https://api.anthropic.com"),
        ("http://127.0.0.1:8080", "http://127.0.0.1:8080"),
        ("http://127.0.0.1:8080/", "http://127.0.0.1:8080"),
        ("http://127.0.0.1:8080/v1", "http://127.0.0.1:8080"),
        ("https://gw.example/anthropic/v1/", "https://gw.example/anthropic"),
    ],
)
def test_base_url_tolerates_a_trailing_slash_or_v1(given: str | None, expected: str) -> None:
    env = {} if given is None else {"ASSISTANT_BASE_URL": given}
    endpoint = resolve_endpoint(env, config())
    assert endpoint.base_url == expected
    assert endpoint.messages_url == f"{expected}/v1/messages"


def test_the_key_is_never_in_a_repr_or_an_error() -> None:
    endpoint = resolve_endpoint({"ASSISTANT_API_KEY": KEY}, config())
    assert KEY not in repr(endpoint)
    # A server (or a proxy) echoing the key back must not get it onto the screen.
    body = msgspec.json.encode(
        {"type": "error", "error": {"type": "authentication_error", "message": f"bad {KEY}"}}
    )
    error = status_error(endpoint, 401, {"request-id": "req_1"}, body)
    for text in (str(error), repr(error), error.describe()):
        assert KEY not in text
    assert "req_1" in str(error)
    assert "ASSISTANT_API_KEY" in str(error)


def request(**extra: object) -> ModelRequest:
    msg = Message("user", [{"type": "text", "text": "hi"}])
    return msgspec.convert(
        {"model": "claude-sonnet-4-6", "max_tokens": 64, "messages": [msg], **extra},
        ModelRequest,
        from_attributes=True,
    )


def test_the_body_is_the_request_plus_stream_true_without_defaults() -> None:
    assert msgspec.json.decode(encode_body(request())) == {
        "model": "claude-sonnet-4-6",
        "max_tokens": 64,
        "messages": [{"role": "user", "content": [{"type": "text", "text": "hi"}]}],
        "stream": True,
    }


def test_headers_carry_key_version_and_the_fast_mode_beta_only_when_fast() -> None:
    endpoint = Endpoint("https://api.anthropic.com", KEY)
    headers = request_headers(endpoint, request())
    assert headers["x-api-key"] == KEY
    assert headers["anthropic-version"] == "2023-06-01"
    assert headers["content-type"] == "application/json"
    assert "anthropic-beta" not in headers
    fast = request_headers(endpoint, request(speed="fast"))
    assert fast["anthropic-beta"] == "fast-mode-2026-02-01"
