"""``/export``: the conversation as Markdown, and the file it is saved to.

The Markdown holds the prompts and the answers, each tool call on one line with its result cut
short, images and documents by name, and the person's ``!`` commands with their output.
Everything in it came from the model, a tool or a command, so every terminal control character
is shown as an escape (``actors.visible``): a file that is later ``cat`` to a terminal must not
set its title or write the clipboard.

The file is the person's choice, taken from the project root. What a cloned repository may have
put on the way is not followed out: a name inside the project that leads outside it (a symlink,
or a folder that is one) is refused, as are Legato's own folders, the reference's (``.claude``)
and ``.git`` (their files change the rules or run programs), folders, FIFOs and devices. An
existing file is replaced only when the person says so, and whole or not at all
(``actors.door``).
"""

from __future__ import annotations

import json
import os
import stat
from typing import TYPE_CHECKING

from actors import door
from actors.errors import LegatoError, ToolFailure, UsageError
from actors.places import legato_folders, within
from actors.protocol import COMPACTED_HEADER, LEDGER_START, PERSON_COMMAND_NOTE
from actors.visible import escape_controls

if TYPE_CHECKING:
    from actors.protocol import Block, Message

# A tool result's first line is cut at this many characters.
RESULT_WIDTH = 100
# The input fields that say what a call works on, most telling first.
_TARGET_KEYS = (
    "command", "file_path", "notebook_path", "path", "pattern", "url", "query", "task_id",
    "description", "prompt",
)  # fmt: skip


def conversation_markdown(messages: list[Message], *, title: str) -> str:
    """The conversation as Markdown, headed by ``title``."""
    results = _results(messages)
    out = [f"# {_one_line(title)}", ""]
    heading = ""
    for message in messages:
        if message.role == "user":
            part = _user(message.content)
        else:
            part = _assistant(message.content, results)
        if part and part[0] == heading:
            # A turn's answer comes in several messages (text, calls, text after their
            # results, which are a user message of their own): one heading for the turn.
            part = part[2:]
        elif part:
            heading = part[0]
        out += part
    return "\n".join(out).rstrip("\n") + "\n"


def _results(messages: list[Message]) -> dict[str, Block]:
    found: dict[str, Block] = {}
    for message in messages:
        for block in message.content:
            if block.get("type") == "tool_result" and isinstance(block.get("tool_use_id"), str):
                found[block["tool_use_id"]] = block
    return found


def _user(content: list[Block]) -> list[str]:
    parts: list[str] = []
    for block in content:
        kind = block.get("type")
        if kind == "text":
            parts += _user_text(str(block.get("text", "")))
        elif kind in ("image", "document"):
            parts += [_media(block), ""]
    return ["## You", "", *parts] if parts else []


_INPUT, _BETWEEN, _END = "<bash-input>", "</bash-input>\n<bash-output>\n", "\n</bash-output>"


def command_note(command: str, output: str) -> str:
    """What the conversation keeps of a person's ``!cmd``: for the model, and for /export."""
    return (
        f"{PERSON_COMMAND_NOTE} (with '!'), for context; it is not a request:\n"
        f"{_INPUT}{command}{_BETWEEN}{output}{_END}"
    )


def read_command_note(text: str) -> tuple[str, str] | None:
    """The command and output of a ``command_note``; None for any other text. The command
    ends where the output's tag first follows it, the output at the note's end: either may
    hold the other's tags."""
    if not text.startswith(PERSON_COMMAND_NOTE) or not text.endswith(_END):
        return None
    _, found, rest = text.partition(_INPUT)
    command, between, output = rest.partition(_BETWEEN)
    if not (found and between):
        return None
    return command, output.removesuffix(_END)


def person_command(text: str) -> str | None:
    """The command of a ``!cmd`` note; None for any other text."""
    read = read_command_note(text)
    return None if read is None else read[0]


def _user_text(text: str) -> list[str]:
    if (note := read_command_note(text)) is not None:
        return [*_command_note(*note), ""]
    if text.startswith((COMPACTED_HEADER, LEDGER_START, "(Note:")):
        return [f"> {line}" if line else ">" for line in _safe(text).splitlines()] + [""]
    return [_safe(text), ""]


def _command_note(command: str, output: str) -> list[str]:
    """A person's ``!cmd`` note as the command and its output in a fence."""
    output = output.strip("\n")
    fence = _fence(output)
    return [f"`! {_one_line(command)}`", "", fence, _safe(output), fence]


def _assistant(content: list[Block], results: dict[str, Block]) -> list[str]:
    parts: list[str] = []
    for block in content:
        kind = block.get("type")
        if kind == "text" and block.get("text"):
            parts += [_safe(str(block["text"])), ""]
        elif kind in ("tool_use", "server_tool_use"):
            parts.append(_call_line(block, results.get(str(block.get("id")))))
        elif kind == "web_search_tool_result":
            parts.append("  - ⎿ search results")
    if parts and parts[-1] != "":
        parts.append("")
    return ["## Legato", "", *parts] if parts else []


