"""The budget's rule and the fallback's reasons, below the process edge (the flags' end-to-end
tests are tests/frontends/test_budget_fallback.py)."""

from __future__ import annotations

import pytest

from actors.conductor.budget import BudgetReached, check_budget, overloaded, request_tokens
from actors.errors import (
    AuthenticationError,
    ConnectionFailed,
    RateLimited,
    RequestRejected,
    ServerError,
    StreamFailed,
)
from actors.protocol import Message, ModelRequest


def _request(speed: str | None = None) -> ModelRequest:
    words = "word " * 4_000  # about 5K tokens
    return ModelRequest(
        model="claude-sonnet-4-6",
        max_tokens=1024,
        messages=[Message("user", [{"type": "text", "text": words}])],
        speed=speed,  # type: ignore[arg-type]
    )


def test_a_request_is_held_once_its_input_would_pass_what_is_left() -> None:
    request = _request()
    cost = request_tokens(request) * 3 / 1_000_000  # sonnet's $3 a million input tokens
    check_budget(1.0, 1.0 - cost, request)  # exactly what is left: it goes
    with pytest.raises(BudgetReached, match=r"of the \$1 budget"):
        check_budget(1.0, 1.0 - cost + 1e-9, request)


def test_fast_mode_input_is_priced_at_its_rate() -> None:
    plain = request_tokens(_request()) * 3 / 1_000_000
    check_budget(1.0, 1.0 - plain, _request())
    with pytest.raises(BudgetReached):
        check_budget(1.0, 1.0 - plain, _request(speed="fast"))


def test_spend_at_unknown_prices_stops_the_run() -> None:
    with pytest.raises(BudgetReached, match="cannot be kept"):
        check_budget(1.0, None, _request())


@pytest.mark.parametrize(
    ("error", "switches"),
    [
        (RateLimited("overloaded", status=529), True),
        (ServerError("failed", status=503), True),
        (RateLimited("slow down", status=429), False),
        (RequestRejected("bad", status=400), False),
        (AuthenticationError("no key", status=401), False),
        (ConnectionFailed("unreachable"), False),
        (StreamFailed("cut short"), False),
    ],
)
def test_what_makes_the_run_fall_back(error: Exception, switches: bool) -> None:
    assert overloaded(error) is switches


def test_an_overloaded_event_in_the_stream_makes_it_fall_back() -> None:
    said = StreamFailed("overloaded")
    said.error_type = "overloaded_error"
    assert overloaded(said)
    said.error_type = "invalid_request_error"
    assert not overloaded(said)
