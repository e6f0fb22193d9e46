"""What a prompt's side requests used: its subagents', its tools' own and its searches' usage,
cost and denials, counted apart from the main conversation's answers for the prompt's outcome
and the budget.

Here, below the Agent tool (``agents.py``) and WebSearch (``web_search.py``), so that either
counts without importing the other.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from actors.models import cost_usd, resolve_model
from actors.protocol import Usage

if TYPE_CHECKING:
    from actors.protocol import Block


class Tally(msgspec.Struct):
    """What the subagents of one prompt used, for its outcome: usage, cost, denials."""

    usage: Usage = msgspec.field(default_factory=Usage)
    cost: float | None = 0.0  # None once one agent's model has no known price
    denials: list[Block] = msgspec.field(default_factory=list)

    def add(self, model_id: str, usage: Usage) -> None:
        self.usage = self.usage + usage
        cost = cost_usd(resolve_model(model_id), usage)
        self.cost = None if self.cost is None or cost is None else self.cost + cost
