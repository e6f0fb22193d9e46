"""Every message that crosses between Legato's actors, in one place, top to bottom.

Each actor's inbox takes one tagged union (``ModelClientMsg``, ``ToolExecutorMsg``, ...). The
replies are typed by the request: ``Ask[R]`` gets one ``R``, ``Streamed[R]`` a stream of ``R``.
Conversation content stays in the Messages API's own JSON shape (``Block`` is a plain dict) so
that blocks Legato does not know, such as server-tool results, MCP blocks and signed thinking,
go back to the API exactly as they came.

The actors, and who talks to whom:

    frontend ──RunPrompt──▶ conductor ──StreamMessage──▶ model client ──HTTP/SSE──▶ API
       │                       ├─RunTools, Capture/──────▶ tool executor ──Check──▶ broker
       │                       │ RestoreCheckpoint               ▲   │                  │
       └──AttachReferences (@path) ──────────────────────────────┘   │ ToolStarted,     │
                               └── UiEvent ──▶ ui ◀──────────────────┘ ToolOutput       │
                                               ▲ (questions) ◀───── AskUser ────────────┘
    every actor ──GetContext──▶ memory store (config, settings, LEGATO.md, CLAUDE.md...)
    frontend ──ListCommands, PrepareCommand──▶ skill library (skills and patterns)
    frontend ──TakeSandboxWarning (the interactive banner)──▶ tool executor
    conductor ──AppendEvents, SaveEvents──▶ session store (~/.legato/projects/<hash>/sessions/)

    conductor ──ListAgents──▶ skill library (subagent types); it runs the Agent tool's
      subagents itself, each a conversation of its own inside its Agent call

    legato config, doctor, permissions ──ExplainContext──▶ memory store
      (no session)                     ──DescribeProvider, ProbeApi──▶ model client
                                       ──CheckRuleCoverage, ExplainPermissions──▶ broker
                                       ──DescribeSandbox──▶ tool executor

Only the tool executor opens project files for the model: its tools, ``@path`` attachments and
``/undo``'s checkpoints all go through its one door (``actors/door.py``).
"""

from __future__ import annotations

from typing import Any, Generic, Literal, TypeVar

import msgspec

# The settings the messages carry, whole or inside another: defined with their descriptions in
# actors/settings/, and named here too, so that an actor reads what its inbox holds from here.
from actors.settings import AgentSettings as AgentSettings
from actors.settings import GlobalConfig as GlobalConfig
from actors.settings import HookCommand as HookCommand
from actors.settings import HookEvent as HookEvent
from actors.settings import HookGroup as HookGroup
from actors.settings import McpServer as McpServer
from actors.settings import McpWritten as McpWritten
from actors.settings import PermissionMode as PermissionMode
from actors.settings import PermissionRule as PermissionRule
from actors.settings import ProjectSettings as ProjectSettings
from actors.settings import RuleBehavior as RuleBehavior
from actors.settings import SandboxSettings as SandboxSettings
from actors.settings import SettingsMode as SettingsMode
from actors.settings import StatusLine as StatusLine
from actors.settings import TrustItem as TrustItem
from actors.settings import WebSearchSettings as WebSearchSettings
from runtime import Ask, Streamed

Block = dict[str, Any]
"""One content block in the Messages API's JSON shape (``{"type": "text", "text": ...}``)."""

T = TypeVar("T")


class Message(msgspec.Struct, frozen=True):
    role: Literal["user", "assistant"]
    content: list[Block]


# How the text blocks the conductor itself writes into a user message begin, besides notes in
# parentheses: a view of a saved conversation (a resumed session's) tells them from prompts.
COMPACTED_HEADER = "Earlier turns of this conversation were compacted. Summary of them:"
LEDGER_START = "<task-ledger>"
# How the note of a shell command the person ran themselves (``!cmd``) begins: the command
# follows in ``<bash-input>``, its output and how it ended in ``<bash-output>``.
PERSON_COMMAND_NOTE = "The user ran a shell command themselves"

# How the result of a call the permission broker refused begins: a saved conversation's view
# shows such a call as denied, as the live session did.
DENIED_PREFIX = "Permission denied: "


