"""The session a program drives over stdin (``--input-format stream-json``): its options as the
Agent SDK gives them, the actors assembled for it, and the ``init`` line that opens its output.

With ``--permission-prompt-tool stdio`` a question the rules would put to a person goes to the
program as a ``can_use_tool`` control request; without it, as in every headless run, it is
denied. ``dontAsk`` denies it either way (the broker asks nobody in that mode).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from actors.permission_modes import from_sdk
from actors.protocol import (
    GetContext,
    ListMcpServers,
    ListOfferedTools,
    Overrides,
    PermissionAnswer,
)
from actors.ui import Renderer
from frontends.headless.control import ControlError
from frontends.session import assemble, read_sdk_hooks
from frontends.startup.version import __version__

if TYPE_CHECKING:
    from collections.abc import Callable

    from actors.protocol import AskUser
    from frontends.headless.control import ControlChannel
    from frontends.headless.render_stream_json import StreamJsonRenderer
    from frontends.session import Session
    from frontends.session_options import SessionOptions

# The Claude Code release whose stream-json and control protocol this one follows, for the SDK's
# check of its CLI's version (``claude_code_version`` in the init line).
CLAUDE_CODE_PROTOCOL = "2.1.0"
# The version of the protocol as docs/headless.md writes it down; it changes when a line or a
# request changes shape.
PROTOCOL_VERSION = 1


class SdkOptions(msgspec.Struct, frozen=True):
    """A session the Agent SDK drives: its ``SessionOptions`` (the SDK's ``overrides`` among
    them) and what only the SDK's protocol has."""

    session: SessionOptions
    permission_mode: str = "default"  # the SDK's name, as the init line reports it
    ask_program: bool = False  # --permission-prompt-tool stdio
    unsupported: tuple[str, ...] = ()  # the options given that Legato does not act on
    replay_user_messages: bool = False  # each user message echoed back, with its uuid


class SdkSession(msgspec.Struct, frozen=True):
    session: Session
    init_problems: tuple[str, ...] = ()  # what initialize asked for that was not taken


class ProgramQuestions(Renderer):
    """Puts the broker's questions to the driving program as ``can_use_tool`` requests.

    Its answer is read defensively: anything but a well-formed allow is a deny. An allow's
    ``updatedInput`` goes back to the tool, which checks it against the rules again; a deny's
    ``message`` reaches the model; a deny with ``interrupt`` also stops the prompt.
    """

    def __init__(self, channel: ControlChannel, interrupt: Callable[[], object]) -> None:
        self.channel = channel
        self.interrupt = interrupt

    async def ask(self, question: AskUser) -> PermissionAnswer:
        request = question.request
        body: dict[str, Any] = {
            "subtype": "can_use_tool",
            "tool_name": request.tool,
            "input": request.tool_input or {},
            "tool_use_id": request.tool_use_id or "",
            "permission_suggestions": None,
            "blocked_path": None,
            "description": _describe(question),
        }
        if request.agent is not None:
            body["agent_id"] = request.agent
        try:
            answer = await self.channel.request(body)
        except ControlError as error:
            return PermissionAnswer(choice="n", message=f"nobody could answer: {error.message}")
        if answer.get("behavior") == "allow":
            updated = answer.get("updatedInput")
            if updated is not None and not isinstance(updated, dict):
                return PermissionAnswer(
                    choice="n",
                    message="the program's allow had an updatedInput that is not an object",
                )
            changed = updated if updated is not None and updated != request.tool_input else None
            return PermissionAnswer(choice="y", updated_input=changed)
        message = answer.get("message")
        if answer.get("interrupt") is True:
            self.interrupt()
        return PermissionAnswer(
            choice="n",
            message=message if isinstance(message, str) and message.strip() else None,
            interrupt=answer.get("interrupt") is True,
        )


def _describe(question: AskUser) -> str:
    request = question.request
    if request.kind == "search":
        query = (request.arguments or {}).get("query")
        return f"search the web for {query!r}" if isinstance(query, str) else "search the web"
    what = request.command or request.url or ", ".join(request.paths) or request.tool
    return f"{request.kind} {what}"


def assemble_for_sdk(
    options: SdkOptions,
    renderer: StreamJsonRenderer,
    session_id: str,
    *,
    init: dict[str, Any] | None,
    channel: ControlChannel,
    interrupt: Callable[[], object],
) -> SdkSession:
    wanted = options.session
    mode = from_sdk(options.permission_mode)
    hooks, problems = read_sdk_hooks(init.get("hooks") if init is not None else None)
    overrides = msgspec.structs.replace(
        wanted.overrides or Overrides(), model=wanted.model, permission_mode=mode, hooks=hooks
    )

    async def hook_callback(
        callback_id: str, payload: dict[str, Any], tool_use_id: str | None
    ) -> dict[str, Any]:
        body = {
            "subtype": "hook_callback",
            "callback_id": callback_id,
            "input": payload,
            "tool_use_id": tool_use_id,
        }
        return await channel.request(body)

    wanted = msgspec.structs.replace(
        wanted,
        headless=True,
        overrides=overrides,
        asker=ProgramQuestions(channel, interrupt) if options.ask_program else None,
        session_id=session_id,
        hook_callbacks=hook_callback if hooks else None,
    )
    session = assemble(wanted, renderer=renderer)
    return SdkSession(session, tuple(problems))


async def init_line(session: Session, options: SdkOptions, mode: str) -> dict[str, Any]:
    """The ``system`` ``init`` line: where, with what, and what was not taken."""
    context = await session.memory.address.ask(GetContext())
    offered: tuple[str, ...] = await session.conductor.address.ask(ListOfferedTools())
    servers = await session.mcp.address.ask(ListMcpServers())
    return {
        "type": "system",
        "subtype": "init",
        "cwd": options.session.project_root,
        "tools": list(offered),
        "mcp_servers": [{"name": s.name, "status": mcp_status(s.state)} for s in servers],
        "model": context.model,
        "permissionMode": mode,
        "slash_commands": ["compact", "undo", "context", "rewind", "export"],
        "apiKeySource": "none",
        "claude_code_version": CLAUDE_CODE_PROTOCOL,
        "output_style": "default",
        "agents": [],
        "skills": [],
        "plugins": [],
        "version": __version__,
        "protocol_version": PROTOCOL_VERSION,
        "unsupported_options": list(options.unsupported),
    }


def mcp_status(state: str) -> str:
    """Legato's state of an MCP server in the SDK's words."""
    return {
        "ready": "connected",
        "connecting": "pending",
        "failed": "failed",
        "unapproved": "disabled",
    }.get(state, state)
