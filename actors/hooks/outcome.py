"""What hook runs decided, read as Claude Code reads them, and combined into one outcome.

Per run: exit 0 succeeds, and a JSON object on stdout is its structured answer (plain stdout is
context for UserPromptSubmit and SessionStart); exit 2 blocks where the event can be blocked,
with stderr as the reason (elsewhere stderr is only shown to the user); any other end is a
non-blocking error. Together: a block or a deny wins and the reasons are joined; "ask" beats
"allow"; the first ``updatedInput`` in configured order is used (a different one from a later
hook is reported); contexts and messages are joined in configured order.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any, Literal

import msgspec

from actors.protocol import HookOutcome

if TYPE_CHECKING:
    from collections.abc import Sequence

    from actors.protocol import HookEvent, HookRun

Decision = Literal["allow", "deny", "ask"]

# Events that exit 2 (or ``decision: "block"``) blocks: the tool call, the tool's result (the
# reason goes to the model), the prompt, or the end of the turn (the model continues).
BLOCKABLE = frozenset({"PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop", "SubagentStop"})
# Events whose plain stdout, on exit 0, is added to the model's context.
PLAIN_CONTEXT = frozenset({"UserPromptSubmit", "SessionStart"})
# Events whose ``hookSpecificOutput.additionalContext`` is added to the model's context.
ADDED_CONTEXT = frozenset({"UserPromptSubmit", "SessionStart", "PostToolUse"})
_RANK: dict[Decision, int] = {"allow": 0, "ask": 1, "deny": 2}
_OLD_DECISIONS: dict[str, Decision] = {"approve": "allow", "block": "deny"}
_TAIL = 400  # of stderr, in an error's text


class Verdict(msgspec.Struct):
    """What one run said."""

    blocked: bool = False
    reason: str = ""
    decision: Decision | None = None
    updated_input: dict[str, Any] | None = None
    context: str = ""
    stop: bool = False
    stop_reason: str = ""
    suppress_output: bool = False
    system_message: str = ""
    errors: list[str] = msgspec.field(default_factory=list)


def read_run(event: HookEvent, run: HookRun) -> Verdict:
    verdict = Verdict()
    if run.timed_out:
        verdict.errors.append(f"{run.command}: timed out after {run.elapsed:.1f}s")
    elif run.exit_code is None:
        verdict.errors.append(f"{run.command}: could not start: {run.stderr}")
    elif run.exit_code == 2:
        reason = run.stderr.strip()
        if event == "PreToolUse":
            _decide(verdict, "deny", reason)
        elif event in BLOCKABLE:
            verdict.blocked, verdict.reason = True, reason
        else:
            verdict.errors.append(f"{run.command} exited with 2: {_tail(reason)}")
    elif run.exit_code != 0:
        # A callback has no exit code of its own: its failure is the error it raised.
        ended = "failed" if run.callback else f"exited with {run.exit_code}"
        verdict.errors.append(f"{run.command} {ended}: {_tail(run.stderr)}")
    else:
        answer = _json_object(run.stdout)
        if answer is not None:
            _read_answer(event, run.command, answer, verdict)
        elif event in PLAIN_CONTEXT:
            verdict.context = run.stdout.strip()
    return verdict


def _tail(text: str) -> str:
    text = text.strip()
    return text if len(text) <= _TAIL else "..." + text[-_TAIL:]


def _json_object(stdout: str) -> dict[str, Any] | None:
    text = stdout.strip()
    if not text.startswith("{"):
        return None
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):  # a hook's output nested past the parser's stack
        return None
    return value if isinstance(value, dict) else None


def _text(value: object) -> str:
    return value if isinstance(value, str) else ""


def _read_answer(event: HookEvent, command: str, answer: dict[str, Any], verdict: Verdict) -> None:
    if answer.get("continue") is False:
        verdict.stop, verdict.stop_reason = True, _text(answer.get("stopReason"))
    verdict.suppress_output = answer.get("suppressOutput") is True
    verdict.system_message = _text(answer.get("systemMessage"))
    decision, reason = answer.get("decision"), _text(answer.get("reason"))
    if event == "PreToolUse" and decision in _OLD_DECISIONS:
        _decide(verdict, _OLD_DECISIONS[decision], reason)
    elif decision == "block" and event in BLOCKABLE:
        verdict.blocked, verdict.reason = True, reason
    elif decision is not None:
        verdict.errors.append(f"{command}: decision {decision!r} means nothing for {event}")
    specific = answer.get("hookSpecificOutput")
    if specific is None:
        return
    if not isinstance(specific, dict) or specific.get("hookEventName") != event:
        verdict.errors.append(f"{command}: hookSpecificOutput is not for {event}")
        return
    if event == "PreToolUse":
        _read_pre_tool_use(command, specific, verdict)
    if event in ADDED_CONTEXT:
        verdict.context = _text(specific.get("additionalContext"))


def _read_pre_tool_use(command: str, specific: dict[str, Any], verdict: Verdict) -> None:
    decision = specific.get("permissionDecision")
    if decision in _RANK:
        _decide(verdict, decision, _text(specific.get("permissionDecisionReason")))
    elif decision is not None:
        verdict.errors.append(f"{command}: unknown permissionDecision {decision!r}")
    updated = specific.get("updatedInput")
    if isinstance(updated, dict):
        verdict.updated_input = updated
    elif updated is not None:
        verdict.errors.append(f"{command}: updatedInput is not an object")


def _decide(verdict: Verdict, decision: Decision, reason: str) -> None:
    verdict.decision, verdict.reason = decision, reason
    verdict.blocked = decision == "deny"


def combine(
    runs: Sequence[HookRun], verdicts: Sequence[Verdict], errors: Sequence[str]
) -> HookOutcome:
    """One outcome from the runs in configured order and what each said."""
    all_errors = list(errors)
    decision: Decision | None = None
    updated: dict[str, Any] | None = None
    updated_by = ""
    for run, verdict in zip(runs, verdicts, strict=True):
        all_errors.extend(verdict.errors)
        if verdict.decision is not None and (
            decision is None or _RANK[verdict.decision] > _RANK[decision]
        ):
            decision = verdict.decision
        if verdict.updated_input is None:
            continue
        if updated is None:
            updated, updated_by = verdict.updated_input, run.command
        elif verdict.updated_input != updated:
            all_errors.append(f"{run.command}: its updatedInput is ignored, {updated_by}'s is used")
    blocked = any(v.blocked for v in verdicts)
    if blocked:
        reasons = [v.reason for v in verdicts if v.blocked and v.reason]
    else:
        reasons = [v.reason for v in verdicts if v.decision == decision and v.reason]
    stops = [v.stop_reason for v in verdicts if v.stop and v.stop_reason]
    return HookOutcome(
        runs=tuple(runs),
        blocked=blocked,
        reason="\n".join(reasons) or None,
        decision=decision,
        updated_input=updated,
        context="\n".join(v.context for v in verdicts if v.context),
        stop=any(v.stop for v in verdicts),
        stop_reason="\n".join(stops) or None,
        suppress_output=any(v.suppress_output for v in verdicts),
        system_messages=tuple(v.system_message for v in verdicts if v.system_message),
        errors=tuple(all_errors),
    )
