"""The control requests a driving program makes of Legato (``--input-format stream-json``), and
the user messages it sends, read defensively: every field is checked, and what cannot be done is
answered with an error response that says why, never a crash.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Protocol

from actors.errors import LegatoError
from actors.models import MODELS, resolve_model
from actors.permission_modes import SDK_MODES, from_sdk
from actors.protocol import (
    GetContext,
    GetContextFill,
    ListMcpServers,
    ListMcpTools,
    Rewind,
    SetMode,
    SetModel,
)
from frontends.headless.sdk_session import mcp_status

if TYPE_CHECKING:
    from actors.protocol import Block
    from frontends.headless.sdk_session import SdkSession

SUPPORTED = (
    "initialize",
    "interrupt",
    "set_permission_mode",
    "set_model",
    "get_context_usage",
    "mcp_status",
    "rewind_files",
)


class Stream(Protocol):
    """What the requests need of the running stream session."""

    mode: str
    model: str | None  # set_model's choice, for the prompts that run after it

    def interrupt(self) -> bool: ...

    async def answer_control(self, request_id: str, response: dict[str, Any]) -> None: ...

    async def refuse_control(self, request_id: str, error: str) -> None: ...


class Refused(Exception):
    """A request that cannot be done; its message is the error response."""


class Requests:
    def __init__(self, sdk: SdkSession, stream: Stream) -> None:
        self.sdk = sdk
        self.session = sdk.session
        self.stream = stream
        self.model: str | None = None  # set by set_model; None: the session's start-up model

    async def answer(self, request_id: str, response: dict[str, Any]) -> None:
        await self.stream.answer_control(request_id, response)

    async def handle(self, message: dict[str, Any]) -> None:
        request_id = message.get("request_id")
        body = message.get("request")
        if not isinstance(request_id, str) or not isinstance(body, dict):
            await self.stream.refuse_control(
                str(request_id), "a control_request needs a string request_id and a request object"
            )
            return
        try:
            response = await self._do(body)
        except Refused as refused:
            await self.stream.refuse_control(request_id, str(refused))
        except LegatoError as error:
            await self.stream.refuse_control(request_id, error.describe())
        else:
            await self.stream.answer_control(request_id, response)

    async def _do(self, body: dict[str, Any]) -> dict[str, Any]:
        subtype = body.get("subtype")
        if subtype == "initialize":
            # Hooks and agents are taken only from the first message, before the session starts.
            raise Refused("already initialized: initialize must be the first message on stdin")
        if subtype == "interrupt":
            self.stream.interrupt()
            return {}
        if subtype == "set_permission_mode":
            return await self._set_mode(body.get("mode"))
        if subtype == "set_model":
            model = body.get("model")
            if model is not None and not isinstance(model, str):
                raise Refused(f"set_model: 'model' must be a string or null, not {model!r}")
            chosen = await self.session.conductor.address.ask(SetModel(model=model or "sonnet"))
            self.model = self.stream.model = chosen
            return {"model": chosen}
        if subtype == "get_context_usage":
            return await self.context_usage()
        if subtype == "mcp_status":
            return {"mcpServers": await self.mcp_servers()}
        if subtype == "rewind_files":
            return await self._rewind_files(body.get("user_message_id"))
        raise Refused(
            f"Legato does not support the control request {str(subtype)[:60]!r}; it supports "
            + ", ".join(SUPPORTED)
        )

    async def _set_mode(self, name: Any) -> dict[str, Any]:
        if not isinstance(name, str) or name not in SDK_MODES:
            raise Refused(
                f"set_permission_mode: unknown mode {str(name)[:40]!r}; use one of "
                + ", ".join(SDK_MODES)
            )
        await self.session.permissions.address.ask(SetMode(mode=from_sdk(name)))
        self.stream.mode = name
        return {"mode": name}

    async def _rewind_files(self, message_id: Any) -> dict[str, Any]:
        """The files back to just before the prompt of that user message (its uuid, as
        ``--replay-user-messages`` echoed it), as ``/rewind`` restores code."""
        if not isinstance(message_id, str) or not message_id:
            raise Refused(
                "rewind_files: 'user_message_id' must be the uuid of a user message, as "
                "--replay-user-messages echoes it"
            )
        rewind = Rewind(message_id=message_id, restore="code")
        report = await self.session.conductor.address.ask(rewind)
        return {"canRewind": True, "filesChanged": list(report.files), "message": report.text}

    def initialize(self, sdk: SdkSession) -> dict[str, Any]:
        """The answer to the SDK's ``initialize``: what the session offers. Nothing in it needs
        a running actor, so it goes out before they start: the SDK's connect does not wait for
        them (the init line, after, has the effective model)."""
        return {
            "commands": [
                {"name": "compact", "description": "Summarise the older turns", "argumentHint": ""},
                {
                    "name": "undo",
                    "description": "Put back the latest prompt's files",
                    "argumentHint": "",
                },
            ],
            "output_style": "default",
            "available_output_styles": ["default"],
            "models": [
                {"value": m.alias or m.id, "displayName": m.id, "description": ""} for m in MODELS
            ],
            "account": {},
            "pid": os.getpid(),
            "hook_on_failure_supported": True,
            "hooks_applied": True,
            "problems": list(sdk.init_problems),
        }

    async def context_usage(self) -> dict[str, Any]:
        fill = await self.session.conductor.address.ask(GetContextFill())
        context = await self.session.memory.address.ask(GetContext())
        model = resolve_model(self.model or context.model)
        from frontends.context_report import PARTS, window_parts

        # The parts /context shows, each with the colour of its cells there.
        parts = window_parts(context, fill).rows
        return {
            "categories": [
                {"name": row.label, "tokens": row.tokens, "color": PARTS[row.label][0]}
                for row in parts
                if row.tokens
            ],
            "totalTokens": fill.tokens,
            "maxTokens": fill.window,
            "rawMaxTokens": model.context_window,
            "percentage": round(100 * fill.tokens / fill.window, 2) if fill.window else 0.0,
            "model": model.id,
            "isAutoCompactEnabled": True,
            # The instruction files, with the reference's names for their levels.
            "memoryFiles": [
                {"path": guide.path, "type": guide.level.capitalize(), "tokens": guide.tokens}
                for guide in context.guides
            ],
            "mcpTools": [],
            "agents": [],
            "gridRows": [],
        }

    async def mcp_servers(self) -> list[dict[str, Any]]:
        servers = await self.session.mcp.address.ask(ListMcpServers())
        listing = await self.session.mcp.address.ask(ListMcpTools())
        listed = []
        for server in servers:
            entry: dict[str, Any] = {
                "name": server.name,
                "status": mcp_status(server.state),
                "scope": server.source,
            }
            if server.error:
                entry["error"] = server.error
            prefix = f"mcp__{server.name}__"
            tools = [tool for tool in listing.tools if tool.server == server.name]
            if tools:
                entry["tools"] = [
                    {"name": tool.name.removeprefix(prefix), "description": tool.description}
                    for tool in tools
                ]
            listed.append(entry)
        return listed


def prompt_text(message: dict[str, Any]) -> tuple[str | None, tuple[Block, ...], list[str]]:
    """A ``user`` message's prompt: its text, its image and document blocks (checked, in
    order), and notes on what of it was left out; None (with the reason as the note) when it
    holds no prompt. A prompt of only an image is a prompt."""
    from frontends.headless.prompt_blocks import media_block

    inner = message.get("message")
    if not isinstance(inner, dict):
        return None, (), ["'message' must be an object with 'role' and 'content'"]
    content = inner.get("content")
    if isinstance(content, str):
        return (content, (), []) if content.strip() else (None, (), ["its content is empty"])
    if not isinstance(content, list):
        return None, (), ["'message.content' must be a string or a list of content blocks"]
    texts: list[str] = []
    blocks: list[Block] = []
    notes: list[str] = []
    for number, block in enumerate(content, 1):
        kind = block.get("type") if isinstance(block, dict) else type(block).__name__
        if isinstance(block, dict) and kind == "text":
            text = block.get("text")
            if isinstance(text, str):
                texts.append(text)
                continue
        if isinstance(block, dict) and kind in ("image", "document"):
            made, note = media_block(block, number)
            if made is not None:
                blocks.append(made)
            else:
                notes.append(note)
            continue
        notes.append(
            f"a {str(kind)[:30]!r} block in the prompt was left out: Legato takes text, "
            "image and document blocks"
        )
    if not texts and not blocks:
        return None, (), notes or ["its content has no text, image or document block"]
    return "\n\n".join(texts), tuple(blocks), notes