class Usage(msgspec.Struct, frozen=True):
    input_tokens: int = 0
    output_tokens: int = 0
    cache_creation_input_tokens: int = 0
    cache_read_input_tokens: int = 0
    # "fast" or "standard": the speed the API actually ran (fast mode may silently fall back);
    # None when the provider does not say. A sum keeps the latest answer's.
    speed: str | None = None

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.cache_creation_input_tokens + other.cache_creation_input_tokens,
            self.cache_read_input_tokens + other.cache_read_input_tokens,
            other.speed if other.speed is not None else self.speed,
        )

    @property
    def context_tokens(self) -> int:
        """How much of the context window the answer used: everything it read, and what it
        wrote (the usage of one answer; a sum of several means nothing here)."""
        return (
            self.input_tokens
            + self.cache_creation_input_tokens
            + self.cache_read_input_tokens
            + self.output_tokens
        )


# ── memory store ────────────────────────────────────────────────────────────────────────────


# Where an instruction file was found: the user's own (``~/.claude/CLAUDE.md``,
# ``~/.legato/LEGATO.md``), the project root's, the personal ``CLAUDE.local.md``, or a sub-folder's
# (loaded when the model works there). An imported file has the level of the file importing it.
GuideLevel = Literal["user", "project", "local", "nested"]


class GuideFile(msgspec.Struct, frozen=True, kw_only=True):
    """One instruction file given to the model (LEGATO.md, CLAUDE.md, AGENTS.md...)."""

    path: str  # absolute, as found (or as the import named it)
    level: GuideLevel
    text: str
    tokens: int  # an estimate: about four characters a token
    imported_by: str = ""  # the file whose ``@path`` brought it in; "" for one found by name
    line: int = 0  # the line of that ``@path``


class ImportRequest(msgspec.Struct, frozen=True, kw_only=True):
    """A project file's ``@path`` import of a file outside the project, not yet approved: shown
    to the user, who approves it once (``legato trust``, or the terminal's question)."""

    importer: str  # the file holding the ``@path``
    line: int
    path: str  # the imported file's real path
    fingerprint: str  # of importer, path and content: a changed file asks again


class ProjectContext(msgspec.Struct, frozen=True, kw_only=True):
    """What the memory store knows at start: where we are and what the user configured."""

    project_root: str  # real absolute path
    config: GlobalConfig
    settings: ProjectSettings
    model: str  # the effective model id, after flags > env > settings > config > default
    # The settings files' effortLevel, and the file it came from (--effort wins over it).
    effort_level: Setting[str] | None = None
    permission_mode: PermissionMode  # effective, same precedence
    # The instruction files loaded at start, in order of precedence, lowest first (guides.py).
    guides: tuple[GuideFile, ...] = ()
    import_requests: tuple[ImportRequest, ...] = ()  # outside the project, not yet approved
    approved_imports: tuple[str, ...] = ()  # the fingerprints the user approved
    memory: str | None = None  # first 200 lines of MEMORY.md, when present
    memory_dir: str = ""
    home: str = ""  # the user's home folder as the session sees it ("" : the process's)
    memory_topics: tuple[str, ...] = ()  # the other *.md files there, read on demand
    warnings: tuple[str, ...] = ()  # e.g. an unknown settings key, with a did-you-mean
    mcp_servers: tuple[McpServer, ...] = ()  # .mcp.json's, then the global config's; not started
    hooks: tuple[HookGroup, ...] = ()  # the global config's, then the project's, in file order
    project_hooks_fingerprint: str = ""  # of the project's hooks as read: what an approval holds
    # Given by the program driving the session (the Agent SDK's options, docs/sdk.md):
    system_prompt: str | None = None  # replaces Legato's instructions to the model
    append_system_prompt: str | None = None  # ends the system prompt
    offered_tools: tuple[str, ...] | None = None  # the built-in tools offered; None: all
    refused_tools: tuple[str, ...] = ()  # built-in tools never offered, whatever the above
    add_dirs: tuple[str, ...] = ()  # other folders the tools work in, as in the project
    # What the project's settings ask for that widens what commands may do, and whether the
    # user trusts exactly that (actors/memory_store/trust.py). Untrusted: none is applied.
    trust_items: tuple[TrustItem, ...] = ()
    trusted: bool = False
    trust_fingerprint: str = ""  # of ``trust_items``: what a trust record holds
    # The project's allowedCommands entries that apply while it is untrusted: they allow a
    # command only where it runs in the sandbox (the permission broker).
    confined_only_commands: tuple[str, ...] = ()
    # Rules in the reference's syntax from every settings file and the flags, in the order of
    # precedence (flags, local, project, user; Legato's file before the reference's of the same
    # level): the broker decides deny before ask before allow (actors/settings/rules.py).
    permission_rules: tuple[PermissionRule, ...] = ()
    # Where a settings file disables bypassPermissions (``path:line``, ``permissions.
    # disableBypassPermissionsMode``); empty when none does: the broker refuses to switch to it.
    bypass_disabled: str = ""
    # The settings files' ``env``, nearest winning: given to the commands, hooks and MCP
    # servers Legato starts, never to Legato itself (actors/memory_store/reference_keys.py).
    env: dict[str, str] = msgspec.field(default_factory=dict)
    # The project's allow rules left out until it is trusted: they never decide, but a
    # question they would have answered says so (the permission broker).
    held_rules: tuple[PermissionRule, ...] = ()
    # The nearest file's ``statusLine`` command (a project's once trusted): the terminal runs
    # it through the hook runner (``RunStatusLine``) and shows what it prints.
    status_line: StatusLine | None = None


