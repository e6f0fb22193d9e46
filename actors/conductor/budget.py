"""A run's spending cap (``--max-budget-usd``) and its way past an overloaded or missing model
(``--fallback-model``), as the conductor applies them before each request and after a failed one.

The cap is kept conservatively: before each request of the main conversation, what the run has
spent so far (its answers, its subagents' and its tools' own requests, each at its model's list
price) plus what the request's input alone would cost must stay within the budget, or the
request is not sent. The input is estimated from the request's size, at the price it will be
billed at: with prompt caching, what the previous answer's request put in the cache (measured by
its usage) is read at the cache-read price, if this request starts with it, on the same model,
within the cache's lifetime; the rest is written at the cache-write price (1.25 times the input
price, which a plain input price would undercount). What the answer will cost cannot be known
before it is written, so a run may end a little over its budget by its last answer, never by a
request sent once the budget was already spent.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import anyio
import msgspec

from actors.conductor.compaction import estimate_tokens
from actors.errors import (
    ApiError,
    AuthenticationError,
    RequestRejected,
    SessionError,
    StreamFailed,
)
from actors.models import FAST_MODE_MULTIPLIER, resolve_model

if TYPE_CHECKING:
    from actors.models import ModelInfo
    from actors.protocol import Message, ModelRequest, Usage

# What a cache_control breakpoint keeps (caching.py's 5-minute TTL), less a margin for the time
# between the check and the request's arrival.
CACHE_LIFETIME = 270.0


class BudgetReached(SessionError):
    """The next request would take the run's spend over ``--max-budget-usd``: the run stops
    with the result subtype ``error_max_budget_usd``."""

    default_remedy = "Raise --max-budget-usd, or go on with a smaller task (--continue)"


@dataclass(frozen=True)
class Cached:
    """What an answered request left in the prompt cache: its model, tools and system prompt,
    messages, how many input tokens all that measured, and when (``anyio.current_time``)."""

    model: str
    fixed: bytes
    messages: list[Message]
    tokens: int
    at: float

    @classmethod
    def of(cls, request: ModelRequest, usage: Usage, at: float) -> Cached | None:
        if not _marked(request):
            return None
        measured = usage.input_tokens + usage.cache_creation_input_tokens
        measured += usage.cache_read_input_tokens
        return cls(request.model, _fixed(request), list(request.messages), measured, at)

    def prefix_of(self, request: ModelRequest, now: float) -> int | None:
        """How many of ``request``'s messages are read from this cache, or None."""
        count = len(self.messages)
        if (
            request.model != self.model
            or now - self.at > CACHE_LIFETIME
            or len(request.messages) < count
            or _fixed(request) != self.fixed
        ):
            return None
        for old, new in zip(self.messages, request.messages[:count], strict=True):
            # The same message object, or the same but for where the breakpoints are.
            if old is not new and _unmarked(old) != _unmarked(new):
                return None
        return count


MAIN = "main"  # the main conversation's request, among those held against the budget


