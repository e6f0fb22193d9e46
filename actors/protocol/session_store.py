"""The session store's inbox, and the events a session is saved as.

A session is saved as it goes, one event a line; replaying the events gives back the
conversation, the task ledger and the checkpoints /undo restores.
"""

from __future__ import annotations

import msgspec

from actors.protocol.conductor import RewindRestore
from actors.protocol.conversation import Message, Usage
from actors.protocol.tool_executor import FileBefore, NotKept
from runtime import Ask


class TaskLedger(msgspec.Struct, frozen=True, kw_only=True):
    """What the task is, kept beside the conversation so that compaction cannot lose it."""

    goal: str = ""
    decisions: tuple[str, ...] = ()
    files_touched: tuple[str, ...] = ()
    open_steps: tuple[str, ...] = ()


class Checkpoint(msgspec.Struct, frozen=True, kw_only=True):
    """Files as they were before a prompt's tools changed them, and the commands it ran."""

    prompt: int  # the prompt's number in the session; /undo restores one prompt at a time
    files: tuple[FileBefore, ...] = ()
    commands: tuple[str, ...] = ()  # shell commands and MCP tools the prompt ran
    # Files changed with no copy kept (named by /undo), folders commands created, and what
    # was not recorded: new in this shape, so older sessions read without them.
    missed: tuple[NotKept, ...] = ()
    folders: tuple[str, ...] = ()
    notes: tuple[str, ...] = ()


class SessionStarted(msgspec.Struct, frozen=True, tag=True):
    session_id: str
    project_root: str
    started: str  # ISO 8601, UTC


class MessagesKept(msgspec.Struct, frozen=True, tag=True):
    """The conversation was cut back to its first ``count`` messages (a merge, a compaction)."""

    count: int


class MessageAdded(msgspec.Struct, frozen=True, tag=True):
    message: Message


class LedgerChanged(msgspec.Struct, frozen=True, tag=True):
    ledger: TaskLedger


class CheckpointTaken(msgspec.Struct, frozen=True, tag=True):
    checkpoint: Checkpoint


class CheckpointRestored(msgspec.Struct, frozen=True, tag=True):
    prompt: int


class PromptMark(msgspec.Struct, frozen=True, kw_only=True):
    """Where a prompt began: what a rewind goes back to just before."""

    prompt: int
    text: str  # as typed
    at: str  # ISO 8601, UTC
    kept: int  # the conversation's length before the prompt's message
    # The prompt's message was merged into the last one, a user message of this many blocks
    # (tool results of an interrupted turn, a note); None: it began a message of its own.
    head: int | None = None
    digest: str = ""  # of the prompt's first block: tells whether the conversation still has it
    message_id: str = ""  # ``RunPrompt.message_id``


class PromptMarked(msgspec.Struct, frozen=True, tag=True):
    mark: PromptMark


class RewindUndo(msgspec.Struct, frozen=True, kw_only=True):
    """What puts a rewind back: everything it changed, as it was just before."""

    prompt: int  # rewound to just before it
    restore: RewindRestore
    files: tuple[FileBefore, ...] = ()  # the files it restored, as they were before it
    checkpoints: tuple[Checkpoint, ...] = ()  # the checkpoints it used up
    marks: tuple[PromptMark, ...] = ()  # the prompts it took out of the conversation
    cut: int = 0  # the conversation was cut to its first ``cut`` messages, then...
    tail: tuple[Message, ...] = ()  # ...these followed: what it cut
    ledger: TaskLedger | None = None  # the ledger before it, when it changed it


class Rewound(msgspec.Struct, frozen=True, tag=True):
    """A rewind, written before its files are restored. The conversation's cut follows as
    ``MessagesKept``; ``undo`` stays the one to undo until the next ``PromptMarked``."""

    undo: RewindUndo


class RewindUndone(msgspec.Struct, frozen=True, tag=True):
    """The latest rewind was put back: its checkpoints and prompts are the session's again."""


class RewindSettled(msgspec.Struct, frozen=True, tag=True):
    """The latest rewind can no longer be undone (``/clear`` or ``/compact`` came after it; a
    prompt says so by its ``PromptMarked``)."""


class UsageCounted(msgspec.Struct, frozen=True, tag=True):
    """One answer's tokens (the conversation's, a subagent's, a compaction's summary), with
    the model that priced them: a resumed session's /cost goes on from its total."""

    usage: Usage
    model: str


class ModelChosen(msgspec.Struct, frozen=True, tag=True):
    """The person chose the session's model (``/model``): a resumed session goes on with it,
    unless ``--model`` says otherwise."""

    model: str  # the model id


SessionEvent = (
    SessionStarted
    | MessagesKept
    | MessageAdded
    | LedgerChanged
    | CheckpointTaken
    | CheckpointRestored
    | UsageCounted
    | PromptMarked
    | Rewound
    | RewindUndone
    | RewindSettled
    | ModelChosen
)


class SavedSession(msgspec.Struct, frozen=True, kw_only=True):
    """A session as its events left it (an empty one when there was nothing to resume)."""

    session_id: str
    messages: list[Message] = msgspec.field(default_factory=list)
    ledger: TaskLedger = TaskLedger()
    checkpoints: tuple[Checkpoint, ...] = ()
    prompts: int = 0  # the highest prompt number seen
    marks: tuple[PromptMark, ...] = ()  # the prompts a rewind can go back to, in order
    rewind: RewindUndo | None = None  # the latest rewind, while it can be undone
    started: str = ""  # ISO 8601, UTC ("" when the file has no header)
    added: int = 0  # messages added over the session's life, as the picker counts them
    spent: tuple[UsageCounted, ...] = ()  # every answer's tokens, in order
    model: str = ""  # the latest /model choice; "": none was made

    @property
    def tokens(self) -> int:
        """The session's size in tokens: everything its answers read and wrote."""
        return sum(counted.usage.context_tokens for counted in self.spent)


class SaveEvents(Ask[None], frozen=True, tag=True):
    """Append these events to the session file; answered once they are written out. For a
    checkpoint, which must be on disk before the calls it protects change a file."""

    events: tuple[SessionEvent, ...]


class AppendEvents(msgspec.Struct, frozen=True, tag=True):
    """Append these events to the session file; nobody waits. They are written in the order
    they came, before anything sent after them (a ``SaveEvents`` answered means every event
    before it is written too)."""

    events: tuple[SessionEvent, ...]


class LoadSession(Ask[SavedSession], frozen=True, tag=True):
    """The session being resumed, replayed from its file."""


class SessionSummary(msgspec.Struct, frozen=True, kw_only=True):
    """One saved session, as the ``--resume`` picker lists it."""

    id: str
    path: str
    modified: float  # seconds since the epoch, the file's last write
    started: str  # ISO 8601, UTC ("" when the file has no header)
    first_prompt: str  # the first thing the user asked, on one line ("" if nothing yet)
    messages: int  # messages added over the session's life
    tokens: int = 0  # every answer's tokens, read and written


class ListSessions(Ask[tuple[SessionSummary, ...]], frozen=True, tag=True):
    """The project's saved sessions, the most recently used first, at most ``limit``:
    ``--continue`` takes the first, ``--resume`` lists them to pick from. A project with none
    is answered with a UsageError saying how to start one: there is nothing to go on with.
    ``prefix``: only the sessions whose id starts with it (``--resume <prefix>``); none is a
    UsageError naming the prefix."""

    limit: int
    prefix: str = ""


SessionStoreMsg = AppendEvents | SaveEvents | LoadSession | ListSessions