def _call_line(block: Block, result: Block | None) -> str:
    name = _one_line(str(block.get("name", "tool")))
    arguments = block.get("input")
    target = _target(arguments if isinstance(arguments, dict) else {})
    line = f"- **{name}**({target})" if target else f"- **{name}**"
    if result is None:
        return line
    mark = "✗" if result.get("is_error") else "→"
    return f"{line} {mark} {_result_text(result)}"


def _target(arguments: dict[str, object]) -> str:
    for key in _TARGET_KEYS:
        value = arguments.get(key)
        if isinstance(value, str) and value.strip():
            return f"`{_cut(_one_line(value), RESULT_WIDTH).replace('`', 'ˋ')}`"
    if not arguments:
        return ""
    shown = json.dumps(arguments, ensure_ascii=False, default=str)
    return f"`{_cut(_one_line(shown), RESULT_WIDTH).replace('`', 'ˋ')}`"


def _result_text(result: Block) -> str:
    content = result.get("content")
    texts: list[str] = []
    media: list[str] = []
    if isinstance(content, str):
        texts.append(content)
    elif isinstance(content, list):
        for part in content:
            if not isinstance(part, dict):
                continue
            if part.get("type") == "text":
                texts.append(str(part.get("text", "")))
            elif part.get("type") in ("image", "document"):
                media.append(_media(part))
    text = "\n".join(texts).strip()
    lines = text.splitlines()
    shown = _cut(_one_line(lines[0]), RESULT_WIDTH) if lines else "(no output)"
    if len(lines) > 1:
        shown += f" (+{len(lines) - 1} more lines)"
    return " ".join([shown, *media])


def _media(block: Block) -> str:
    source = block.get("source")
    media_type = source.get("media_type") if isinstance(source, dict) else None
    title = block.get("title")
    if block.get("type") == "image":
        return f"[image: {_one_line(str(media_type or 'image'))}]"
    name = title if isinstance(title, str) and title else media_type or "document"
    return f"[document: {_one_line(str(name))}]"


def _fence(text: str) -> str:
    """A code fence longer than any run of backticks in ``text``."""
    longest = run = 0
    for char in text:
        run = run + 1 if char == "`" else 0
        longest = max(longest, run)
    return "`" * max(3, longest + 1)


def _safe(text: str) -> str:
    return escape_controls(text)


def _one_line(text: str) -> str:
    return escape_controls(text, newlines=True)


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"


# ── the file ────────────────────────────────────────────────────────────────────────────────


def export_target(name: str, root: str, home: str) -> tuple[door.Target, bool]:
    """The file ``/export name`` writes, checked, and whether it exists now (the person is
    asked before it is replaced). Raises UsageError saying why a name is refused."""
    name = _unquoted(name.strip())
    if not name:
        raise UsageError("/export needs a file name", remedy="Type /export conversation.md")
    try:
        target = door.locate(name, root)
    except ToolFailure as error:
        raise UsageError(
            f"{name} cannot be exported to: {error.message}", remedy="Export to another name"
        ) from None
    shown, real = target.shown, target.real
    real_root = os.path.realpath(root)
    if within(shown, root) and not within(real, real_root):
        raise UsageError(
            f"{shown} leads to {real}, outside the project, through a symlink; nothing was written",
            remedy="Export to a file of the project itself, or name a place outside it plainly",
        )
    # The reference's folders too: Legato reads their settings, commands, skills and agents as
    # its own, and a conversation saved as .claude/commands/x.md would become a command.
    theirs = os.path.realpath(os.path.join(home, ".claude"))
    for path in dict.fromkeys((shown, real)):
        own = next((f for f in (*legato_folders(home), theirs) if within(path, f)), None)
        parts = os.path.relpath(path, real_root).split(os.sep) if within(path, real_root) else []
        if own is not None or {".git", ".legato", ".claude"} & set(parts):
            raise UsageError(
                f"{shown} is in {own or 'a folder whose files change the rules or run programs'}"
                "; Legato does not export there",
                remedy="Export to another folder",
            )
    try:
        st = os.stat(real)
    except FileNotFoundError:
        return target, False
    except OSError as error:
        raise UsageError(
            f"{shown} cannot be exported to: {error.strerror}", remedy="Export to another name"
        ) from None
    if stat.S_ISDIR(st.st_mode):
        raise UsageError(
            f"{shown} is a folder", remedy=f"Name a file in it: /export {name}/chat.md"
        )
    if not stat.S_ISREG(st.st_mode):
        raise UsageError(
            f"{shown} is not a regular file (a FIFO, a socket or a device)",
            remedy="Export to another name",
        )
    return target, True


def _unquoted(name: str) -> str:
    """``name`` without the one pair of quotes around it, as a shell would read it: a name
    with spaces is often typed quoted, and a file named with its quotes is never what was
    meant."""
    if len(name) >= 2 and name[0] == name[-1] and name[0] in "\"'":
        return name[1:-1].strip()
    return name


def write_export(target: door.Target, text: str) -> None:
    """Write the export whole or not at all. Raises LegatoError naming the file."""
    try:
        door.write(target, text.encode())
    except ToolFailure as error:  # swapped for a link since it was checked
        raise LegatoError(error.message, remedy=error.remedy) from None
    except OSError as error:
        raise LegatoError(
            f"{target.shown} was not written: {error.strerror}",
            remedy="Check the folder's permissions (ls -ld), or export elsewhere",
        ) from None
