"""The tool executor's inbox: the model's tool calls run as a stream of events, ``@path``
attachments, the checkpoints ``/undo`` and rewinds restore, the sandbox and background commands.
"""

from __future__ import annotations

from typing import Any

import msgspec

from actors.protocol.conversation import Block, Usage
from runtime import Ask, Streamed


class ToolCall(msgspec.Struct, frozen=True):
    id: str
    name: str
    input: dict[str, Any]


class ToolResult(msgspec.Struct, frozen=True, kw_only=True):
    tool_use_id: str
    content: str
    is_error: bool = False
    denied: bool = False  # refused by the permission broker (listed in headless results)
    # Image and document blocks that follow the text (an image or a PDF Read, an MCP tool's).
    images: tuple[Block, ...] = ()
    # A tool hook said "continue": false: the prompt ends once the turn's calls are done, and
    # the user is told this (never sent to the model).
    stop_reason: str | None = None
    # Model requests the call made itself (WebFetch's answer by the small model), each with
    # the model that priced it: counted in the session's usage and the prompt's cost.
    spent: tuple[tuple[str, Usage], ...] = ()

    def block(self) -> Block:
        out: Block = {"type": "tool_result", "tool_use_id": self.tool_use_id}
        if self.images:
            text = [{"type": "text", "text": self.content}] if self.content else []
            out["content"] = [*text, *self.images]
        else:
            out["content"] = self.content
        if self.is_error:
            out["is_error"] = True
        return out


class ToolStarted(msgspec.Struct, frozen=True, tag=True):
    id: str
    name: str
    summary: str  # what runs: the file or the command


class ToolOutput(msgspec.Struct, frozen=True, tag=True):
    """Live output of a running tool (a shell command's lines), for display only."""

    id: str
    text: str


class ToolFinished(msgspec.Struct, frozen=True, tag=True):
    result: ToolResult
    elapsed: float
    diff: str | None = None  # for edits and writes: a unified diff of what changed
    # For the person: what to do about a failed call they can fix (a command not on PATH).
    # The model reads it in the result; the frontends show it beside the call.
    remedy: str | None = None


ToolEvent = ToolStarted | ToolOutput | ToolFinished


class AgentScope(msgspec.Struct, frozen=True, kw_only=True):
    """Whose calls a ``RunTools`` carries when a subagent makes them, and what it may use.

    The executor holds a subagent to ``tools``: a call to any other tool is refused there, not
    only left out of what the model was offered. Progress is shown as the agent's, and the
    permission question names it.
    """

    name: str  # the agent's type, e.g. "code-reviewer"
    parent_tool_use_id: str  # the Agent call that started it
    tools: frozenset[str] | None = None  # None: every tool of the executor
    # A background agent's progress is not shown: it is read with TaskOutput, as a background
    # command's output is, and no answer on screen is interleaved with it.
    background: bool = False


class RunTools(Streamed[ToolEvent], frozen=True, tag=True):
    """Run these tool calls side by side; ends when all have finished.

    Exactly one ``ToolFinished`` comes for every call, in completion order. A call's
    ``ToolStarted`` and ``ToolOutput`` are for display only: an executor given the UI's address
    tells the UI itself, one hop instead of two; without one they come on this stream too.
    The conductor sends
    each call as soon as the model has finished writing it (with the calls that came in the same
    burst), while the answer goes on streaming; calls on the same path (or a folder above or
    below it) run in the order they arrived when either writes, whichever request they came in.
    """

    calls: tuple[ToolCall, ...]
    agent: AgentScope | None = None  # a subagent's calls; None: the main conversation's
    # What the run may still spend under --max-budget-usd, in US dollars, as of sending: the
    # tools' own model requests (WebFetch's fast model) are held to it. None: no budget.
    spend_left: float | None = None


class RunPersonCommand(Streamed[ToolEvent], frozen=True, tag=True):
    """Run a shell command the person typed (``!cmd``) as a Bash call is run: the same rules,
    sandbox, output cap and process group, with no hooks. Every event of the call comes on
    this stream (``ToolStarted``, ``ToolOutput``, one ``ToolFinished``): the person who typed it
    is the one watching. Leaving the stream stops the command and all it started."""

    id: str  # the call's id, unique in the session (``person_<n>``)
    command: str


class ToolSet(msgspec.Struct, frozen=True, kw_only=True):
    definitions: list[Block]  # what the model is sent: ``name``, ``description``, ``input_schema``
    # Tools that change nothing (Read, Glob, Grep): their calls need no checkpoint.
    read_only: frozenset[str] = frozenset()


class ListTools(Ask[ToolSet], frozen=True, tag=True):
    """The session's tools: their definitions for the model, and which of them only read."""


