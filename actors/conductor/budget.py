"""A run's spending cap (``--max-budget-usd``) and its way past an overloaded model
(``--fallback-model``), as the conductor applies them before each request and after a failed one.

The cap is kept conservatively: before each request of the main conversation, what the run has
spent so far (its answers, its subagents' and its tools' own requests, each at its model's list
price) plus what the request's input alone would cost at the model's full input price must stay
within the budget, or the request is not sent. The input is estimated from the request's size;
what the answer will cost cannot be known before it is written, so a run may end a little over
its budget by its last answer, never by a request sent once the budget was already spent.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from actors.conductor.compaction import estimate_tokens
from actors.errors import ApiError, AuthenticationError, SessionError, StreamFailed
from actors.models import FAST_MODE_MULTIPLIER, resolve_model

if TYPE_CHECKING:
    from actors.models import ModelInfo
    from actors.protocol import ModelRequest


class BudgetReached(SessionError):
    """The next request would take the run's spend over ``--max-budget-usd``: the run stops
    with the result subtype ``error_max_budget_usd``."""

    default_remedy = "Raise --max-budget-usd, or go on with a smaller task (--continue)"


def check_budget(budget: float, spent: float | None, request: ModelRequest) -> None:
    """Raise ``BudgetReached`` unless ``request``'s input fits in what is left of ``budget``
    after ``spent`` (None: some of it was spent at unknown prices)."""
    model = resolve_model(request.model)
    if spent is None or model.prices is None:
        raise BudgetReached(
            f"stopped: --max-budget-usd {budget:g} cannot be kept, since part of the run "
            "was priced at rates Legato does not know"
        )
    next_input = request_tokens(request) * model.prices.input / 1_000_000
    if request.speed == "fast":
        next_input *= FAST_MODE_MULTIPLIER
    if spent + next_input > budget:
        raise BudgetReached(
            f"stopped before the next request: ${spent:.4f} of the ${budget:g} budget "
            f"(--max-budget-usd) is spent, and that request's input alone would cost about "
            f"${next_input:.4f}, more than is left"
        )


def request_tokens(request: ModelRequest) -> int:
    """About how many input tokens ``request`` is: its messages as compaction counts them, its
    system prompt and tool definitions at about 4 bytes a token."""
    fixed = len(msgspec.json.encode([request.tools, request.system]))
    return estimate_tokens(request.messages) + fixed // 4


def unpriced(model: ModelInfo) -> str:
    """Why a budget cannot be kept with ``model``, in words."""
    return (
        f"--max-budget-usd cannot be kept with {model.id}: its prices are not known to Legato, "
        "so what a request costs cannot be told. Use a model with known prices (opus, sonnet, "
        "haiku), or leave the budget out"
    )


def overloaded(error: Exception) -> bool:
    """Whether ``error`` says the model is overloaded or its servers are failing, still after the
    model client's retries: HTTP 529 (``overloaded_error``) or another 5xx, or the same said by
    an ``event: error`` in the answer's stream. A rate limit (429),
    a rejected request or a refused key is the same on any model: no reason to switch."""
    if isinstance(error, StreamFailed):
        # Said inside a stream the API had started: its own type says which.
        return error.error_type in ("overloaded_error", "api_error")
    if isinstance(error, AuthenticationError) or not isinstance(error, ApiError):
        return False
    return error.status is not None and (error.status == 529 or 500 <= error.status <= 599)