class Spending:
    """The session's spend under ``--max-budget-usd``: what the prompts that ended spent, and
    the requests sent and not yet answered. A prompt's own spend so far (``spent``: its answers,
    its subagents' and its searches', each at its own model's price; None once part of it was at
    unknown prices) is the conductor's to count, and given to each check."""

    def __init__(self, budget: float | None) -> None:
        self.budget = budget
        self.spent: float | None = 0.0  # by the prompts that ended, for the budget
        # What the main conversation's last answered request left in the prompt cache, and
        # when the latest request went: the budget prices a cache read at its own rate.
        self.cached: Cached | None = None
        self.sent_at = 0.0
        # The input of each request sent and not yet answered ("main", or a subagent's request
        # by id), held against the budget until its usage is counted: a subagent's request
        # and the tools' go while the main answer streams, and subagents run side by side.
        self.reserved: dict[object, float] = {}

    def check(
        self, spent: float | None, request: ModelRequest, cached: Cached | None = None
    ) -> float:
        """Raise ``BudgetReached`` when ``request``, the main conversation's or a subagent's,
        would take the session's spend over ``--max-budget-usd`` (``check_budget`` says the
        rule)."""
        assert self.budget is not None
        held = sum(self.reserved.values())
        before = None if spent is None or self.spent is None else spent + self.spent + held
        return check_budget(self.budget, before, request, cached, anyio.current_time())

    def reserve(self, spent: float | None, request: ModelRequest) -> None:
        """A subagent's or a search's request checked against the budget, and held until it
        is answered."""
        self.reserved[id(request)] = self.check(spent, request)

    def settle(self, request: ModelRequest) -> None:
        """A request ``reserve`` let go was answered: its usage is counted now."""
        self.reserved.pop(id(request), None)

    def left(self, spent: float | None) -> float | None:
        """What the session may still spend under ``--max-budget-usd``; None: no budget."""
        if self.budget is None:
            return None
        if spent is None or self.spent is None:
            return 0.0  # part of it at unknown prices: nothing can be said to be left
        return max(0.0, self.budget - self.spent - spent - sum(self.reserved.values()))

    def prompt_ended(self, spent: float | None) -> None:
        """A prompt ended, ``spent`` its whole spend (interrupted too: what it spent was spent)."""
        self.reserved.clear()  # requests that failed or were stopped: not spent
        self.spent = None if self.spent is None or spent is None else self.spent + spent


def check_budget(
    budget: float,
    spent: float | None,
    request: ModelRequest,
    cached: Cached | None = None,
    now: float = 0.0,
) -> float:
    """Raise ``BudgetReached`` unless ``request``'s input fits in what is left of ``budget``
    after ``spent`` (None: some of it was spent at unknown prices); else what that input will
    cost. ``cached``: what the previous request left in the prompt cache, as of ``now``."""
    model = resolve_model(request.model)
    if model.prices is None:
        raise BudgetReached(unpriced(model))
    if spent is None:
        raise BudgetReached(
            f"stopped: --max-budget-usd {budget:g} cannot be kept, since part of the run "
            "was priced at rates Legato does not know"
        )
    next_input = input_cost(request, model, cached, now)
    if request.speed == "fast":
        next_input *= FAST_MODE_MULTIPLIER
    if spent + next_input > budget:
        raise BudgetReached(
            f"stopped before the next request: ${spent:.4f} of the ${budget:g} budget "
            f"(--max-budget-usd) is spent, and that request's input alone would cost about "
            f"${next_input:.4f}, more than is left"
        )
    return next_input


def input_cost(request: ModelRequest, model: ModelInfo, cached: Cached | None, now: float) -> float:
    """What ``request``'s input will be billed, in US dollars, at most (about)."""
    prices = model.prices
    assert prices is not None
    if not _marked(request):
        return request_tokens(request) * prices.input / 1_000_000
    count = None if cached is None else cached.prefix_of(request, now)
    if cached is None or count is None:
        return request_tokens(request) * prices.cache_write_5m / 1_000_000
    written = estimate_tokens(request.messages[count:])
    return (cached.tokens * prices.cache_read + written * prices.cache_write_5m) / 1_000_000


def _marked(request: ModelRequest) -> bool:
    """Whether ``request`` carries prompt-caching breakpoints (caching.py marks the ends of its
    tools, its system prompt and its conversation)."""
    system = request.system if isinstance(request.system, list) else []
    ends = [*request.tools[-1:], *system[-1:]]
    if request.messages:
        ends += request.messages[-1].content[-1:]
    return any("cache_control" in block for block in ends)


def _fixed(request: ModelRequest) -> bytes:
    return msgspec.json.encode([request.tools, request.system])


def _unmarked(message: Message) -> list[dict[str, object]]:
    return [{k: v for k, v in block.items() if k != "cache_control"} for block in message.content]


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


def unavailable(error: Exception) -> bool:
    """Whether ``error`` is a reason to go on with the fallback model: the model is overloaded
    (above), or the API does not have it (HTTP 404: a retired model, or one this account may
    not use), as the reference switches for both."""
    if isinstance(error, RequestRejected) and error.status == 404:
        return True
    return overloaded(error)