class InterruptTools(msgspec.Struct, frozen=True, tag=True):
    """Stop these calls of a running ``RunTools`` now (the user interrupted the turn).

    Each one still gets its ``ToolFinished`` on that stream: an ``is_error`` result saying it
    was interrupted, after how long, with the output captured so far. Ids that are unknown or
    already finished are ignored.
    """

    ids: tuple[str, ...]


class WithdrawTools(msgspec.Struct, frozen=True, tag=True):
    """The answer these calls came in broke off: stop those that have not started yet (waiting
    for a free slot, for an earlier call on their path, or for the user's permission); those
    already running go on to their end.

    Each withdrawn call still gets its ``ToolFinished``: an ``is_error`` result saying it was not
    run and nothing was done. Ids that are unknown, running or finished are ignored.
    """

    ids: tuple[str, ...]


class Attachment(msgspec.Struct, frozen=True, kw_only=True):
    prompt: str  # the text, the referenced files' contents after it
    attached: tuple[str, ...] = ()  # the ``@`` tokens whose files came along
    # Image and document blocks of the images and PDFs named, in the order named: they follow
    # the prompt's text in the user message (``RunPrompt.blocks``).
    blocks: tuple[Block, ...] = ()
    notes: tuple[str, ...] = ()  # for the person: what was not attached and why, near misses


class AttachReferences(Ask[Attachment], frozen=True, tag=True):
    """Attach the files and folders a prompt names with ``@path``, each read put to the broker
    (naming a file is the person's own request to read it)."""

    text: str
    # False for the prompt of a project's skill or pattern: a repository wrote those names, so
    # each read is asked about as the model's Read would be.
    named_by_user: bool = True
    # Files the person pasted as paths (the terminal's ``[Image #1]``), attached as ``@path``
    # would be, though they may hold spaces; absolute.
    paths: tuple[str, ...] = ()


class FileBefore(msgspec.Struct, frozen=True):
    path: str  # absolute, as the tool call named it
    content: bytes | None  # None: the file did not exist
    # Where ``path`` led then (symlinks resolved): /undo writes back there only. None in
    # sessions saved before it was recorded.
    real: str | None = None
    # The shell command whose batch changed the file (seen by comparing the project before and
    # after the batch); "" for the file a tool declared it writes.
    by: str = ""
    mode: int | None = None  # the permission bits a file a command deleted had
    # When the content was read, as the executor counts its captures: of a prompt's entries
    # for one path, the lowest is the earliest content (0 in sessions saved before it).
    order: int = 0


class NotKept(msgspec.Struct, frozen=True):
    """A file a batch changed, or was to change, of which no copy was kept: /undo names it."""

    path: str  # absolute
    why: str  # "it is binary", "it is larger than 2 MB": the reason in words, for the person
    by: str = ""  # as ``FileBefore.by``


# How ``Changes.commands`` lists the call of an MCP tool: ``mcp__server__tool (an MCP tool)``.
MCP_CALL = " (an MCP tool)"


class Changes(msgspec.Struct, frozen=True, kw_only=True):
    """What a batch of calls may change, as each tool declares it, and the files as they were."""

    paths: tuple[str, ...] = ()  # the files the calls write, absolute, in call order
    # The shell commands they run, and the MCP tools they call: those may change anything.
    commands: tuple[str, ...] = ()
    # Each of ``paths`` not already taken, as it is now (for ``/undo``): a path that is no file
    # to restore, such as a folder or a refused system path, is left out.
    files: tuple[FileBefore, ...] = ()
    missed: tuple[NotKept, ...] = ()  # those of ``paths`` too large, or past ``room``
    # The project as it is was recorded, to be compared once the batch's calls are done
    # (``SettleCheckpoint``); 0: no command runs, or the project could not be recorded.
    watch: int = 0
    notes: tuple[str, ...] = ()  # why the commands' changes are not recorded, if they are not


class CaptureCheckpoint(Ask[Changes], frozen=True, tag=True):
    """What these calls will change, with the files they write as they are now (one request
    before the calls run: for calls that only read, the answer is empty); when they run shell
    commands, the project is recorded too, for ``SettleCheckpoint``."""

    calls: tuple[ToolCall, ...]
    taken: tuple[str, ...] = ()  # paths the prompt's checkpoints already hold: not read again
    room: int | None = None  # bytes of content the prompt may still keep; None: no limit


class Settled(msgspec.Struct, frozen=True, kw_only=True):
    """What a batch's shell commands changed in the project, as the files were before it."""

    files: tuple[FileBefore, ...] = ()  # created (content None), deleted and modified files
    missed: tuple[NotKept, ...] = ()  # changed files of which no copy was kept
    folders: tuple[str, ...] = ()  # folders the commands created (removed by /undo if empty)
    notes: tuple[str, ...] = ()  # what was not recorded, and why


