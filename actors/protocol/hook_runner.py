"""The hook runner's inbox.

Runs the user's hook commands for an event: those whose matcher matches, side by side, each
with the event's JSON on stdin, a timeout and bounded output; answers what they decided.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from actors.settings import HookEvent, HookGroup
from runtime import Ask


class HookRun(msgspec.Struct, frozen=True, kw_only=True):
    """One hook command's run."""

    command: str
    source: str  # the settings file it came from
    exit_code: int | None  # None: it did not exit by itself (timed out, or was cancelled)
    stdout: str = ""  # bounded
    stderr: str = ""  # bounded
    timed_out: bool = False
    elapsed: float = 0.0
    # An Agent SDK callback's run: stdout is its JSON answer; a failure (it raised, or answered
    # something that is not a JSON object) has exit code 1 and the error on stderr.
    callback: bool = False


class HookOutcome(msgspec.Struct, frozen=True, kw_only=True):
    """What the hooks of one event decided together (a block or a deny wins over the rest)."""

    runs: tuple[HookRun, ...] = ()
    blocked: bool = False  # exit 2 (where it blocks), or a JSON decision to block / deny
    reason: str | None = None  # why, for the model (tool events, Stop) or the user (a prompt)
    # PreToolUse's JSON permissionDecision, when a hook gave one ("deny" also sets ``blocked``).
    decision: Literal["allow", "deny", "ask"] | None = None
    updated_input: dict[str, Any] | None = None  # PreToolUse's updatedInput
    context: str = ""  # added to the model's context (UserPromptSubmit, SessionStart, ...)
    errors: tuple[str, ...] = ()  # non-blocking failures, to show the user
    stop: bool = False  # a hook's JSON said ``"continue": false``: the session stops the turn
    stop_reason: str | None = None  # its ``stopReason``, for the user (not the model)
    suppress_output: bool = False  # ``suppressOutput``: keep the hooks' stdout out of view
    system_messages: tuple[str, ...] = ()  # ``systemMessage``s, warnings for the user


class RunHooks(Ask[HookOutcome], frozen=True, tag=True):
    """Run the hooks of ``event``: ``payload`` holds the event's own fields (``tool_name``,
    ``tool_input``, ``prompt``, ...); the runner adds the common ones (``session_id``,
    ``transcript_path``, ``cwd``, ``hook_event_name``, ``permission_mode``). ``tool_name``
    selects by matcher (tool events only). With no hook for the event it answers at once."""

    event: HookEvent
    payload: dict[str, Any]
    tool_name: str | None = None
    # TRACEPARENT (and TRACESTATE) naming the tool call's span, when telemetry is exported:
    # the hook's commands get it in their environment, over the session's.
    trace_context: dict[str, str] = msgspec.field(default_factory=dict)


class ListHooks(Ask[tuple[HookGroup, ...]], frozen=True, tag=True):
    """The configured hooks, as the runner holds them (``/hooks``)."""


class ApproveHooks(Ask[tuple[HookGroup, ...]], frozen=True, tag=True):
    """The user approved the project's hooks: recorded by the memory store, and run from now
    on; answers the groups."""


class RunStatusLine(Ask[HookRun], frozen=True, tag=True):
    """Run the ``statusLine`` command (``ProjectContext.status_line``) once, as a hook runs:
    its own process group, the session's environment without Legato's credentials, bounded
    output, ended at ``timeout`` or when the asker stops waiting. ``state`` is the session's
    state in the reference's JSON; the runner adds ``session_id``, ``transcript_path``,
    ``cwd`` and ``workspace``'s folders. ``columns``: the terminal's width, as ``COLUMNS``."""

    command: str
    state: dict[str, Any]
    timeout: float
    columns: int = 80


HookRunnerMsg = RunHooks | ListHooks | ApproveHooks | RunStatusLine
