"""``--max-budget-usd`` and ``--fallback-model``, read and checked before any request.

A budget is a positive, finite number of US dollars; a fallback is a model this release can
name, other than the one the run starts on. A budget needs prices: a model whose prices are not
known here (a newer Claude id, a model on an OpenAI-compatible server) would spend unseen, so
the flag is refused for it rather than kept in name only. The conductor checks again once the
settings have chosen the model (``actors/conductor/budget.py``).
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from actors.errors import UsageError
from frontends.errors_out import report

if TYPE_CHECKING:
    import argparse


def check_budget_flags(args: argparse.Namespace) -> int | None:
    """``args.max_budget_usd`` made a float and ``args.fallback_model`` a model id, or the exit
    code of a usage error naming the flag and the value."""
    try:
        args.max_budget_usd = _budget(args.max_budget_usd)
        args.fallback_model = _fallback(args.fallback_model, args.model)
        if args.max_budget_usd is not None:
            for model in (args.model, args.fallback_model):
                _priced(model)
    except UsageError as error:
        return report(error)
    return None


def _budget(given: str | None) -> float | None:
    if given is None:
        return None
    try:
        value = float(given)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or value <= 0:
        raise UsageError(
            f"--max-budget-usd {given!r} is not a positive number of US dollars",
            remedy="Give the most the run may spend, such as --max-budget-usd 0.50",
        )
    return value


def _fallback(given: str | None, primary: str | None) -> str | None:
    if given is None:
        return None
    from actors.models import resolve_model, same_provider

    if "," in given:
        # The reference takes a chain tried in order; Legato goes on with one model.
        raise UsageError(
            f"--fallback-model {given!r} names several models; Legato falls back to one",
            remedy=f"Name the one to go on with, such as --fallback-model {given.split(',')[0]}",
        )
    fallback = resolve_model(given).id  # an unknown name: a UsageError naming it
    if primary is not None and resolve_model(primary).id == fallback:
        raise UsageError(
            f"--fallback-model {given} is the same model as --model {primary}",
            remedy="Name another model to fall back to, such as --fallback-model haiku",
        )
    if primary is not None and not same_provider(fallback, resolve_model(primary).id):
        # The run would never switch to it (the conversation stays with its provider): said
        # now rather than found out when the model is overloaded.
        raise UsageError(
            f"--fallback-model {given} is served by another provider than --model {primary}, "
            "and a run does not change provider",
            remedy="Name a model of the same provider to fall back to",
        )
    return fallback


def _priced(name: str | None) -> None:
    if name is None:
        return
    from actors.models import resolve_model

    model = resolve_model(name)
    if model.prices is None:
        raise UsageError(
            f"--max-budget-usd cannot be kept with {model.id}: its prices are not known to "
            "Legato, so what a request costs cannot be told",
            remedy="Use a model with known prices (opus, sonnet, haiku), or leave the budget out",
        )