class SettleCheckpoint(Ask[Settled], frozen=True, tag=True):
    """The batch that ``CaptureCheckpoint`` answered with ``watch`` is done: compare the
    project with what was recorded before it."""

    watch: int
    taken: tuple[str, ...] = ()  # paths the prompt already holds from earlier: left out
    room: int | None = None  # as ``CaptureCheckpoint.room``


class RestoreCheckpoint(Ask[tuple[str, ...]], frozen=True, tag=True):
    """Put these files back as they were (removing those that did not exist); replies with a
    line for each file it restored, removed or could not restore."""

    files: tuple[FileBefore, ...]
    folders: tuple[str, ...] = ()  # folders a command created: removed once empty


class CaptureFiles(Ask[tuple[FileBefore, ...]], frozen=True, tag=True):
    """The files of a checkpoint as they are now (None content: there is none), read as a
    checkpoint reads them: what undoing a rewind writes back. Each is read only where it led
    when the checkpoint was taken (``FileBefore.real``): a path that leads elsewhere now (a
    symlink put on the way) is left out, as is one that is no file to restore."""

    files: tuple[FileBefore, ...]


class ListFiles(Ask[tuple[str, ...]], frozen=True, tag=True):
    """The project's files a person may be offered (``@path`` completion): paths relative to
    the project root, in the order a walk meets them, at most ``limit``.

    The files Glob would walk (tool folders and what .gitignore excludes are left out), less
    those the permission rules keep from tools: a blocked file is never offered. The names go
    to the person, not the model, so nobody is asked.
    """

    limit: int


class SandboxReport(msgspec.Struct, frozen=True, kw_only=True):
    """How the session's commands are confined, or why they are not (``legato doctor``)."""

    # "bubblewrap 0.11.0 (/path/to/bwrap)", "landlock (ABI 7)", or what would be used
    mechanism: str
    active: bool  # commands run confined, perhaps only in part (Landlock)
    enforces: tuple[str, ...] = ()  # in words, one line each
    # Active in part: what the full sandbox would enforce and this one does not, one line each.
    not_enforced: tuple[str, ...] = ()
    # Not active: the reason, with what to do about it. Active in part: why not bubblewrap.
    why_not: str | None = None
    tried: bool = True  # False: the session's trial of the mechanism has not finished


class DescribeSandbox(Ask[SandboxReport], frozen=True, tag=True):
    """Whether commands run confined here; the first ask (or the first command) tries the
    mechanism once for the session. ``try_it=False``: say what is known without trying (a
    session that ran no command does not pay for a trial just to report), and, confined, not
    what the layout enforces (a run's result line says only whether and by what)."""

    try_it: bool = True


class CommandId(msgspec.Struct, frozen=True):
    """A background command's id: ``bash_1``, ``bash_2``... in the order they started. Its
    text, ``str(id)``, is what the model and the person read; ``actors.tool_routes`` reads it
    back (``parse_job_id``)."""

    number: int

    def __str__(self) -> str:
        return f"bash_{self.number}"


class BackgroundCommand(msgspec.Struct, frozen=True, kw_only=True):
    """A command the model started with ``run_in_background``, as ``/tasks`` lists it."""

    id: str  # "bash_1": what TaskOutput and TaskStop take
    command: str
    # "running", "exited", "killed", "timed out", "ended with the session" or "failed"
    state: str
    status: str  # the state in words: "exited with code 0 after 3.1 s"
    age: float  # seconds since it started, until it ended
    last_line: str  # the last line of output with something on it


class TakeBackgroundNews(Ask[tuple[str, ...]], frozen=True, tag=True):
    """A line for each background command that has ended and the model has not been told of
    (by a read that showed its end, or by the TaskStop that ended it); each is given once. The
    conductor asks before each turn and adds them to the request's user content."""


class ListBackground(Ask[tuple[BackgroundCommand, ...]], frozen=True, tag=True):
    """The session's background commands, running and ended, in the order they started."""


class StopBackground(Ask[str], frozen=True, tag=True):
    """Stop a background command for the person (``/tasks stop``): its whole process group ends
    before the reply, which says how it ended (or why there was nothing to stop). The model
    hears of it at its next turn."""

    id: CommandId


class TakeSandboxWarning(Ask[str | None], frozen=True, tag=True):
    """The line saying that Bash commands run unconfined, why, and what to do about it, for a
    frontend that says it as the session starts (the interactive banner); answered once the
    session's trial of the sandbox is made. Taking it moves the warning there: no command says
    it afterwards. None when commands run confined, or when a command has already said it."""


ToolExecutorMsg = (
    RunTools
    | RunPersonCommand
    | ListTools
    | ListFiles
    | InterruptTools
    | WithdrawTools
    | AttachReferences
    | CaptureCheckpoint
    | SettleCheckpoint
    | RestoreCheckpoint
    | CaptureFiles
    | DescribeSandbox
    | TakeSandboxWarning
    | TakeBackgroundNews
    | ListBackground
    | StopBackground
)
