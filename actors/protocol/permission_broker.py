"""The permission broker's inbox: what a tool call asks to do, the broker's decision on it, and
what the broker reports of its rules and the directories it allows.
"""

from __future__ import annotations

from typing import Any, Literal

import msgspec

from actors.settings import PermissionMode, PermissionRule
from runtime import Ask

OperationKind = Literal["read", "write", "create", "run", "call", "fetch", "search"]
"""The kinds of action a permission is asked for: Read file, Write file, Create file, Run
command, Call an MCP server's tool (``tool`` is ``mcp__<server>__<tool>``), Fetch a web page
(WebFetch: ``url`` and ``host``), Search the web (WebSearch: ``arguments`` holds the query)."""


class PermissionRequest(msgspec.Struct, frozen=True, kw_only=True):
    tool: str  # the tool's name, e.g. "Edit"
    kind: OperationKind
    paths: tuple[str, ...] = ()  # absolute, as the tool will touch them
    command: str | None = None  # for kind "run"
    arguments: dict[str, Any] | None = None  # for kind "call": the tool's input
    server: str | None = None  # for kind "call": the MCP server, as .mcp.json names it
    preview: str | None = None  # a unified diff for writes, when known
    # The paths are folders a search walks (Glob, Grep): the question is about a folder.
    folder: bool = False
    # Names the file has (st_nlink). Rules judge names, and another name of the same file may
    # be a blocked one, so with blockedPaths a file of several names needs a person.
    hard_links: int = 1
    # The person named the path themselves (``@path`` in a prompt): their yes for a read that
    # the rules would put to them. Blocks and the other rules still apply.
    named_by_user: bool = False
    # A command to run outside the sandbox (Bash's ``dangerouslyDisableSandbox``): only a
    # person may allow that, whatever the mode and the rules.
    unconfined: bool = False
    # The command runs fully confined: the sandbox holds what it may read, write and reach
    # (bubblewrap). Landlock, the fallback where bubblewrap cannot run, does not count: blocked
    # files inside the project stay readable, and UDP open.
    confined: bool = False
    # The command runs under Landlock: its writes are held, not all of what it reads and reaches.
    partly_confined: bool = False
    # The command runs in the background (Bash's run_in_background): the answer goes on meanwhile.
    background: bool = False
    agent: str | None = None  # the subagent whose call this is; None: the main conversation
    # A PreToolUse hook answered "ask" (its reason): a person decides, whatever the rules say.
    hook_asks: str | None = None
    # For kind "fetch": the URL as it will be fetched, and its host (lower case, no port).
    url: str | None = None
    host: str | None = None
    # For kind "fetch": an address the host resolved to that is on this machine or its networks
    # (loopback, private, link-local, cloud metadata), as text; None when every address is
    # public. Only an allow rule naming this very host lets such a fetch go.
    local_address: str | None = None
    # The call the checks are for: its id and its whole input (None: no tool call, such as an
    # ``@path`` attachment). What the Agent SDK's can_use_tool request carries.
    tool_use_id: str | None = None
    tool_input: dict[str, Any] | None = None
    # The input came with an allow answer (a ``PermissionAnswer``'s ``updated_input``) and is
    # checked again, and nobody is asked twice: the rules still deny what they deny, and what
    # would be a question is allowed. "input": the answer was for another path or command, so
    # what only a person may allow, or a place outside the project, is denied; "target": the
    # answer was for this very one, so its question was answered.
    preapproved: Literal["input", "target"] | None = None
    # The person typed the command themselves (``!cmd`` in the terminal): what the rules would
    # put to them as a question is their own request, so it runs unasked. Blocks, deny rules,
    # plan mode and what only a person may allow each time still hold.
    typed_by_person: bool = False


class Decision(msgspec.Struct, frozen=True):
    allowed: bool
    reason: str  # why, in words the model and the user can read
    # An allowed command whose every program is in sandbox.unconfinedCommands: it runs outside
    # the sandbox.
    unconfined: bool = False
    # From a ``PermissionAnswer``: the input the call runs with instead (an allow), the words
    # the model reads verbatim (a deny), and whether the answerer stops the whole prompt (a
    # deny; the frontend that got the answer acts on it).
    updated_input: dict[str, Any] | None = None
    message: str | None = None
    interrupt: bool = False
    # A refusal's one fitting remedy, where the reason does not end with it already; None
    # where there is none (the user's own no).
    remedy: str | None = None


class CheckPermission(Ask[Decision], frozen=True, tag=True):
    """May this tool call (or this path of it) go ahead: allow, deny, or ask the person first."""

    request: PermissionRequest


class SetMode(Ask[PermissionMode], frozen=True, tag=True):
    """Switch the permission mode (Shift+Tab, /plan, the SDK's set_permission_mode); replies
    with the new mode."""

    mode: PermissionMode


class AllowForPrompt(Ask[None], frozen=True, tag=True):
    """Allow rules for the next prompt alone (a command's ``allowed-tools``), replacing any
    given before; an empty tuple takes them back. Deny and ask rules still come first."""

    rules: tuple[PermissionRule, ...] = ()


