"""The two settings files, validated: ``.legato/settings.json`` (the project's) and
``~/.config/legato/config.json`` (the user's own).

Each field says once, in its ``msgspec.Meta``, what it takes and what it is for: msgspec checks
the bounds when a file is converted, and the loader's messages about a bad value are made from
the same Meta (actors/settings/words.py). Reading the files, and which value wins, is the
memory store's (actors/memory_store/loader.py, precedence.py).
"""

from __future__ import annotations

from typing import Annotated, Any, Literal, get_args

import msgspec

from actors.settings.declared import STATUS_LINE, StatusLine
from actors.settings.reference import EFFORT_LEVEL, ENV, PERMISSIONS, EffortLevel, Permissions
from actors.settings.sandbox import SandboxSettings
from actors.settings.words import strings

SettingsMode = Literal["ask", "auto", "custom", "plan"]
"""ask = Normal Mode, auto = Auto-Accept Mode, custom = the project's rules, plan = Plan Mode:
the modes a settings file, the global config, a flag or a variable may choose."""
SETTINGS_MODES: tuple[SettingsMode, ...] = get_args(SettingsMode)

PermissionMode = Literal["ask", "auto", "custom", "plan", "dont_ask", "bypass"]
"""A session's mode: a ``SettingsMode``, or one that only a frontend embedding Legato starts or
switches to (the Agent SDK's ``dontAsk`` and ``bypassPermissions``; ``actors/permission_modes.py``).
dont_ask = ask mode's rules, and what they would ask is denied unasked; bypass = what the rules
do not block is allowed unasked, except what only a person may allow. A cloned repository's
settings file cannot start a session without questions, so no file may choose these two."""

# Background commands that may run at once when .legato/settings.json does not say: a server, a
# watcher and a few builds or test runs, without a forgotten loop of them filling the machine.
MAX_BACKGROUND_COMMANDS = 8

_MODEL = msgspec.Meta(
    description="the model the session uses",
    extra={"words": "a model alias (opus, sonnet, haiku) or a model id such as claude-sonnet-4-6"},
)
_MODE = msgspec.Meta(description="the permission mode a session starts in")


def _globs(description: str) -> msgspec.Meta:
    return strings(description, each="a glob string", many="glob strings", example=["src/**"])


def _commands(description: str) -> msgspec.Meta:
    each, many = "a command string", "command strings"
    return strings(description, each=each, many=many, example=["git status"])


def _tools(description: str) -> msgspec.Meta:
    # Tool names (actors/tool_names.py): "Bash", "mcp__<server>", "mcp__<server>__<tool>".
    example = ["mcp__github", "mcp__git__status", "Bash"]
    return strings(description, each="a tool name string", many="tool names", example=example)


