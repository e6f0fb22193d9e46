"""What a planned call ends with, whatever happens to it.

``attempt`` runs a plan once and makes every exception the tool raises an ``is_error`` outcome
(a denial worded as a denial, so the model tells it from a failure): a call's failure is its
own result, and only cancellation reaches its siblings. A call stopped before it ended still
has an outcome: ``interrupted`` says how far it got and what it printed, ``withdrawn`` that
the answer asking for it broke off. ``outcome_word`` names an outcome for telemetry.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from actors.errors import LegatoError, PermissionDenied
from actors.protocol import DENIED_PREFIX
from actors.tool_executor.context import InputUpdated, ToolOutcome

if TYPE_CHECKING:
    from actors.tool_executor.context import CallContext
    from actors.tool_executor.plans import Plan


async def attempt(plan: Plan, ctx: CallContext) -> ToolOutcome | InputUpdated:
    if plan.failure is not None or plan.tool is None:
        return ToolOutcome(plan.failure or "", is_error=True)
    name = plan.tool.name
    try:
        return await plan.tool.run(plan.args, ctx)
    except InputUpdated as updated:
        return updated
    except PermissionDenied as exc:
        if exc.remedy:
            content = f"{DENIED_PREFIX}{exc.message.rstrip('.')}. {exc.remedy}"
        else:  # an answerer's own words (``refusal``): as they are
            content = f"{DENIED_PREFIX}{exc.message}"
        return ToolOutcome(content, is_error=True, denied=True)
    except LegatoError as exc:
        return ToolOutcome(exc.describe(), is_error=True)
    except OSError as exc:
        where = f": {exc.filename}" if exc.filename else ""
        return ToolOutcome(f"{name} failed: {exc.strerror or exc}{where}", is_error=True)
    except Exception as exc:  # a bug or a broken broker: the model hears of it, the turn goes on
        return ToolOutcome(f"{name} failed: {type(exc).__name__}: {exc}", is_error=True)


def outcome_word(outcome: ToolOutcome | None) -> str:
    if outcome is None:
        return "interrupted"
    if outcome.denied:
        return "denied"
    return "error" if outcome.is_error else "success"


def withdrawn(ctx: CallContext) -> ToolOutcome:
    """The result of a call whose answer broke off before it started."""
    when = "while it waited for the user's permission" if ctx.asking else "before it started"
    return ToolOutcome(
        f"Not run: the answer that asked for this call broke off {when}; nothing was done.",
        is_error=True,
    )


def interrupted(plan: Plan, ctx: CallContext, began: bool, elapsed: float) -> ToolOutcome:
    """The result of a call stopped by an interrupt: how far it got, and what it printed."""
    if not began:
        return ToolOutcome("Interrupted before it started; nothing was done.", is_error=True)
    if ctx.asking:
        return ToolOutcome(
            f"Interrupted after {elapsed:.1f} s while waiting for the user's permission; "
            "nothing was done.",
            is_error=True,
        )
    if plan.tool is not None and plan.tool.name == "Bash":
        note = (
            f"Interrupted after {elapsed:.1f} s, before it finished; the command and every "
            "process it started were stopped."
        )
        output = ctx.output_so_far().rstrip("\n")
        if output.strip():
            return ToolOutcome(f"{note} Output so far:\n{output}", is_error=True)
        return ToolOutcome(f"{note} It had printed nothing.", is_error=True)
    return ToolOutcome(f"Interrupted after {elapsed:.1f} s, before it finished.", is_error=True)