class Overrides(msgspec.Struct, frozen=True, kw_only=True):
    """Values given on the command line; they win over every file (the memory store's own
    start-up values, given by the frontend that starts it)."""

    model: str | None = None
    permission_mode: PermissionMode | None = None
    # The Agent SDK's options (docs/sdk.md): added to what the files say, never replacing a
    # blocked rule of theirs.
    system_prompt: str | None = None
    append_system_prompt: str | None = None
    offered_tools: tuple[str, ...] | None = None
    refused_tools: tuple[str, ...] = ()
    allowed_tools: tuple[str, ...] = ()
    blocked_tools: tuple[str, ...] = ()
    allowed_commands: tuple[str, ...] = ()
    blocked_commands: tuple[str, ...] = ()
    add_dirs: tuple[str, ...] = ()
    # ``--mcp-config``: each a JSON text or a file holding {"mcpServers": {...}}; approved, and
    # their names win over the files'. ``strict_mcp_config``: only these servers.
    mcp_configs: tuple[str, ...] = ()
    strict_mcp_config: bool = False
    # Hooks the frontend was given (the Agent SDK's ``hooks`` option): they run after the
    # files' ones, always approved (whoever drives the session wrote them).
    hooks: tuple[HookGroup, ...] = ()
    # ``--allowedTools`` / ``--disallowedTools`` (and the Agent SDK's options of those names),
    # as rules in the reference's syntax, ``source`` naming the flag.
    permission_rules: tuple[PermissionRule, ...] = ()
    # ``--settings``: each a JSON text or a settings file's path; the nearest level of all.
    settings_flags: tuple[str, ...] = ()


class Setting(msgspec.Struct, Generic[T], frozen=True):
    """One effective value and its source: a flag, a variable, a file path, or the default."""

    key: str  # the camelCase name used in the files, e.g. "permissionMode"
    value: T
    source: str


class Explained(msgspec.Struct, frozen=True):
    """The context, and for each effective value the source that set it (``legato config``)."""

    context: ProjectContext
    settings: tuple[Setting[Any], ...]
    # What the project's file sets that is not applied, the source saying why (trust.py).
    not_applied: tuple[Setting[Any], ...] = ()
    # Keys of the reference's files Legato does not act on, the source naming file and line.
    not_acted_on: tuple[Setting[Any], ...] = ()


class GetContext(Ask[ProjectContext], frozen=True, tag=True):
    """The project's configuration as the session runs with it: settings, guides, memory,
    hooks, MCP servers and the warnings found loading them."""


class ExplainContext(Ask[Explained], frozen=True, tag=True):
    """The context with where each effective value came from: ``legato config``, ``doctor``
    and ``permissions`` print the sources."""


class ApproveProjectMcpServers(Ask[tuple[McpServer, ...]], frozen=True, tag=True):
    """Record the user's approval of these project servers, as their entries are now, in the
    user's own folder (never the project's); answers them, approved. An unknown name raises
    UsageError naming the known ones."""

    names: tuple[str, ...]


