"""One Agent SDK callback hook: the frontend that speaks the SDK's control protocol asks the SDK
to run it (``hook_callback``) and hands back its answer.

The answer is a command hook's JSON stdout in all but transport, so a callback's run is made to
look like a command's that exited 0 and printed it: ``outcome.read_run`` reads both alike. A
callback that raises, or answers something that is not a JSON object, is a run with exit code
1 and the error on stderr; one past its timeout is a timed-out run; with no frontend able to run
callbacks, each is a failure too. All of those are non-blocking errors, unless the SDK matcher
said ``onFailure: "block"`` (``fail_closed``).
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any, TypeAlias

import anyio

from actors.protocol import HookRun

if TYPE_CHECKING:
    from actors.hooks.outcome import Verdict
    from actors.protocol import HookCommand, HookEvent

# Callback id, the hook's input (what a command reads on stdin), the tool call's id (tool
# events) -> the SDK's answer. Raises when the SDK answers with an error.
Invoke: TypeAlias = Callable[[str, dict[str, Any], str | None], Awaitable[dict[str, Any]]]

# The events where the SDK's onFailure "block" blocks; Stop and SubagentStop ignore it, as the
# SDK documents (a failing check must not keep the model going for ever).
FAIL_CLOSED = frozenset({"PreToolUse", "PostToolUse", "UserPromptSubmit"})
NO_FRONTEND = "this session's frontend cannot run Agent SDK callbacks"


async def call_hook(
    hook: HookCommand,
    *,
    source: str,
    payload: dict[str, Any],
    tool_use_id: str | None,
    invoke: Invoke | None,
) -> HookRun:
    """Await the SDK's answer to ``hook.callback`` for at most ``hook.timeout`` seconds.
    Cancellation (the user stopped the answer) cancels the pending ask and propagates."""
    assert hook.callback is not None  # the runner sends only callbacks here
    started = anyio.current_time()

    def failed(error: str) -> HookRun:
        elapsed = anyio.current_time() - started
        return HookRun(
            command=hook.command, source=source, exit_code=1, stderr=error, elapsed=elapsed,
            callback=True,
        )  # fmt: skip

    if invoke is None:
        return failed(NO_FRONTEND)
    answer: object = None
    with anyio.move_on_after(hook.timeout) as scope:
        try:
            answer = await invoke(hook.callback, payload, tool_use_id)
        # The SDK's error answer, or a bug in the frontend: either way the hook failed, and a
        # failed hook is reported, not a crash of the session. Cancellation is not an Exception.
        except Exception as error:
            kind = type(error).__name__
            return failed(f"{kind}: {error}" if str(error) else kind)
    if scope.cancelled_caught:
        return HookRun(
            command=hook.command, source=source, exit_code=None, timed_out=True,
            elapsed=anyio.current_time() - started, callback=True,
        )  # fmt: skip
    if not isinstance(answer, dict):
        return failed(f"answered {type(answer).__name__}, not a JSON object")
    try:
        stdout = json.dumps(answer, ensure_ascii=False)
    except (TypeError, ValueError) as error:  # a value JSON has no word for, or a cycle
        return failed(f"answered an object that is not JSON: {error}")
    return HookRun(
        command=hook.command, source=source, exit_code=0, stdout=stdout,
        elapsed=anyio.current_time() - started, callback=True,
    )  # fmt: skip


def fail_closed(event: HookEvent, hook: HookCommand, verdict: Verdict) -> Verdict:
    """With ``onFailure: "block"``, a callback's failure (its errors: it raised, timed out, or
    answered what cannot be read, such as an unknown permissionDecision) blocks what the event
    can block, with the failure as the reason; otherwise ``verdict`` as it is."""
    if not (hook.block_on_failure and verdict.errors and event in FAIL_CLOSED):
        return verdict
    verdict.blocked = True
    verdict.reason = "; ".join(verdict.errors) + ' (its onFailure is "block")'
    verdict.errors = []
    if event == "PreToolUse":
        verdict.decision = "deny"
    return verdict
