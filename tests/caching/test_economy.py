"""The token economy, measured on the real session: a lean fixed prefix, and caching that
bills far fewer input tokens over a multi-turn session (benchmarks/tokens.py)."""

from __future__ import annotations

from benchmarks.tokens import PREFIX_LIMIT, measure


async def test_caching_bills_far_fewer_tokens_and_the_prefix_stays_lean() -> None:
    cached, plain, headless_prefix, interactive_prefix = await measure(prompts=2)
    assert cached.requests == plain.requests == 8
    assert plain.usage.cache_read_input_tokens == plain.usage.cache_creation_input_tokens == 0
    assert cached.usage.cache_read_input_tokens > 0.7 * cached.total_input
    assert cached.billed_input < 0.5 * plain.billed_input
    assert 1000 < headless_prefix < PREFIX_LIMIT
    assert 1000 < interactive_prefix < PREFIX_LIMIT