class ApproveProjectHooks(Ask[tuple["HookGroup", ...]], frozen=True, tag=True):
    """Record the user's approval of the project's hooks as they are now (any change to them
    asks again), in the user's own folder; answers every hook group, the project's approved."""


class RevokeProjectMcpServers(Ask[tuple[str, ...]], frozen=True, tag=True):
    """Forget the approval of these project servers; answers the names that had one. The
    running session's servers go on until it ends; the next session does not start them."""

    names: tuple[str, ...]


class TrustProject(Ask[ProjectContext], frozen=True, tag=True):
    """Record that the user trusts the project's widening settings as they are now, and load
    the context again with them applied; answers the new context. ``fingerprint``: the one the
    person was shown; when the file has changed since, nothing is recorded (the answer is
    still untrusted)."""

    fingerprint: str


class ApproveImports(Ask[ProjectContext], frozen=True, tag=True):
    """Record that the user approves these ``@path`` imports from outside the project (as they
    were shown: ``ImportRequest.fingerprint``), and load the context again with them; answers
    the new context. A fingerprint no longer asked for is not recorded."""

    fingerprints: tuple[str, ...]


class RevokeTrust(Ask[bool], frozen=True, tag=True):
    """Forget the user's trust in the project's settings; answers whether there was one."""


RuleScope = Literal["local", "project", "user"]


class RuleWritten(msgspec.Struct, frozen=True, kw_only=True):
    """What ``WriteRule`` did: the file, whether it changed, the ``info/exclude`` file that now
    lists it (a ``settings.local.json`` written the first time), and the context after."""

    path: str
    changed: bool
    excluded: str | None = None
    context: ProjectContext


class WriteRule(Ask[RuleWritten], frozen=True, tag=True):
    """Put a permission rule into one of Legato's own settings files (``behavior`` None: take
    it out), as the person asked (``legato permissions allow|ask|deny|remove``). It never
    trusts a project that was not: a project trusted before stays so only when this rule is
    all that changed."""

    behavior: RuleBehavior | None
    text: str
    scope: RuleScope = "local"


# Where ``#text`` goes: the project's guide (LEGATO.md), the personal one beside it
# (CLAUDE.local.md), the user's memory of this project (MEMORY.md), or the user's guide for
# every project (~/.legato/LEGATO.md).
MemoryTarget = Literal["project", "local", "memory", "user"]


class MemoryAdded(msgspec.Struct, frozen=True, kw_only=True):
    """What ``AddMemory`` did: the file it wrote, whether it made it, and the repository's
    ``info/exclude`` that now lists it (a personal guide made in a git work tree)."""

    path: str
    created: bool = False
    excluded: str | None = None


class AddMemory(Ask[MemoryAdded], frozen=True, tag=True):
    """Append ``text`` as a bullet to one of the instruction or memory files the session loads
    (``#text`` in the terminal), written whole or not at all; a file that is a link out of its
    folder, not a regular file, or not writable is refused (a ``LegatoError`` naming it)."""

    target: MemoryTarget
    text: str


MemoryStoreMsg = (
    GetContext
    | AddMemory
    | ExplainContext
    | ApproveProjectMcpServers
    | RevokeProjectMcpServers
    | ApproveProjectHooks
    | TrustProject
    | RevokeTrust
    | WriteRule
    | ApproveImports
)


# ── skill library ───────────────────────────────────────────────────────────────────────────
# Skills (``.legato/skills/<name>.md``) and patterns (``.legato/patterns/<file>.md``), the
# project's over the bundled ones, run as ``/<name> [args]`` (docs/skills-and-patterns.md).

CommandKind = Literal["skill", "pattern"]


class CommandInfo(msgspec.Struct, frozen=True, kw_only=True):
    """One skill or pattern ``/name`` runs here, for ``/help`` and completion."""

    name: str
    description: str
    kind: CommandKind
    path: str  # the file it is read from
    bundled: bool  # shipped with Legato rather than the project's own
    usage: str  # ``/name <required> [optional]``


