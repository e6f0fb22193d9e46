"""The UI's inbox: the events a frontend shows as a turn goes, and the questions it puts to the
person.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from actors.protocol.conversation import Block, Usage
from actors.protocol.model_client import ModelEvent
from actors.protocol.permission_broker import PermissionRequest
from actors.protocol.tool_executor import ToolEvent
from runtime import Ask


class Notice(msgspec.Struct, frozen=True, tag=True):
    level: Literal["info", "warning", "error"]
    text: str
    # The model the session's answers now come from, when the notice says it changed (the
    # fallback model): the terminal's status line names and prices it from here on.
    model: str | None = None


class HookStarted(msgspec.Struct, frozen=True, kw_only=True, tag=True):
    """A hook command began (headless stream-json: ``hook_started``; the terminal's status)."""

    id: str  # hook_<n>, unique in the session
    name: str  # "<event>:<tool>" for tool events, else the event
    event: str
    command: str


class HookFinished(msgspec.Struct, frozen=True, kw_only=True, tag=True):
    """A hook command ended (headless stream-json: ``hook_response``)."""

    id: str
    name: str
    event: str
    command: str
    outcome: Literal["success", "error", "cancelled"]
    exit_code: int | None = None
    stdout: str = ""
    stderr: str = ""
    elapsed: float = 0.0


class TurnOutcome(msgspec.Struct, frozen=True, kw_only=True, tag=True):
    """How a prompt ended: the result object of headless json output is made from this."""

    result: str  # the final assistant text
    is_error: bool
    subtype: Literal[
        "success",
        "error_max_turns",
        "error_during_execution",
        "interrupted",
        "error_max_structured_output_retries",
        "error_max_budget_usd",
    ]
    num_turns: int
    duration_ms: int
    duration_api_ms: int
    usage: Usage
    total_cost_usd: float | None
    session_id: str
    permission_denials: tuple[Block, ...] = ()  # {"tool_name", "tool_use_id", "tool_input"}
    error: str | None = None
    # The prompt's value valid against its ``output_schema``, once the model gave one.
    structured_output: Any = None


class AgentEvent(msgspec.Struct, frozen=True, kw_only=True, tag=True):
    """An event of a subagent's conversation: its answer streaming, its tools running.

    Kept apart from the main conversation's events: what an agent does is shown as its own
    (stream-json gives it ``parent_tool_use_id``), and never enters the parent's context.
    """

    parent_tool_use_id: str  # the Agent call that started the agent
    agent: str
    event: ModelEvent | ToolEvent
    model: str | None = None  # the agent's model, with its answers: what prices them


class TranscriptMirrored(msgspec.Struct, frozen=True, tag=True):
    """Events the session store has just saved, for the driving program's own copy of the
    session (``--session-mirror``; stream-json prints a ``transcript_mirror`` line)."""

    file_path: str  # where the driving program expects the session file (session_store/mirror.py)
    lines: bytes  # the events as saved: JSON lines, each ending in a newline


UiEvent = (
    ModelEvent
    | ToolEvent
    | Notice
    | TurnOutcome
    | AgentEvent
    | HookStarted
    | HookFinished
    | TranscriptMirrored
)


class Show(msgspec.Struct, frozen=True, tag=True):
    """Show an event of the session (text, a tool's progress, a notice) to the person."""

    event: UiEvent


class HowItRuns(msgspec.Struct, frozen=True):
    """For a command's question: whether it will run in the sandbox, and with network."""

    confined: bool
    network: bool = True
    why_unconfined: str | None = None  # the setting or the flag that puts it outside
    partly: bool = False  # under Landlock: writes held, reads and the network only in part

    def words(self) -> str:
        if self.partly:
            return (
                "runs under Landlock: writes held to the project; blocked files readable, "
                f"{'network allowed' if self.network else 'only TCP cut off'} (see legato doctor)"
            )
        if self.confined:
            return f"runs in the sandbox, {'network: allowed' if self.network else 'no network'}"
        return f"runs unconfined: full file and network access ({self.why_unconfined})"


class PermissionAnswer(msgspec.Struct, frozen=True, kw_only=True):
    """An answer with more than a choice: what the Agent SDK's can_use_tool callback gives."""

    choice: Literal["y", "n"]
    message: str | None = None  # a deny's words, put verbatim in the tool_result for the model
    # An allow's input for the call instead of its own: checked by the rules again, not asked.
    updated_input: dict[str, Any] | None = None
    interrupt: bool = False  # a deny that stops the whole prompt


class AskUser(Ask[str | PermissionAnswer], frozen=True, tag=True):
    """Put a permission request to the person; replies with one of ``choices`` (a terminal's
    plain answer) or a ``PermissionAnswer``."""

    request: PermissionRequest
    choices: tuple[str, ...]  # ("y", "n", "always", "never") or ("y", "n")
    # Why this one needs extra care, shown with the question: it changes Legato's own
    # settings, or names a file the rules block that the command's program could read.
    warning: str | None = None
    confinement: HowItRuns | None = None  # for a command: in the sandbox or not
    # What an 'always' or 'never' would cover: "creating new files inside the project".
    covers: str = ""


UiMsg = Show | AskUser
