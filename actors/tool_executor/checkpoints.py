"""The executor's part of ``/undo``: what a batch will change, the files as they are before it,
and putting them back. The conductor keeps the checkpoints (``actors/conductor/checkpoints.py``);
only the executor opens the files, through the door.

What a call changes is the tool's own declaration: a ``Tool.access`` that ``writes`` names the
file, and a ``Tool.command`` is a shell command, which may change anything and so is listed.
"""

from __future__ import annotations

import os
import stat
from typing import TYPE_CHECKING, Any

from actors import door
from actors.errors import InvalidToolInput, ToolFailure
from actors.protocol import Changes, FileBefore
from actors.tool_executor.schemas import decode

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

    from actors.door import Target
    from actors.protocol import ToolCall
    from actors.tool_executor.context import Tool


def changes(tools: Mapping[str, Tool[Any]], calls: Iterable[ToolCall], root: str) -> Changes:
    """The files ``calls`` will write and the commands they will run, in call order."""
    paths: list[str] = []
    commands: list[str] = []
    for call in calls:
        tool = tools.get(call.name)
        if tool is None and call.name.startswith("mcp__"):
            # What an MCP tool changes is the server's to know: /undo names it, as a command.
            commands.append(f"{call.name} (an MCP tool)")
            continue
        if tool is None or tool.read_only:
            continue
        try:
            args = decode(tool.name, call.input, tool.input_type)
            access = tool.access(args, root)
            if access is not None and access.writes:
                door.check_name(access.path)
                paths.append(access.path)
        except InvalidToolInput:
            continue  # the call will fail before it changes anything
        command = tool.command(args) if tool.command is not None else ""
        if command:
            commands.append(command)
    return Changes(paths=tuple(dict.fromkeys(paths)), commands=tuple(commands))


def capture(paths: Iterable[str], root: str) -> tuple[FileBefore, ...]:
    """What each file holds now (None: there is none); files no tool can change are left out."""
    found: list[FileBefore] = []
    for path in paths:
        try:
            target = door.locate(path, root)
            content = _content(target)
        except (OSError, ToolFailure):
            continue  # a folder, a system path, a file it may not read: the tool fails too
        found.append(FileBefore(path, content, target.real))
    return tuple(found)


def restore(files: Iterable[FileBefore], root: str) -> list[str]:
    """Put each file back; a line for each one restored, removed or not restorable."""
    lines: list[str] = []
    for before in files:
        try:
            line = _restore(door.locate(before.path, root), before)
        except ToolFailure as failure:
            line = f"Could not restore {before.path}: {failure.message.rstrip('.')}"
        except OSError as error:
            line = f"Could not restore {before.path}: {error.strerror or error}"
        if line is not None:
            lines.append(line)
    return lines


def _restore(target: Target, before: FileBefore) -> str | None:
    if before.real is not None and target.real != before.real:
        # A folder on the way became a symlink since: writing would land somewhere else.
        raise ToolFailure(
            f"it now leads to {target.real}, not to {before.real} as it did before that "
            "prompt; nothing was written"
        )
    now = _content(target)
    if before.content is None:
        if now is None and not os.path.lexists(target.real):
            return None
        door.remove(target)
        return f"Removed {before.path} (the prompt created it)"
    if now == before.content:
        return None  # unchanged (the tool was refused or failed): nothing to say
    door.write(target, before.content)
    return f"Restored {before.path}"


def _content(target: Target) -> bytes | None:
    """The file's bytes, None if there is none; a ToolFailure if it is no file now."""
    try:
        file = door.open_read(target)
    except FileNotFoundError:
        return None
    with file:
        if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
            raise ToolFailure("it is not a regular file now (a folder, a device or a pipe)")
        return file.read()
