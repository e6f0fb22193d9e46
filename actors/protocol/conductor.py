"""The conductor's inbox: a prompt run as one turn, the session's model and effort, the
conversation, rewinds, compaction, and the background agents.
"""

from __future__ import annotations

from typing import Literal

import msgspec

from actors.protocol.conversation import Block, Message, Usage
from actors.protocol.permission_broker import AddDirectory
from actors.protocol.ui import TurnOutcome
from runtime import Ask


class RunPrompt(Ask[TurnOutcome], frozen=True, tag=True):
    """Run one user prompt until the model ends its turn (or ``max_turns`` is reached)."""

    text: str
    max_turns: int = 50
    plan: bool = False  # Plan Mode: the model is told to investigate and present a plan only
    # Image and document blocks that follow the text in the user message: images and PDFs
    # named with ``@path`` (``Attachment.blocks``), pasted, or sent by the Agent SDK.
    blocks: tuple[Block, ...] = ()
    # The prompt as the person typed it, before ``@path`` attachments or a skill made it
    # ``text``: what the rewind list shows and gives back to the input. None: ``text``.
    typed: str | None = None
    # The driving program's id for the prompt (the Agent SDK's user message uuid), by which
    # ``Rewind`` can name it; "" when it has none.
    message_id: str = ""
    # A JSON Schema the answer must be a value of (--json-schema, the SDK's output_format):
    # the model gives it by calling StructuredOutput (actors/conductor/structured.py).
    output_schema: Block | None = None


class SetModel(Ask[str], frozen=True, tag=True):
    """Use another model from the next request on (``/model <alias>``); replies with its id."""

    model: str


class SetEffort(Ask[str], frozen=True, tag=True):
    """Set the effort level from the next request on (``/effort <level>``, ``auto`` for the
    model's default; empty: only say it); replies with what now holds. A level that is none,
    or a model that takes none, raises ``UsageError``."""

    level: str


class SetFast(Ask[bool], frozen=True, tag=True):
    """Turn fast mode on or off (``/fast``); replies with whether it is on for the model."""

    fast: bool


class ClearConversation(Ask[None], frozen=True, tag=True):
    """Forget the conversation so far (``/clear``); usage and cost stay counted."""


class GetConversation(Ask[list[Message]], frozen=True, tag=True):
    """The conversation so far. Answered only once any prompt before it is over, cleanup
    included, so it also tells a frontend that an interrupted prompt has let go."""


class AddNote(Ask[None], frozen=True, tag=True):
    """Put ``text`` into the conversation for the model's next turn, as the person's (a ``!cmd``
    and its output, a line saved with ``#``), and save it with the session. Answered once any
    prompt before it is over."""

    text: str


class Undo(Ask[str], frozen=True, tag=True):
    """Put back the files the latest prompt changed (``/undo``), its shell commands' changes
    among the project's files too; replies with what was done, in words for the user (naming
    what it could not put back). Right after a rewind, until the next prompt, it undoes the
    rewind instead (``UndoRewind``)."""


RewindRestore = Literal["both", "code", "conversation"]


class RewindPoint(msgspec.Struct, frozen=True, kw_only=True):
    """A prompt of the session, as the rewind list shows it."""

    prompt: int  # its number in the session
    text: str  # as typed
    at: str  # when it was sent, ISO 8601, UTC
    # Whether the conversation can be cut back to just before it; if not, why not: what
    # happened to it ("compacted since", "cleared since").
    conversation: bool
    gone: str = ""
    files: tuple[str, ...] = ()  # what rewinding the code to it would put back or remove
    commands: int = 0  # shell commands since it: what they changed may not be restorable


class RewindPoints(msgspec.Struct, frozen=True, kw_only=True):
    points: tuple[RewindPoint, ...] = ()  # the newest first
    undo: str | None = None  # the latest rewind, undoable until the next prompt, in words
    nothing: str = ""  # with no points: why, in words


class ListRewindPoints(Ask[RewindPoints], frozen=True, tag=True):
    """The session's prompts a rewind can go back to (``/rewind``'s list)."""


class RewindReport(msgspec.Struct, frozen=True, kw_only=True):
    text: str  # what was done and what could not be, in words for the person
    prompt_text: str = ""  # the rewound prompt, as typed: offered back in the input
    conversation: bool = False  # the conversation was cut back (or put back)
    files: tuple[str, ...] = ()  # the files it set out to restore (the Agent SDK's filesChanged)