class AgentSettings(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    """The ``agents`` object of ``.legato/settings.json``: the limits on subagents (the
    ``Agent`` tool; docs/agents.md)."""

    max_concurrent: Annotated[
        int,
        msgspec.Meta(
            ge=1,
            le=64,
            description="subagents running at once; more wait for a place (each is a model "
            "stream and its tools)",
        ),
    ] = 4
    max_depth: Annotated[
        int,
        msgspec.Meta(
            ge=0,
            le=4,
            description="how deep agents may start agents: 1, the main conversation's "
            "subagents start none; 0, no Agent tool at all",
        ),
    ] = 1
    max_turns: Annotated[
        int,
        msgspec.Meta(
            ge=1,
            le=1000,
            description="each agent's answers (turns) before it is stopped and reports how far "
            "it got",
        ),
    ] = 30


def _domains(description: str, example: str) -> msgspec.Meta:
    return strings(description, each="a domain name string", many="domain names", example=[example])


# The searches one WebSearch call may make when no settings file says (the reference's is 8):
# each is billed by the API, and five is enough to refine a query twice.
WEB_SEARCH_MAX_USES = 5


class WebSearchSettings(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    """The ``webSearch`` object of the user's config and of ``.legato/settings.json``: the
    bounds of the WebSearch tool (docs/configuration.md says how the two combine)."""

    max_uses: Annotated[
        int,
        msgspec.Meta(
            ge=1,
            le=20,
            description="the searches one WebSearch call may make (the API's max_uses)",
        ),
    ] = WEB_SEARCH_MAX_USES
    allowed_domains: Annotated[
        tuple[str, ...],
        _domains("the only domains searches may return (their subdomains too)", "docs.python.org"),
    ] = ()
    blocked_domains: Annotated[
        tuple[str, ...],
        _domains("domains searches never return (their subdomains too)", "pinterest.com"),
    ] = ()


_WEB_SEARCH = msgspec.Meta(
    description="the bounds of the WebSearch tool", examples=[{"maxUses": 3}]
)


class ProjectSettings(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    """``.legato/settings.json``, validated."""

    model: Annotated[str | None, _MODEL] = None
    effort_level: Annotated[EffortLevel | None, EFFORT_LEVEL] = None
    permission_mode: Annotated[SettingsMode | None, _MODE] = None
    allowed_paths: Annotated[tuple[str, ...], _globs("paths the tools may use")] = ()
    blocked_paths: Annotated[
        tuple[str, ...], _globs("paths no tool may use, whatever else allows them")
    ] = ()
    allowed_commands: Annotated[tuple[str, ...], _commands("commands run without a question")] = ()
    blocked_commands: Annotated[tuple[str, ...], _commands("commands never run")] = ()
    allowed_tools: Annotated[tuple[str, ...], _tools("tools called without a question")] = ()
    blocked_tools: Annotated[tuple[str, ...], _tools("tools never called")] = ()
    sandbox: Annotated[
        SandboxSettings,
        msgspec.Meta(description="how Bash commands are confined", examples=[{"network": False}]),
    ] = SandboxSettings()
    max_background_commands: Annotated[
        int,
        msgspec.Meta(
            ge=1,
            le=64,
            description="how many commands may run in the background at once (Bash's "
            "run_in_background)",
            # Its messages say its bounds alone; docs/agents.md says its default and why.
            extra={"default": None},
        ),
    ] = MAX_BACKGROUND_COMMANDS
    agents: Annotated[
        AgentSettings,
        msgspec.Meta(description="the limits on subagents", examples=[{"maxConcurrent": 4}]),
    ] = AgentSettings()
    web_search: Annotated[WebSearchSettings, _WEB_SEARCH] = WebSearchSettings()
    # The reference's keys, so that a line of .claude/settings.json can be copied across.
    permissions: Annotated[Permissions, PERMISSIONS] = Permissions()
    env: Annotated[dict[str, str], ENV] = msgspec.field(default_factory=dict)
    # Runs once the project is trusted: a cloned repository's command (trust.py).
    status_line: Annotated[StatusLine | None, STATUS_LINE] = None


class GlobalConfig(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    """``~/.config/legato/config.json``, validated. ``api_key`` is never printed."""

    api_key: Annotated[
        str | None, msgspec.Meta(description="the model API's key, never printed")
    ] = None
    default_model: Annotated[str | None, _MODEL] = None
    permission_mode: Annotated[SettingsMode | None, _MODE] = None
    theme: Annotated[
        Literal["dark", "light"], msgspec.Meta(description="the terminal's colours")
    ] = "dark"
    auto_save: Annotated[bool, msgspec.Meta(description="sessions are saved as they go")] = True
    # The user's own choice, so it is read from this file only, never from a project's settings.
    enable_all_project_mcp_servers: Annotated[
        bool,
        msgspec.Meta(
            description="every project's .mcp.json servers run without approval (docs/mcp.md)"
        ),
    ] = False
    web_search: Annotated[WebSearchSettings, _WEB_SEARCH] = WebSearchSettings()
    permissions: Annotated[Permissions, PERMISSIONS] = Permissions()
    env: Annotated[dict[str, str], ENV] = msgspec.field(default_factory=dict)
    status_line: Annotated[StatusLine | None, STATUS_LINE] = None

    # The key must not leak through a log line, a failed assertion or rich's pretty printer.
    def __repr__(self) -> str:
        fields = ", ".join(f"{name}={value!r}" for name, value in self.__rich_repr__())
        return f"GlobalConfig({fields})"

    def __rich_repr__(self) -> list[tuple[str, Any]]:
        return [
            ("api_key", None if self.api_key is None else "<hidden>"),
            ("default_model", self.default_model),
            ("permission_mode", self.permission_mode),
            ("theme", self.theme),
            ("auto_save", self.auto_save),
            ("enable_all_project_mcp_servers", self.enable_all_project_mcp_servers),
            ("web_search", self.web_search),
            ("permissions", self.permissions),
            ("env", sorted(self.env)),  # names only: a value may be a token
            ("status_line", self.status_line),
        ]


class TrustItem(msgspec.Struct, frozen=True):
    """One setting of the project's file that lets commands or the model reach past the
    project (actors/memory_store/trust.py): applied only once the user trusts the project."""

    key: str  # as in the file: "permissionMode", "allowedCommands", "sandbox.passEnv", "hooks"
    value: Any  # one entry of a list, or the whole value
    # The file that sets it, when the project has several (.legato/, .claude/, their local
    # files); not part of what is trusted: the same item moved to another file stays trusted.
    source: str = ""
