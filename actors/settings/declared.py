"""The MCP servers, the hooks and the status line command the settings files declare, as the
memory store hands them to the MCP client, the hook runner and the terminal
(actors/memory_store/mcp_servers.py, hook_settings.py read the first two)."""

from __future__ import annotations

from typing import Annotated, Literal

import msgspec


class McpWritten(msgspec.Struct, frozen=True, kw_only=True):
    """An MCP server's entry as its file writes it, before ``${VAR}`` expansion: what an
    approval shows (the names of the variables its values come from)."""

    command: str = ""
    args: tuple[str, ...] = ()
    env: dict[str, str] = msgspec.field(default_factory=dict)
    url: str = ""
    headers: dict[str, str] = msgspec.field(default_factory=dict)


class McpServer(msgspec.Struct, frozen=True, kw_only=True):
    """One MCP server as .mcp.json or the global config declares it, ``${VAR}`` expanded.

    The MCP client starts the approved ones. A project's server (its ``.mcp.json``, which a
    cloned repository brings) runs only once the user has approved this very entry; the
    global config's are the user's own and always approved (docs/mcp.md).
    """

    name: str
    transport: Literal["stdio", "http", "sse"]
    source: str  # the file it came from
    command: str = ""  # stdio
    args: tuple[str, ...] = ()
    env: dict[str, str] = msgspec.field(default_factory=dict)
    url: str = ""  # http and sse
    headers: dict[str, str] = msgspec.field(default_factory=dict)
    approved: bool = True
    # sha256 of the entry as the file writes it, before ``${VAR}`` expansion: what an approval
    # of a project's server holds (actors/memory_store/mcp_approvals.py).
    fingerprint: str = ""
    written: McpWritten = McpWritten()  # the entry before expansion, for approvals

    # Env and header values often hold tokens: a log line or a failed assertion shows names.
    def __repr__(self) -> str:
        where = (
            f"command={self.command!r}, args={self.args!r}" if self.command else f"url={self.url!r}"
        )
        hidden = f"env={sorted(self.env)!r}, headers={sorted(self.headers)!r}"
        head = f"McpServer({self.name!r}, {self.transport!r}"
        return f"{head}, {where}, {hidden}, source={self.source!r})"


HookEvent = Literal[
    "PreToolUse",
    "PostToolUse",
    "UserPromptSubmit",
    "Stop",
    "SubagentStop",
    "SessionStart",
    "SessionEnd",
    "Notification",
    "PreCompact",
]


# A hook's time when its entry does not say, in seconds: Claude Code's default.
HOOK_TIMEOUT = 60.0


class HookCommand(msgspec.Struct, frozen=True, kw_only=True):
    """One ``{"type": "command", "command": ..., "timeout": ...}`` of a hooks entry, or one
    Agent SDK callback (the SDK's ``hooks`` option, given by the frontend that speaks to it)."""

    # Run by the shell, in the project, with LEGATO_PROJECT_DIR set; for a callback, what the
    # user is shown ("Agent SDK callback hook_0"): it also keeps two callbacks apart.
    command: str
    timeout: float = HOOK_TIMEOUT  # seconds; then its process tree is killed (a callback: dropped)
    callback: str | None = None  # the SDK's callback id: the frontend runs it, not the shell
    # The SDK matcher's ``onFailure: "block"``: a callback that fails (raises, times out,
    # answers what cannot be read) blocks the tool call or the prompt instead of being ignored.
    block_on_failure: bool = False


class HookGroup(msgspec.Struct, frozen=True, kw_only=True):
    """One entry of ``hooks.<Event>``: a matcher and the commands it runs, from one file."""

    event: HookEvent
    matcher: str = ""  # a regular expression over the tool name; "" (or "*"): every tool
    hooks: tuple[HookCommand, ...] = ()
    source: str = ""  # the settings file that declares it
    # The user's own (global config) always; the project's once the user has approved its
    # hooks as they are now (a cloned repository's commands). Headless runs them regardless.
    approved: bool = True


class StatusLine(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    """``statusLine``: a command whose output the terminal shows in place of its own status
    line, given the session's state as JSON on stdin (the reference's shape and fields,
    docs/configuration.md). A project's runs only once the project is trusted (trust.py)."""

    type: Annotated[Literal["command"], msgspec.Meta(description="what runs: a shell command")] = (
        "command"
    )
    # "" only when the file leaves it out, which the loader refuses by name.
    command: Annotated[
        str,
        msgspec.Meta(
            min_length=1,
            description="the shell command that prints the status line",
            extra={"words": 'a shell command such as "~/.config/legato/statusline.sh"'},
        ),
    ] = ""
    padding: Annotated[
        int,
        msgspec.Meta(ge=0, le=40, description="spaces before the line", extra={"unit": "spaces"}),
    ] = 0
    refresh_interval: (
        Annotated[
            int,
            msgspec.Meta(
                ge=1,
                le=3600,
                description="seconds between runs besides those a change starts (a clock)",
                extra={"unit": "seconds", "default": "none"},
            ),
        ]
        | None
    ) = None


STATUS_LINE = msgspec.Meta(
    description="a command whose output replaces the status line",
    examples=[{"type": "command", "command": "~/.config/legato/statusline.sh"}],
)
