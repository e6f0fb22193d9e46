"""The status line's count: a subagent's answer costs at its own model's price and leaves the
main conversation's context fill alone."""

from __future__ import annotations

import pytest

from actors.models import cost_usd, resolve_model
from actors.protocol import Usage
from frontends.interactive.status import Status


def test_a_subagents_answer_counts_at_its_models_price() -> None:
    status = Status(model=resolve_model("sonnet").id, mode="ask")
    main = Usage(input_tokens=1000, output_tokens=100)
    agent = Usage(input_tokens=5000, output_tokens=500)
    status.count(main)
    status.count(agent, model=resolve_model("haiku").id)
    assert status.usage == main + agent
    assert status.context_tokens == 1100  # the main conversation's latest answer
    expected = cost_usd(resolve_model("sonnet"), main)
    also = cost_usd(resolve_model("haiku"), agent)
    assert expected is not None and also is not None
    assert status.cost == pytest.approx(expected + also)
