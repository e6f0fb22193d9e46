"""The memory store's inbox: the project's context (config, settings, instruction files), the
trust and approvals a project needs, and the rules and memories written to its files.
"""

from __future__ import annotations

from typing import Any, Generic, Literal, TypeVar

import msgspec

from actors.settings import (
    GlobalConfig,
    HookGroup,
    McpServer,
    PermissionMode,
    PermissionRule,
    ProjectSettings,
    RuleBehavior,
    StatusLine,
    TrustItem,
)
from runtime import Ask

T = TypeVar("T")


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
