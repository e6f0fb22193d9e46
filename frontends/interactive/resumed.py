"""What a resumed session shows first: a line saying which session it is and how big, then its
last exchanges (the prompts, the answers cut to a few lines, each tool call on one line), so
that ``--continue`` and ``--resume`` open on the conversation they go on with."""

from __future__ import annotations

import datetime
import json
import os
from typing import TYPE_CHECKING, Any

from rich.text import Text

from actors.protocol import COMPACTED_HEADER, DENIED_PREFIX, LEDGER_START
from actors.visible import escape_controls
from frontends.export import person_command

if TYPE_CHECKING:
    from actors.protocol import Block, Message, SavedSession

EXCHANGES = 3  # the prompts shown, with everything after each
ANSWER_LINES = 6  # an answer's lines shown; the rest is one "…" line
WIDTH = 80  # the view's width: one-line items are cut to it
# The fields that say best what a tool call was about, in the order they are looked for.
_TARGETS = (
    "file_path", "path", "command", "pattern", "url", "query", "description", "prompt",
    "task_id", "shell_id", "bash_id",
)  # fmt: skip
MCP_PREFIX = "mcp__"
ARGUMENTS = 60  # characters of an MCP call's arguments shown


def resumed_header(saved: SavedSession) -> Text:
    """``Resumed session 1a2b3c4d · started 2026-11-24 19:15 · 6 messages · 3,456 tokens``"""
    parts = [f"Resumed session {saved.session_id[:8]}"]
    if saved.started:
        parts.append(f"started {_local(saved.started)}")
    parts.append(f"{saved.added:,} {'message' if saved.added == 1 else 'messages'}")
    parts.append(f"{saved.tokens:,} tokens")
    return Text(" · ".join(parts), style="legato.accent")


def resumed_lines(messages: list[Message], *, root: str, exchanges: int = EXCHANGES) -> list[Text]:
    """The last ``exchanges`` prompts of the conversation and what followed each; paths in
    the project ``root`` are shown relative to it."""
    starts = [
        i
        for i, m in enumerate(messages)
        if _compacted(m) or _typed(m) is not None or _attached(m, {"image": 0, "document": 0})
    ]
    start = starts[-exchanges] if len(starts) >= exchanges else 0
    lines: list[Text] = []
    if start:
        lines.append(Text(f"… {start} earlier messages", style="legato.muted"))
    denied = _denied(messages)
    counts = {"image": 0, "document": 0}  # numbered as the prompt showed them: [Image #1]
    for message in messages[:start]:
        _attached(message, counts)
    for message in messages[start:]:
        if message.role == "user":
            if _compacted(message):
                lines.append(Text("(earlier turns compacted into a summary)", style="legato.muted"))
            prompt = _typed(message)
            attached = _attached(message, counts)  # never the base64 itself
            if prompt is not None or attached:
                said = " ".join(part for part in (prompt, *attached) if part)
                lines.append(_one_line(f"› {said}", "legato.accent"))
            continue
        for block in message.content:
            if block.get("type") == "text" and block.get("text", "").strip():
                lines.extend(_answer(block["text"]))
            elif block.get("type") == "tool_use":
                lines.append(_call(block, root, denied=block.get("id") in denied))
    return lines


def _attached(message: Message, counts: dict[str, int]) -> list[str]:
    """``[Image #1]`` and ``[PDF #1]`` for the images and documents a prompt carried."""
    if message.role != "user":
        return []
    names = []
    for block in message.content:
        kind = block.get("type")
        if kind in counts:
            counts[kind] += 1
            names.append(f"[{'Image' if kind == 'image' else 'PDF'} #{counts[kind]}]")
    return names


def _texts(message: Message) -> list[str]:
    if message.role != "user":
        return []
    return [str(b.get("text", "")) for b in message.content if b.get("type") == "text"]


def _compacted(message: Message) -> bool:
    texts = _texts(message)
    return bool(texts) and texts[0].startswith(COMPACTED_HEADER)


def _typed(message: Message) -> str | None:
    """What the user typed, its first line; None for a message without a prompt (tool
    results, notes the session added)."""
    ran = None  # the person's own ``!cmd``, as they typed it: shown when no prompt follows it
    for text in _texts(message):
        text = text.strip()
        if (command := person_command(text)) is not None:
            ran = ran or f"! {command}".split("\n", 1)[0]
            continue
        # The session's own text beside a prompt: a compaction's summary and ledger, and
        # notes in parentheses (/undo's, hooks' context, background news).
        ours = text.startswith((COMPACTED_HEADER, LEDGER_START)) or (
            text.startswith("(") and text.endswith(")")
        )
        if text and not ours:
            return text.split("\n", 1)[0]
    return ran


def _answer(text: str) -> list[Text]:
    lines = text.strip().split("\n")
    shown = [Text(escape_controls(line)) for line in lines[:ANSWER_LINES]]
    if len(lines) > ANSWER_LINES:
        shown.append(Text(f"  … {len(lines) - ANSWER_LINES} more lines", style="legato.muted"))
    return shown


def _denied(messages: list[Message]) -> set[str]:
    """The ids of the calls the permission broker refused: shown as denied, not as run."""
    return {
        str(block.get("tool_use_id"))
        for message in messages
        if message.role == "user"
        for block in message.content
        if block.get("type") == "tool_result"
        and block.get("is_error")
        and _text_of(block.get("content")).startswith(DENIED_PREFIX)
    }


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(str(b.get("text", "")) for b in content if isinstance(b, dict))
    return ""


def _call(block: Block, root: str, *, denied: bool = False) -> Text:
    arguments: dict[str, Any] = block.get("input") or {}
    name = str(block.get("name", "?"))
    if name.startswith(MCP_PREFIX):
        # The server and its tool once, as the live session showed them, and the arguments.
        server, _, tool = name.removeprefix(MCP_PREFIX).partition("__")
        shown = json.dumps(arguments, ensure_ascii=False, separators=(", ", ": "), default=repr)
        if len(shown) > ARGUMENTS:
            shown = shown[: ARGUMENTS - 1] + "…"
        call = f"{server}: {tool} {shown}" if tool else name
    else:
        target = next((str(arguments[k]) for k in _TARGETS if arguments.get(k)), "")
        target = target.strip().split("\n", 1)[0]
        if target.startswith(root.rstrip(os.sep) + os.sep):
            target = os.path.relpath(target, root)
        call = f"{name}({target})"
    if denied:
        return _one_line(f"✗ {call}  denied", "legato.bad")
    return _one_line(f"● {call}", "legato.muted")


def _one_line(text: str, style: str) -> Text:
    text = escape_controls(text, newlines=True)
    if len(text) > WIDTH:
        text = text[: WIDTH - 1] + "…"
    return Text(text, style=style)


def _local(started: str) -> str:
    try:
        moment = datetime.datetime.fromisoformat(started).astimezone()
    except ValueError:
        return started  # written by hand or by another release: shown as it is
    return moment.strftime("%Y-%m-%d %H:%M")