class Rewind(Ask[RewindReport], frozen=True, tag=True):
    """Put the files, the conversation or both back to just before a prompt: ``prompt`` by its
    number, or else ``back`` prompts back in the list (1: the latest). Waits for a running
    prompt to end. A bad number is a UsageError naming it."""

    prompt: int = 0
    back: int = 0
    restore: RewindRestore = "both"
    message_id: str = ""  # else the prompt that ``RunPrompt.message_id`` named so


class UndoRewind(Ask[RewindReport], frozen=True, tag=True):
    """Put back what the latest rewind changed, files and conversation (until the next
    prompt); ``Undo`` does it too when a rewind is the latest thing to undo."""


class Compact(Ask[str], frozen=True, tag=True):
    """Summarise the older turns now (``/compact``); replies with what was done, in words."""


class ContextFill(msgspec.Struct, frozen=True):
    """How full the model's context window is: ``tokens`` of ``window`` (status line, /cost)."""

    tokens: int
    window: int
    system: int = 0  # of ``tokens``, the system prompt's, estimated (/context)
    # The rest of the request's parts, for /context: the built-in tools' definitions, the
    # Skill tool's listing of skills, the MCP servers' tools, and the conversation; estimated
    # at about four characters a token, but ``messages`` when ``measured``: the latest
    # answer's own count less the other parts. ``reserve``: what auto-compaction keeps free.
    tools: int = 0
    skills: int = 0
    mcp_tools: int = 0
    messages: int = 0
    reserve: int = 0
    measured: bool = False

    @property
    def used(self) -> int:
        """Every part of the next request together: the figure /context shares out."""
        return self.system + self.tools + self.skills + self.mcp_tools + self.messages

    @property
    def free(self) -> int:
        """The window less what is used and the auto-compaction reserve."""
        return max(self.window - self.used - self.reserve, 0)

    @property
    def percent(self) -> str:
        """``6.2%``; under 10% with a decimal, so that the number moves in a 1M window."""
        share = self.tokens / self.window
        return f"{share:.1%}" if share < 0.1 else f"{share:.0%}"

    def describe(self) -> str:
        """``12,345 of 200,000 tokens (6.2% full)``: for /cost and the compaction notices."""
        return f"{self.tokens:,} of {self.window:,} tokens ({self.percent} full)"


class ListOfferedTools(Ask[tuple[str, ...]], frozen=True, tag=True):
    """The names of the tools the main conversation's requests offer, in their order, without
    the MCP servers' (which come as servers get ready): the Agent SDK's init line."""


class GetContextFill(Ask[ContextFill], frozen=True, tag=True):
    """How full the model's context window is: the status line's and /cost's figure, and the
    parts of the request the conductor would send now (/context). Computing the parts encodes
    the tool definitions (and, until an answer measures it, the conversation): cheap, but ask
    it when the figure is wanted, not on every redraw."""


class GetUsage(Ask[Usage], frozen=True, tag=True):
    """The tokens of every request this session has made so far (the prompts', and those of
    ``/compact``'s summaries)."""


class AgentId(msgspec.Struct, frozen=True):
    """A background agent's id: ``agent_1``, ``agent_2``... in the order they started; its text
    is read back as a ``CommandId``'s is."""

    number: int

    def __str__(self) -> str:
        return f"agent_{self.number}"


class BackgroundAgent(msgspec.Struct, frozen=True, kw_only=True):
    """An agent the model started with ``run_in_background``, as ``/tasks`` lists it."""

    id: str  # "agent_1": what TaskOutput and TaskStop take
    agent: str  # its type
    description: str  # the Agent call's short description
    # "waiting" (for a place under agents.maxConcurrent), "running", "completed", "failed",
    # "stopped" or "ended with the session"
    state: str
    status: str  # the state in words: "completed after 3.1 s"
    age: float  # seconds since it started, until it ended
    activity: str  # the latest thing it did: a tool call, or a line of its answer


class ListBackgroundAgents(Ask[tuple[BackgroundAgent, ...]], frozen=True, tag=True):
    """The session's background agents, running and ended, in the order they started;
    answered at once, also while a prompt runs."""


class StopBackgroundAgent(Ask[str], frozen=True, tag=True):
    """Stop a background agent for the person (``/tasks stop``), with every call and process
    it started, before the reply, which says how it ended (or why there was nothing to stop).
    Answered at once, also while a prompt runs; the model hears of it at its next turn."""

    id: AgentId


ConductorMsg = (
    RunPrompt
    | AddNote
    | SetModel
    | SetEffort
    | SetFast
    | ClearConversation
    | GetConversation
    | Undo
    | Rewind
    | UndoRewind
    | ListRewindPoints
    | Compact
    | GetContextFill
    | GetUsage
    | ListBackgroundAgents
    | StopBackgroundAgent
    | ListOfferedTools
    | AddDirectory
)