class AllowForSession(Ask[None], frozen=True, tag=True):
    """Allow rules for the rest of the session, added to the files' (the folder of a skill of
    the user's own the model loaded). Deny and ask rules still come first."""

    rules: tuple[PermissionRule, ...]


class FilterReadable(Ask[tuple[bool, ...]], frozen=True, tag=True):
    """Which of these files, met while walking ``folder``, a tool may read: one flag each.

    ``folder`` is a folder the walk was already allowed to read (a ``CheckPermission`` for it
    came first). Nobody is asked about single files: a file that is blocked, that leads out of
    ``folder`` to somewhere the rules do not let the tool read, or that would need a person of
    its own, is left out. Files are sent in batches, as the walk meets them.
    """

    folder: str  # absolute
    # Absolute, as met on the walk, and a file's real path too where it differs (a symlink):
    # the path the tool will open.
    paths: tuple[str, ...]
    # A Grep or Glob's walk: in custom mode it is narrowed to the files the rules allow each on
    # its own. False: files listed for the person (@path completion), as before.
    search: bool = False


class Assessment(msgspec.Struct, frozen=True, kw_only=True):
    """What the broker would decide for one request now, asking nobody."""

    kind: OperationKind
    target: str  # the path as shown (relative inside the project), or the command line
    outcome: Literal["allowed", "denied", "asks"]  # "asks": a person decides; headless denies
    reason: str  # the broker's own words
    rules_file: str | None = None  # the settings file holding the entry that decided, if one did


class Reply(msgspec.Struct, frozen=True):
    """An ``always`` (allowed) or ``never`` the person gave this session, and what it covers."""

    covers: str  # "creating new files inside the project"
    allowed: bool


class PermissionsReport(msgspec.Struct, frozen=True, kw_only=True):
    """The broker's mode and rules as it enforces them, the session's replies, and an
    assessment per request."""

    mode: PermissionMode
    rules_file: str  # where the rules below come from (the project's settings file)
    rules: tuple[tuple[str, tuple[str, ...]], ...]  # ("allowedPaths", ("src/**", ...)), ...
    # The rules in the reference's syntax, each with its file and line, in precedence order.
    permission_rules: tuple[PermissionRule, ...] = ()
    assessments: tuple[Assessment, ...] = ()
    replies: tuple[Reply, ...] = ()  # in the order given; /permissions forget numbers them so
    # Other folders the tools work in as in the project: from the start (--add-dir, the
    # settings' additionalDirectories), then those /add-dir added for this session.
    add_dirs: tuple[str, ...] = ()
    added_dirs: tuple[str, ...] = ()


class ForgetReply(Ask[Reply | None], frozen=True, tag=True):
    """``/permissions forget <n>``: drop the n-th reply (from 1); replies with it, or None."""

    number: int


class ExplainPermissions(Ask[PermissionsReport], frozen=True, tag=True):
    """``/permissions [explain ...]``: what the broker would decide for each request in the
    session's current mode and with its answers so far, without asking anyone or doing it."""

    requests: tuple[PermissionRequest, ...] = ()


class AddDirectory(Ask[tuple[str, ...]], frozen=True, tag=True):
    """``/add-dir``: another folder the tools work in as they do in the project, for the rest
    of the session. ``path`` is real and absolute, an existing folder (the frontend resolves
    what the person typed). The broker refuses with UsageError a folder the project or another
    folder already covers, and answers the folders added so far; the conductor names it in the
    system prompt from the next request on. Only a person's command sends it: no tool does."""

    path: str


class FindBlocked(Ask[tuple[bool, ...]], frozen=True, tag=True):
    """Which of these paths a blocked entry covers, one flag each; nobody is asked.

    A checkpoint leaves those files out: the call that would change one is refused anyway, and
    a blocked file's contents must not be copied into the session file either.
    """

    paths: tuple[str, ...]  # absolute


class UnmatchedRule(msgspec.Struct, frozen=True):
    """A path entry that matches nothing: most often a typo, or a folder that moved."""

    field: str  # "blockedPaths[2]"
    text: str  # the entry as written
    what: str  # "matches no file or folder in the project", or the folder that does not exist


class RuleCoverage(msgspec.Struct, frozen=True, kw_only=True):
    """The path entries that match nothing, found by one walk of the project."""

    rules_file: str  # where the entries come from (the project's settings file)
    entries: int  # allowedPaths and blockedPaths entries checked
    unmatched: tuple[UnmatchedRule, ...] = ()
    walked: int = 0  # files and folders looked at
    capped: bool = False  # the walk stopped at its limit: an entry may match further in
    skipped: str = ".git"  # the folder not entered (entries inside it are checked by folder)


class CheckRuleCoverage(Ask[RuleCoverage], frozen=True, tag=True):
    """Which allowedPaths and blockedPaths entries match no file or folder (``legato doctor``).

    A folder that matches counts, since a matched folder covers what it holds; an entry for a
    place outside the project (``~/...``, ``//...``) counts when its literal folder exists.
    """

    limit: int = 200_000  # files and folders walked at most


PermissionBrokerMsg = (
    CheckPermission
    | SetMode
    | AllowForPrompt
    | AllowForSession
    | FilterReadable
    | FindBlocked
    | ExplainPermissions
    | ForgetReply
    | CheckRuleCoverage
    | AddDirectory
)
