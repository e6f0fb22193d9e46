"""How much the model reasons before it answers: ``--effort``, ``--thinking``,
``--max-thinking-tokens`` and ``--thinking-display`` (the Agent SDK's ``effort`` and
``thinking`` options are these flags), and the reference's variables for them, as the
Messages API takes them: ``output_config: {effort}`` and ``thinking: {type: "adaptive"}``,
``{type: "enabled", budget_tokens}`` or ``{type: "disabled"}``, with ``display``.

What a model takes is in its table entry (actors/models.py). A setting the model does not take
is refused, naming the model and the flag, before any request; after a switch of model in the
session it is left out of the requests, and the person is told once.

Only msgspec and Legato's own light modules are imported: the flags are read on every start.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from actors.errors import UsageError

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from actors.models import ModelInfo
    from actors.protocol import Message, Setting

EFFORT_LEVELS = ("low", "medium", "high", "xhigh", "max")
THINKING_MODES = ("adaptive", "disabled")  # --thinking; a fixed budget is --max-thinking-tokens
DISPLAYS = ("summarized", "omitted")
MIN_BUDGET = 1024  # the API's least thinking budget
# The reference's variables: the effort level wins over the flag (as the reference's does), the
# thinking budget stands in for an absent flag.
EFFORT_ENV = "CLAUDE_CODE_EFFORT_LEVEL"
BUDGET_ENV = "MAX_THINKING_TOKENS"


class Reasoning(msgspec.Struct, frozen=True, kw_only=True):
    """What was asked for, each with the flag or variable that asked (named in refusals)."""

    effort: str | None = None
    effort_source: str = ""  # "": no level was asked for (auto is one: the model's default)
    thinking: str | None = None  # "adaptive", "enabled" (with budget_tokens) or "disabled"
    budget_tokens: int | None = None
    thinking_source: str = "--thinking"
    display: str | None = None


class RequestFields(msgspec.Struct, frozen=True):
    """What a request carries for a model: its ``thinking``, ``output_config`` and
    ``max_tokens``, and why a setting was left out: ``refused`` what a flag asked for (an error
    before any request), ``unsent`` what a variable asked for (a warning: a variable set for the
    reference's sake must not stop a session on a model that cannot use it)."""

    thinking: dict[str, Any] | None
    output_config: dict[str, Any] | None
    max_tokens: int
    refused: tuple[UsageError, ...] = ()
    unsent: tuple[UsageError, ...] = ()


def reasoning_from(
    *,
    effort: str | None,
    thinking: str | None,
    max_thinking_tokens: str | None,
    display: str | None,
    env: Mapping[str, str],
) -> Reasoning:
    """The settings the flags and variables ask for; a value that is no setting raises
    ``UsageError`` naming the flag and what it takes."""
    effort_source = "--effort" if effort is not None else ""
    if env.get(EFFORT_ENV):
        effort, effort_source = env[EFFORT_ENV], EFFORT_ENV
    if effort is not None:
        effort = effort.strip().lower()
        if effort == "auto":  # the reference's word for the model's default
            effort = None
        elif effort not in EFFORT_LEVELS:
            raise UsageError(
                f"{effort_source} {effort!r} is not an effort level",
                remedy=f"Give one of {', '.join(EFFORT_LEVELS)} (or auto for the model's default)",
            )
    if thinking is not None and thinking not in THINKING_MODES:
        raise UsageError(
            f"--thinking {thinking!r} is not a thinking mode",
            remedy="Give adaptive or disabled; a fixed budget is --max-thinking-tokens N",
        )
    budget_source = "--max-thinking-tokens"
    if max_thinking_tokens is None and thinking is None and env.get(BUDGET_ENV):
        max_thinking_tokens, budget_source = env[BUDGET_ENV], BUDGET_ENV
    budget: int | None = None
    if max_thinking_tokens is not None:
        if thinking is not None:
            raise UsageError(
                f"--thinking {thinking} and --max-thinking-tokens {max_thinking_tokens} were both "
                "given",
                remedy="Give one of them: --max-thinking-tokens N thinks with a fixed budget",
            )
        budget = _budget(max_thinking_tokens, budget_source)
        thinking = "disabled" if budget == 0 else "enabled"
    source = budget_source if budget is not None else "--thinking"
    if display is not None:
        if display not in DISPLAYS:
            raise UsageError(
                f"--thinking-display {display!r} is not a display",
                remedy="Give summarized or omitted",
            )
        if thinking not in ("adaptive", "enabled"):
            raise UsageError(
                "--thinking-display says how thinking comes back, and thinking is not on",
                remedy="Add --thinking adaptive or --max-thinking-tokens N, or leave it out",
            )
    return Reasoning(
        effort=effort,
        effort_source=effort_source,
        thinking=thinking,
        budget_tokens=budget or None,
        thinking_source=source,
        display=display,
    )


def with_settings_effort(
    reasoning: Reasoning | None, setting: Setting[str] | None
) -> Reasoning | None:
    """``reasoning`` with the settings files' ``effortLevel`` where no flag or variable chose
    a level. A file's level is a default, shared with the reference perhaps: a model that
    does not take it goes without, with a warning, rather than stopping the session."""
    if setting is None or (reasoning is not None and reasoning.effort_source):
        return reasoning
    return msgspec.structs.replace(
        reasoning or Reasoning(),
        effort=setting.value,
        effort_source=f"effortLevel in {setting.source}",
    )


def _budget(text: str, source: str) -> int:
    # ASCII digits only: Python's int() also reads "1_024" and full-width digits, which the
    # reference (and a person reading the setting) would not take for that number.
    digits = text.strip()
    try:
        budget = int(digits) if digits.isascii() and digits.isdigit() else -1
    except ValueError:  # more digits than int() reads: no budget either
        budget = -1
    if budget == 0 or budget >= MIN_BUDGET:
        return budget
    if budget > 0 and source == BUDGET_ENV:
        return MIN_BUDGET  # the reference's variable is raised to the least, not refused
    raise UsageError(
        f"{source} {text!r} is not a thinking budget",
        remedy=f"Give a whole number of tokens, at least {MIN_BUDGET} (0 turns thinking off)",
    )


def request_fields(reasoning: Reasoning, model: ModelInfo, max_tokens: int) -> RequestFields:
    """The request's fields for ``model``; what it does not take is left out, and said in
    ``refused`` or ``unsent`` by who asked for it, each error naming the model and the flag."""
    name = model.alias or model.id
    refused: list[UsageError] = []
    unsent: list[UsageError] = []

    def refuse(source: str, why: str, remedy: str) -> None:
        (refused if source.startswith("--") else unsent).append(UsageError(why, remedy=remedy))

    output_config: dict[str, Any] | None = None
    if reasoning.effort is not None:
        level = _level(reasoning.effort, model.efforts)
        if level is None:
            source = reasoning.effort_source
            why = f"{name} does not take an effort level ({source} {reasoning.effort})"
            refuse(source, why, _remedy(model, "effort"))
        else:
            output_config = {"effort": level}
    thinking: dict[str, Any] | None = None
    source, budget = reasoning.thinking_source, reasoning.budget_tokens or MIN_BUDGET
    if source == BUDGET_ENV:
        # As the reference caps its variable: below what the model writes in one answer.
        budget = min(budget, model.max_output - 1)
    match reasoning.thinking:
        case "adaptive" if not model.adaptive_thinking:
            why = f"{name} does not think adaptively (--thinking adaptive)"
            refuse(source, why, _remedy(model, "adaptive"))
        case "enabled" if not model.budget_thinking:
            why = f"{name} does not think with a budget ({source} {budget})"
            refuse(source, why, _remedy(model, "budget"))
        case "enabled" if budget >= model.max_output:
            why = (
                f"{source} {budget} is more than {name} writes in one answer "
                f"({model.max_output} tokens, thinking included)"
            )
            refuse(source, why, f"Give a budget below {model.max_output}")
        case "enabled":
            thinking = {"type": "enabled", "budget_tokens": budget}
            # The budget is part of max_tokens: room is kept for the answer after it.
            if budget >= max_tokens:
                max_tokens = min(budget + max_tokens, model.max_output)
        case "adaptive":
            thinking = {"type": "adaptive"}
        case "disabled" if model.budget_thinking or model.adaptive_thinking:
            thinking = {"type": "disabled"}
        case _:
            pass  # nothing asked, or off for a model that never thinks
    if thinking is not None and reasoning.display is not None and thinking["type"] != "disabled":
        thinking["display"] = reasoning.display
    return RequestFields(thinking, output_config, max_tokens, tuple(refused), tuple(unsent))


def without_unthought_turn(
    thinking: dict[str, Any] | None, messages: Sequence[Message]
) -> dict[str, Any] | None:
    """``thinking`` for a request that ``messages`` end: off while the tool results it sends
    answer an assistant turn that began without thinking (thinking was off then: a resumed
    session, a model switched, a budget given with --continue). The Messages API refuses
    thinking there, the turn having to start with a thinking block; it comes back on with
    the next prompt's first answer."""
    if thinking is None or thinking["type"] == "disabled" or len(messages) < 2:
        return thinking
    turn, last = messages[-2], messages[-1]
    answers_tools = any(block.get("type") == "tool_result" for block in last.content)
    if turn.role != "assistant" or last.role != "user" or not answers_tools:
        return thinking
    first = turn.content[0].get("type") if turn.content else None
    if first in ("thinking", "redacted_thinking"):
        return thinking
    return {"type": "disabled"}


def _level(effort: str, levels: tuple[str, ...]) -> str | None:
    """The level sent: the one asked for, or the highest the model has below it (xhigh runs
    as high on a model without xhigh, as the reference does); None: the model has none."""
    if not levels:
        return None
    asked = EFFORT_LEVELS.index(effort)
    below = [level for level in levels if EFFORT_LEVELS.index(level) <= asked]
    return below[-1] if below else levels[0]


def _remedy(model: ModelInfo, what: str) -> str:
    if model.id.startswith("openai:"):
        return "A model on an OpenAI-compatible server takes none of these: leave the flag out"
    takes = {
        "effort": "opus and sonnet take effort levels",
        "adaptive": "opus and sonnet think adaptively; use --max-thinking-tokens N here",
        "budget": "opus, sonnet and haiku take --max-thinking-tokens",
    }
    return f"Leave the flag out or choose another model with --model ({takes[what]})"


def chosen_effort(
    reasoning: Reasoning | None, level: str, model: ModelInfo
) -> tuple[Reasoning | None, str]:
    """``/effort``: the settings with ``level`` (``auto``: the model's default; empty: as they
    are), and what to tell the person. ``CLAUDE_CODE_EFFORT_LEVEL`` holds over it, as it
    does in the reference; a level that is none, or a model that takes none, raises."""
    name = model.alias or model.id
    current = reasoning.effort if reasoning is not None else None
    source = reasoning.effort_source if reasoning is not None else ""
    if not level.strip():
        shown = f"{current} ({source})" if current else "the model's default"
        return reasoning, f"Effort: {shown} on {name}"
    if source == EFFORT_ENV:
        raise UsageError(
            f"{EFFORT_ENV} sets the effort of this session ({current or 'auto'})",
            remedy=f"Unset {EFFORT_ENV} and start again to choose it with /effort",
        )
    wanted = level.strip().lower()
    if wanted != "auto" and wanted not in EFFORT_LEVELS:
        raise UsageError(
            f"/effort {level.strip()!r} is not an effort level",
            remedy=f"Give one of {', '.join(EFFORT_LEVELS)}, or auto for the model's default",
        )
    if wanted != "auto" and _level(wanted, model.efforts) is None:
        raise UsageError(f"{name} does not take an effort level", remedy=_remedy(model, "effort"))
    effort = None if wanted == "auto" else wanted
    changed = msgspec.structs.replace(
        reasoning or Reasoning(), effort=effort, effort_source="/effort"
    )
    if effort is None:
        return changed, f"Effort: the model's default on {name}"
    sent = _level(effort, model.efforts)
    runs = f" (runs as {sent} on {name})" if sent != effort else ""
    return changed, f"Effort set to {effort}{runs}"