class SkillPrompt(msgspec.Struct, frozen=True, kw_only=True, tag=True):
    """A skill's steps or a rendered pattern: the prompt to run like a typed one."""

    prompt: str
    kind: CommandKind
    name: str
    path: str
    # A project's file, not Legato's bundled one: its ``@path`` references are the file
    # author's, not the person's, and are read as the model's reads are.
    from_project: bool = False
    # What the person should know before it runs (a field of the file that is not applied),
    # said where the session's other warnings are.
    notes: tuple[str, ...] = ()
    # The reference's ``!`cmd``` lines, in order: each runs as a Bash call (the permission
    # broker decides it) before the prompt goes, its output put in place of the n-th mark,
    # ``SHELL_MARK<n>SHELL_MARK`` (frontends/skills/shell_lines.py).
    shell: tuple[str, ...] = ()
    # The user's own command's ``model``: the prompt runs on it (a project's is not applied).
    model: str | None = None
    # Its ``allowed-tools``, as allow rules for its prompt alone (its ``!`` lines included):
    # the frontend hands them to the broker (``AllowForPrompt``), a project's only once the
    # user trusts the project.
    allowed: tuple[PermissionRule, ...] = ()


# NUL: no file's text or typed argument holds one, so a mark is never the file author's text.
SHELL_MARK = "\0"


class SkillOutput(msgspec.Struct, frozen=True, tag=True):
    """Text Legato produced itself, without the model: ``/help``, ``/memory``, mock data."""

    text: str


class CheckReport(msgspec.Struct, frozen=True, kw_only=True):
    """A skill or pattern file that passed ``legato /<name> --test``, rendered with samples."""

    kind: CommandKind
    name: str
    path: str
    sample: str  # the sample arguments, as typed
    rendered: str
    warnings: tuple[str, ...] = ()  # worth fixing, but not wrong
    notes: tuple[str, ...] = ()  # what else was checked, or how the arguments are used


class PatternRuns(msgspec.Struct, frozen=True):
    name: str
    runs: int


class ListCommands(Ask[tuple[CommandInfo, ...]], frozen=True, tag=True):
    """Every skill and pattern the project can run, by name; files that do not load are left
    out (``/help`` names them)."""


class PrepareCommand(Ask[SkillPrompt | SkillOutput], frozen=True, tag=True):
    """What ``/name args`` runs. A bad call raises ``UsageError`` (an unknown name with a
    did-you-mean), a file that does not load ``ConfigError`` naming its file, line and field.
    A pattern's run is counted for ``--pattern-stats``."""

    name: str
    args: tuple[str, ...] = ()
    seed: int | None = None  # mock data: the same seed gives the same records
    in_session: bool = False  # advice says what to type in a session, not in a shell


class CheckCommand(Ask[CheckReport], frozen=True, tag=True):
    """``legato /<name> --test``: check the file ``/name`` runs (the project's when there is
    one) and render it with sample arguments. A fault raises ``ConfigError`` naming the file,
    the line and the field. Not counted as a run."""

    name: str


class GetPatternStats(Ask[tuple[PatternRuns, ...]], frozen=True, tag=True):
    """How often each pattern ran in this project: every pattern, then retired ones that ran."""


class AgentType(msgspec.Struct, frozen=True, kw_only=True):
    """A kind of subagent the ``Agent`` tool can start (``subagent_type``)."""

    name: str
    description: str
    prompt: str  # its system prompt: the file's body
    tools: tuple[str, ...] | None = None  # the tools it is offered; None: all but Agent
    model: str | None = None  # an alias or id; None: the parent's model ("inherit")
    path: str = ""  # the file it is read from; "" for a built-in type


class AgentTypes(msgspec.Struct, frozen=True, kw_only=True):
    """The user's agent types, and the files that could not be read as one (each fault names
    the file, the line, the field and the remedy; such a file is skipped)."""

    types: tuple[AgentType, ...] = ()
    faults: tuple[str, ...] = ()

    def describe_faults(self) -> str:
        """The warning for the files that were skipped; "" when none was. A frontend says it
        with the settings' warnings, after the banner (or the ``init`` line): the conductor,
        which starts before either is shown, does not."""
        if not self.faults:
            return ""
        import textwrap  # only when a file is at fault

        shown = "\n".join(textwrap.indent(fault, "  ") for fault in self.faults)
        many = "s" if len(self.faults) > 1 else ""
        return f"Skipped agent file{many} that could not be read:\n{shown}"


