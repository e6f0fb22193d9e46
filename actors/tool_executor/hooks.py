"""The user's PreToolUse and PostToolUse hooks around the executor's calls (docs/hooks.md).

PreToolUse runs once a call's permission is granted and before it does anything: the tool's
first permission check (``CallContext.check``) runs it, so the rules decide first and a hook can
only tighten them. Its outcome:

- blocked (exit 2, or a ``deny`` decision): the call fails with the hook's reason, for the model;
- ``ask``: a person must allow the call, whatever the rules said (headless: denied);
- ``updatedInput``: the call runs with that input instead, which the tool checks against the
  permission rules again (``InputUpdated`` carries it back to the scheduler); the hook does not
  run a second time.

An allow answer with an input of its own (the Agent SDK's ``updatedInput``) comes back the same
way, before the hooks run, so that they see the input the call will run with.

PostToolUse runs after a call that succeeded; a block's reason and any ``additionalContext``
are added to the result the model reads. Hooks' non-blocking failures are shown to the user.
The runner (``actors/hooks``) picks the hooks by matcher and runs them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from actors.errors import HookBlocked
from actors.protocol import CheckPermission, RunHooks
from actors.tool_executor.context import InputUpdated, refusal

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable

    from actors.protocol import (
        HookEvent,
        HookOutcome,
        HookRunnerMsg,
        PermissionBrokerMsg,
        PermissionRequest,
        ToolCall,
    )
    from actors.tool_executor.context import ToolOutcome
    from runtime import Address


def tool_response(call: ToolCall, content: str) -> dict[str, Any]:
    """A call's result as PostToolUse hooks read it, in the reference assistant's shapes where
    scripts rely on them (``.tool_response.filePath``, ``.tool_response.stdout``)."""
    if call.name in ("Write", "Edit"):
        return {"filePath": call.input.get("file_path"), "success": True, "content": content}
    if call.name == "Bash":
        return {"stdout": content, "stderr": "", "interrupted": False, "isImage": False}
    return {"content": content}


class ToolHooks:
    def __init__(
        self,
        runner: Address[HookRunnerMsg],
        events: frozenset[HookEvent],
        warn: Callable[[str], Awaitable[None]],
    ) -> None:
        self._runner = runner
        self._events = events
        self._warn = warn
        # Calls whose hook said "continue": false, with its stopReason: the scheduler puts it
        # on the call's result, and the prompt ends after the turn.
        self.stops: dict[str, str] = {}

    def pre(
        self,
        call: ToolCall,
        permissions: Address[PermissionBrokerMsg],
        trace: dict[str, str] | None = None,
    ) -> Callable[[PermissionRequest], Awaitable[None]] | None:
        """What the call's first granted permission runs; None when no PreToolUse hook is set.
        ``trace``: the call's trace context, as it is when the hook runs."""
        if "PreToolUse" not in self._events:
            return None

        async def run(request: PermissionRequest) -> None:
            payload = {"tool_name": call.name, "tool_input": call.input, "tool_use_id": call.id}
            outcome = await self._ask("PreToolUse", payload, call.name, trace)
            if outcome.stop:
                reason = outcome.stop_reason or "no reason given"
                self.stops[call.id] = reason
                raise HookBlocked(f"A PreToolUse hook stopped the work: {reason}", remedy="")
            if outcome.blocked:
                raise HookBlocked(
                    f"A PreToolUse hook blocked this call: {outcome.reason or 'no reason given'}",
                    remedy="",
                )
            if outcome.decision == "ask":
                # The hook wants a person, whatever was answered before it ran.
                asked = msgspec.structs.replace(
                    request, hook_asks=outcome.reason or "no reason given", preapproved=None
                )
                decision = await permissions.ask(CheckPermission(request=asked))
                if not decision.allowed:
                    raise refusal(decision)
                if decision.updated_input is not None and decision.updated_input != call.input:
                    raise InputUpdated(decision.updated_input, answered=asked)
            if outcome.updated_input is not None and outcome.updated_input != call.input:
                raise InputUpdated(outcome.updated_input)

        return run

    async def post(
        self, call: ToolCall, done: ToolOutcome, trace: dict[str, str] | None = None
    ) -> ToolOutcome:
        """``done`` with what the PostToolUse hooks said to the model added."""
        if "PostToolUse" not in self._events or done.is_error:
            return done
        payload = {
            "tool_name": call.name,
            "tool_input": call.input,
            "tool_response": tool_response(call, done.content),
            "tool_use_id": call.id,
        }
        outcome = await self._ask("PostToolUse", payload, call.name, trace)
        if outcome.stop:
            self.stops[call.id] = outcome.stop_reason or "no reason given"
        notes = []
        if outcome.blocked:
            notes.append(f"A PostToolUse hook says: {outcome.reason or 'no reason given'}")
        if outcome.context:
            notes.append(outcome.context)
        if not notes:
            return done
        return msgspec.structs.replace(done, content=done.content + "\n\n" + "\n".join(notes))

    def finish(self, call: ToolCall, done: ToolOutcome) -> ToolOutcome:
        """``done`` with the stop a hook of this call asked for, if one did."""
        reason = self.stops.pop(call.id, None)
        return done if reason is None else msgspec.structs.replace(done, stop_reason=reason)

    async def _ask(
        self,
        event: HookEvent,
        payload: dict[str, Any],
        tool: str,
        trace: dict[str, str] | None = None,
    ) -> HookOutcome:
        outcome = await self._runner.ask(
            RunHooks(event=event, payload=payload, tool_name=tool, trace_context=dict(trace or {}))
        )
        for error in outcome.errors:
            await self._warn(error)
        for message in outcome.system_messages:  # a hook's word for the user
            await self._warn(f"{event} hook: {message}")
        return outcome
