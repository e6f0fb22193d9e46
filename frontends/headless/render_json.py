"""``--output-format json``: nothing until the end, then one result object shaped like
Claude Code's (``result_object``, which stream-json's result line extends)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from actors.protocol import Notice, TurnOutcome
from frontends.headless.render import HeadlessRenderer

if TYPE_CHECKING:
    from actors.protocol import SandboxReport, UiEvent


class JsonRenderer(HeadlessRenderer):
    visible_stdout = False

    def render(self, event: UiEvent) -> None:
        match event:
            case TurnOutcome():
                self.write_line(self.stdout, result_object(event, self.sandbox))
            case Notice(level="warning" | "error", text=text):
                self.stderr.write(f"legato: {text}\n")
            case _:
                pass


def result_object(outcome: TurnOutcome, sandbox: SandboxReport | None = None) -> dict[str, Any]:
    """The final result, field for field like Claude Code's ``--output-format json``, and
    ``sandbox``: whether the session's commands run confined (``active`` is null while the
    session's trial of the sandbox has not finished), and under Landlock, what it does not
    enforce."""
    obj: dict[str, Any] = {
        "type": "result",
        "subtype": outcome.subtype,
        "is_error": outcome.is_error,
        "duration_ms": outcome.duration_ms,
        "duration_api_ms": outcome.duration_api_ms,
        "num_turns": outcome.num_turns,
        "result": outcome.result,
        "session_id": outcome.session_id,
        "total_cost_usd": outcome.total_cost_usd,
        "usage": msgspec.to_builtins(outcome.usage),
        "permission_denials": list(outcome.permission_denials),
    }
    if outcome.error:
        obj["error"] = outcome.error
    if outcome.structured_output is not None:
        obj["structured_output"] = outcome.structured_output
    if sandbox is not None:
        obj["sandbox"] = {
            "active": sandbox.active if sandbox.tried else None,
            "mechanism": sandbox.mechanism,
            "not_enforced": list(sandbox.not_enforced),
            "not_enforced_because": sandbox.why_not,
        }
    return obj