class ListAgents(Ask[AgentTypes], frozen=True, tag=True):
    """The user's subagent types: ``.legato/agents/<name>.md``, then ``.claude/agents/``,
    ``~/.config/legato/agents/`` and ``~/.claude/agents/``; the first with a name wins."""


class ListModelSkills(Ask[tuple[CommandInfo, ...]], frozen=True, tag=True):
    """The skills the model may load by itself (the ``Skill`` tool): the reference's commands
    and skill folders whose files do not say ``disable-model-invocation: true``."""


class LoadSkill(Ask[SkillPrompt], frozen=True, tag=True):
    """A skill the model asked for with the ``Skill`` tool, rendered with its arguments. An
    unknown name raises ``UsageError`` listing the skills there are; a bad file ``ConfigError``."""

    name: str
    args: tuple[str, ...] = ()


SkillLibraryMsg = (
    ListCommands
    | PrepareCommand
    | CheckCommand
    | GetPatternStats
    | ListAgents
    | ListModelSkills
    | LoadSkill
)


# ── model client ────────────────────────────────────────────────────────────────────────────


class ModelRequest(msgspec.Struct, frozen=True, kw_only=True, omit_defaults=True):
    model: str
    max_tokens: int
    messages: list[Message]
    system: str | list[Block] | None = None
    tools: list[Block] = msgspec.field(default_factory=list)
    thinking: Block | None = None
    output_config: Block | None = None  # {"effort": level} (actors/reasoning.py)
    speed: Literal["fast"] | None = None


class MessageStarted(msgspec.Struct, frozen=True, tag=True):
    id: str
    model: str


class TextDelta(msgspec.Struct, frozen=True, tag=True):
    index: int
    text: str


class ThinkingDelta(msgspec.Struct, frozen=True, tag=True):
    index: int
    thinking: str


class ToolUseStarted(msgspec.Struct, frozen=True, tag=True):
    index: int
    id: str
    name: str


class ToolInputDelta(msgspec.Struct, frozen=True, tag=True):
    index: int
    partial_json: str


class BlockFinished(msgspec.Struct, frozen=True, tag=True):
    """A content block is complete; ``block`` is exactly what goes back to the API."""

    index: int
    block: Block


class Retrying(msgspec.Struct, frozen=True, tag=True):
    """The request failed in a way worth retrying; the client waits ``delay`` seconds."""

    attempt: int
    delay: float
    reason: str


class MessageFinished(msgspec.Struct, frozen=True, tag=True):
    """The whole answer. Also shown to the UI by the conductor, with ``stop_reason`` None and no
    usage, for an answer cut short after some of its tool calls started: what the conversation
    keeps of it, so that every frontend can show a call's result after the message that asked."""

    message: Message  # role "assistant", every block in order, unknown ones included
    stop_reason: str | None
    usage: Usage


ModelEvent = (
    MessageStarted
    | TextDelta
    | ThinkingDelta
    | ToolUseStarted
    | ToolInputDelta
    | BlockFinished
    | Retrying
    | MessageFinished
)


class StreamMessage(Streamed[ModelEvent], frozen=True, tag=True):
    """Stream one assistant message. Ends after ``MessageFinished``; API failures raise ApiError."""

    request: ModelRequest


class Finding(msgspec.Struct, frozen=True):
    """Something that stands in a session's way, and what to do about it (``legato doctor``)."""

    what: str
    remedy: str


Provider = Literal["anthropic", "bedrock", "openai"]


class ProviderReport(msgspec.Struct, frozen=True, kw_only=True):
    """Where a model's requests would go, and with which credentials: names, never values."""

    provider: Provider
    base_url: str  # no /v1: the paths add it
    credentials: tuple[str, ...]  # in words: "Anthropic API at ... with the key from ..."
    problems: tuple[Finding, ...] = ()  # a missing key, region or optional extra
    # What the provider takes besides text and images: the Messages API's server-side web
    # search (the WebSearch tool is offered only where it is), and document blocks (a PDF
    # Read gives the pages' text where it is not).
    web_search: bool = True
    documents: bool = True


class DescribeProvider(Ask[ProviderReport], frozen=True, tag=True):
    """Which API a request for ``model`` would go to, with which credentials, and what stands
    in the way; nothing is sent (``legato config``, ``legato doctor``)."""

    model: str


