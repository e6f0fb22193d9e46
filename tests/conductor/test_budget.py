"""The budget's rule and the fallback's reasons, below the process edge (the flags' end-to-end
tests are tests/frontends/test_budget_fallback.py)."""

from __future__ import annotations

import msgspec
import pytest

from actors.conductor.budget import (
    CACHE_LIFETIME,
    BudgetReached,
    Cached,
    check_budget,
    input_cost,
    overloaded,
    request_tokens,
    unavailable,
)
from actors.conductor.caching import with_breakpoints
from actors.errors import (
    AuthenticationError,
    ConnectionFailed,
    RateLimited,
    RequestRejected,
    ServerError,
    StreamFailed,
)
from actors.models import resolve_model
from actors.protocol import Message, ModelRequest, Usage


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


def test_a_cached_prefix_is_priced_as_read_only_while_the_cache_holds_it() -> None:
    sonnet = resolve_model("sonnet")
    first = with_breakpoints(_request())
    answer = Message("assistant", [{"type": "text", "text": "ok"}])
    follow = Message("user", [{"type": "text", "text": "and then?"}])
    plain = _request()
    second = with_breakpoints(
        ModelRequest(model=plain.model, max_tokens=1024, messages=[*plain.messages, answer, follow])
    )
    cached = Cached.of(first, Usage(cache_creation_input_tokens=5_000), at=0.0)
    assert cached is not None
    written = request_tokens(second) * 3.75 / 1_000_000  # nothing read: all written
    fresh = input_cost(second, sonnet, cached, now=CACHE_LIFETIME - 1)
    assert fresh < 5_000 * 0.3 / 1_000_000 + written / 100
    # Expired, another model's cache, or another start of the conversation: written again.
    assert input_cost(second, sonnet, cached, now=CACHE_LIFETIME + 1) == written
    haiku = msgspec.structs.replace(second, model=resolve_model("haiku").id)
    assert input_cost(haiku, sonnet, cached, now=1) == request_tokens(haiku) * 3.75 / 1_000_000
    other = with_breakpoints(msgspec.structs.replace(plain, messages=[follow, answer, follow]))
    assert input_cost(other, sonnet, cached, now=1) == request_tokens(other) * 3.75 / 1_000_000


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


def test_a_model_the_api_does_not_have_is_a_reason_to_switch_and_another_rejection_is_not() -> None:
    assert unavailable(RequestRejected("not_found_error: model: claude-2", status=404))
    assert not unavailable(RequestRejected("invalid_request_error", status=400))
    assert unavailable(RateLimited("overloaded", status=529))
    assert not unavailable(RateLimited("slow down", status=429))
