"""The model table: aliases, ids, context windows and list prices, kept in one place.

Prices are USD per million tokens, the providers' published list prices
(https://docs.anthropic.com/en/docs/about-claude/pricing).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

import msgspec

from actors.errors import UsageError

if TYPE_CHECKING:
    from actors.protocol import Usage


class Prices(msgspec.Struct, frozen=True):
    input: float
    output: float
    cache_write_5m: float
    cache_read: float


class ModelInfo(msgspec.Struct, frozen=True):
    alias: str | None
    id: str
    context_window: int
    prices: Prices | None
    fast_mode: bool = False
    # What the model takes of the reasoning settings (actors/reasoning.py): the effort levels
    # of ``output_config.effort``, ``thinking: {type: "adaptive"}``, ``{type: "enabled",
    # budget_tokens}``, and the most output tokens an answer may have (a thinking budget must
    # stay below the request's max_tokens, which may not pass this).
    efforts: tuple[str, ...] = ()
    adaptive_thinking: bool = False
    budget_thinking: bool = False
    max_output: int = 64_000


# The effort levels the 4.6 models take (the API's; "xhigh" is for newer models only).
_EFFORTS_46 = ("low", "medium", "high", "max")
# A Claude id this release does not know is a newer model: the API judges what it takes.
_ALL_EFFORTS = ("low", "medium", "high", "xhigh", "max")

MODELS: tuple[ModelInfo, ...] = (
    ModelInfo(
        "opus",
        "claude-opus-4-6",
        1_000_000,
        Prices(5, 25, 6.25, 0.50),
        fast_mode=True,
        efforts=_EFFORTS_46,
        adaptive_thinking=True,
        budget_thinking=True,
        max_output=128_000,
    ),
    ModelInfo(
        "sonnet",
        "claude-sonnet-4-6",
        1_000_000,
        Prices(3, 15, 3.75, 0.30),
        efforts=_EFFORTS_46,
        adaptive_thinking=True,
        budget_thinking=True,
    ),
    ModelInfo(
        "haiku",
        "claude-haiku-4-5-20251001",
        200_000,
        Prices(1, 5, 1.25, 0.10),
        budget_thinking=True,
    ),
)
DEFAULT_ALIAS = "sonnet"
_DATED = re.compile(r".+-\d{8}")  # an id ending in its release date
STRONG_ALIAS = "opus"
# The reference assistant's other model names (its model configuration docs), so that a
# ~/.claude/settings.json it shares, or a --model typed from habit, means the same here:
# 'default' is the default model, 'best' the strongest this table knows, and 'opusplan' (opus
# while planning, sonnet for the work) is sonnet, since a session here runs one model.
_REFERENCE_ALIASES = {"default": DEFAULT_ALIAS, "best": STRONG_ALIAS, "opusplan": DEFAULT_ALIAS}
# '[1m]' asks for the million-token window, which opus and sonnet have already.
_WIDE_SUFFIX = "[1m]"
# Fast mode is priced at six times the standard rates.
FAST_MODE_MULTIPLIER = 6.0
# `--model openai:<name>` selects an OpenAI-compatible server (actors/model_client/providers).
OPENAI_PREFIX = "openai:"


def resolve_model(name: str) -> ModelInfo:
    """An alias or a model id -> its table entry.

    Ids outside the table that look like Claude model ids are accepted (a newer model than this
    release knows), with no price: cost for them is reported as unknown rather than guessed.
    """
    wanted = name.strip()
    # Aliases and Claude ids are lower case: OPUS and Claude-Opus-4-6 mean what they say. A
    # name on an OpenAI-compatible server keeps its case, which that server may care about.
    folded = wanted.lower().removesuffix(_WIDE_SUFFIX)
    folded = _REFERENCE_ALIASES.get(folded, folded)
    for model in MODELS:
        if folded in (model.alias, model.id):
            return model
    # An id without its date (claude-haiku-4-5 for claude-haiku-4-5-20251001), when one table
    # entry has it.
    dated = [m for m in MODELS if _DATED.fullmatch(m.id) and m.id.rsplit("-", 1)[0] == folded]
    if len(dated) == 1:
        return dated[0]
    if folded.startswith("claude-") and len(folded) > len("claude-"):
        return ModelInfo(
            None,
            folded,
            200_000,
            None,
            efforts=_ALL_EFFORTS,
            adaptive_thinking=True,
            budget_thinking=True,
        )
    # A model on an OpenAI-compatible server (a local model): its price and window are unknown;
    # 128K is what current open models offer, and it only sizes context warnings.
    if wanted.startswith(OPENAI_PREFIX) and len(wanted) > len(OPENAI_PREFIX):
        return ModelInfo(None, wanted, 128_000, None)
    choices = [m.alias for m in MODELS if m.alias] + [m.id for m in MODELS]
    import difflib  # only for a name that is not a model's: not on every run's way

    close = difflib.get_close_matches(folded, choices, n=1)
    hint = f" Did you mean '{close[0]}'?" if close else ""
    raise UsageError(
        f"unknown model '{name}'.{hint}",
        remedy="Use an alias (opus, sonnet, haiku), a full model id such as claude-sonnet-4-6, "
        "or openai:<name> for a model on an OpenAI-compatible server",
    )


def same_provider(model_id: str, other_id: str) -> bool:
    """Whether two resolved model ids are answered by the same API: an ``openai:`` model by the
    OpenAI-compatible server, any other by the Anthropic API (or Bedrock, which the
    environment chooses for both alike). Which endpoint a conversation goes to is the user's
    choice: a project's settings or the model's Agent call may change the model, not that."""
    return model_id.startswith(OPENAI_PREFIX) == other_id.startswith(OPENAI_PREFIX)


def default_model() -> ModelInfo:
    return resolve_model(DEFAULT_ALIAS)


def cost_usd(model: ModelInfo, usage: Usage, *, fast: bool = False) -> float | None:
    """List-price cost of ``usage``; ``None`` for a model whose prices this release does not know.

    Cache writes are priced at the 5-minute rate, the TTL Legato asks for. Fast mode costs six
    times as much: the answer's own ``usage.speed`` decides when it says which speed ran (fast
    mode may silently fall back to standard); ``fast``, what was asked for, decides otherwise.
    """
    if model.prices is None:
        return None
    if usage.speed is not None:
        fast = usage.speed == "fast"
    p = model.prices
    total = (
        usage.input_tokens * p.input
        + usage.output_tokens * p.output
        + usage.cache_creation_input_tokens * p.cache_write_5m
        + usage.cache_read_input_tokens * p.cache_read
    ) / 1_000_000
    return total * FAST_MODE_MULTIPLIER if fast else total


def speed_notice(model: ModelInfo, *, asked_fast: bool, usage: Usage) -> str | None:
    """What to tell the user when fast mode was asked for and did not happen, else None."""
    if not asked_fast:
        return None
    if not model.fast_mode:
        return (
            f"fast mode is not available for {model.alias or model.id}; it runs at standard "
            f"speed (fast mode is for {STRONG_ALIAS})"
        )
    if usage.speed == "standard":
        return (
            "fast mode was asked for, but the API ran this answer at standard speed "
            "(priced at standard rates)"
        )
    return None