class ProbeReport(msgspec.Struct, frozen=True):
    line: str  # "POST <url> -> HTTP 400: reachable, credentials accepted", or why not
    problem: Finding | None = None


class ProbeApi(Ask[ProbeReport], frozen=True, tag=True):
    """Send ``model``'s API a request with no messages and judge the answer (``legato doctor``).

    The API checks the credentials before the body, so HTTP 400 means "reachable, credentials
    accepted" and costs nothing; 401/403 means they were refused.
    """

    model: str
    timeout: float = 10.0  # seconds, for each of connecting, sending and reading


ModelClientMsg = StreamMessage | DescribeProvider | ProbeApi


# ── permission broker ───────────────────────────────────────────────────────────────────────

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


# ── tool executor ───────────────────────────────────────────────────────────────────────────


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


# ── ui ──────────────────────────────────────────────────────────────────────────────────────


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


# ── conductor ───────────────────────────────────────────────────────────────────────────────


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


# ── session store ───────────────────────────────────────────────────────────────────────────
# A session is saved as it goes, one event a line; replaying the events gives back
# the conversation, the task ledger and the checkpoints /undo restores.


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


# -- MCP client -------------------------------------------------------------------------------
# The MCP client actor runs the user's MCP servers and offers their tools as
# ``mcp__<server>__<tool>``; its calls answer with content blocks in the Messages API's shape.

# "unapproved": a project's server the user has not approved yet; it is not started.
McpState = Literal["connecting", "ready", "failed", "unapproved"]


class McpServerStatus(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    state: McpState
    source: str = ""  # the file that declares it
    transport: Literal["stdio", "http", "sse"] = "stdio"
    tools: int = 0  # how many tools it offers once ready
    error: str | None = None  # why it failed, with a stdio server's last lines of stderr
    restarts: bool = False  # failed after it was ready: the next call starts it again


class McpTool(msgspec.Struct, frozen=True, kw_only=True):
    name: str  # mcp__<server>__<tool>, as the model calls it
    server: str
    description: str
    input_schema: dict[str, Any]
    # The server's readOnlyHint: what it says of its tool, a hint for the broker, not a promise.
    read_only: bool = False


class McpToolResult(msgspec.Struct, frozen=True, kw_only=True):
    content: tuple[Block, ...]  # text and image blocks, within the actor's output cap
    structured: dict[str, Any] | None = None  # the tool's structuredContent, if any
    is_error: bool = False


class ListMcpServers(Ask[tuple[McpServerStatus, ...]], frozen=True, tag=True):
    """Each server's state, at once (a server still connecting says so)."""


class McpToolListing(msgspec.Struct, frozen=True, kw_only=True):
    tools: tuple[McpTool, ...]  # of the servers that are ready
    connecting: tuple[str, ...] = ()  # the servers still starting


class ListMcpTools(Ask[McpToolListing], frozen=True, tag=True):
    """The tools of the servers that are ready, and which are still connecting.

    ``wait``: first wait (bounded by each server's start timeout) for every connecting server
    to be ready or to fail."""

    wait: bool = False


class ApproveMcpServers(Ask[tuple[McpServerStatus, ...]], frozen=True, tag=True):
    """Start these unapproved servers (the user has just approved them); answers their states."""

    names: tuple[str, ...]


class CallMcpTool(Ask[McpToolResult], frozen=True, tag=True):
    """Call ``name`` (``mcp__<server>__<tool>``); a failure is an ``is_error`` result naming the
    server and the remedy. ``id`` is what ``InterruptMcpCalls`` names."""

    id: str
    name: str
    arguments: dict[str, Any]


class InterruptMcpCalls(msgspec.Struct, frozen=True, tag=True):
    """Stop these calls: each answers at once that it was interrupted."""

    ids: tuple[str, ...]


McpClientMsg = ListMcpServers | ListMcpTools | CallMcpTool | InterruptMcpCalls | ApproveMcpServers


# -- hook runner --------------------------------------------------------------------------------
# Runs the user's hook commands for an event: those whose matcher matches, side by side, each
# with the event's JSON on stdin, a timeout and bounded output; answers what they decided.


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
