"""The executor's part of ``/undo``: what a batch will change, the files as they are before it,
and putting them back. The conductor keeps the checkpoints (``actors/conductor/checkpoints.py``);
only the executor opens the files, through the door.

What a call changes is the tool's own declaration: a ``Tool.access`` that ``writes`` names the
file, and a ``Tool.command`` is a shell command, which may change anything: the project is
recorded before its batch and compared after it (``snapshots.py``).

A file larger than ``snapshots.MAX_COPY``, or past the room the prompt has left, is named, not
copied: ``/undo`` says it could not put it back. Restoring goes through the door: nothing is
written where a path leads elsewhere than it did, and a command's entries only inside the
project.
"""

from __future__ import annotations

import contextlib
import os
import stat
from typing import TYPE_CHECKING, Any

from actors import door
from actors.errors import InvalidToolInput, ToolFailure
from actors.protocol import MCP_CALL, Changes, FileBefore, NotKept
from actors.tool_executor.schemas import decode
from actors.tool_executor.snapshots import MAX_COPY, TOO_LARGE, room_full
from actors.visible import one_line

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
            commands.append(f"{call.name}{MCP_CALL}")
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


def capture(
    paths: Iterable[str], root: str, room: int | None = None, order: int = 0
) -> tuple[tuple[FileBefore, ...], tuple[NotKept, ...]]:
    """What each file holds now (None: there is none), and those too large to copy; files no
    tool can change are left out."""
    found: list[FileBefore] = []
    missed: list[NotKept] = []
    for path in paths:
        try:
            target = door.locate(path, root)
            content = _content(target, MAX_COPY)
        except (OSError, ToolFailure):
            continue  # a folder, a system path, a file it may not read: the tool fails too
        if isinstance(content, _Large):
            missed.append(NotKept(path, TOO_LARGE))
            continue
        if room is not None and content is not None:
            if len(content) > room:
                missed.append(NotKept(path, room_full(room)))
                continue
            room -= len(content)
        found.append(FileBefore(path, content, target.real, order=order))
    return tuple(found), tuple(missed)


def restore(files: Iterable[FileBefore], root: str, folders: Iterable[str] = ()) -> list[str]:
    """Put each file back; a line for each one restored, removed or not restorable.

    Files that were not there are removed first (a command may have put a file where a folder
    was, or the other way round), then the others are written back; the lines keep the
    entries' order. Then the folders commands created are removed, deepest first, where empty.
    """
    files = list(files)
    lines: dict[int, str] = {}
    first = [i for i, before in enumerate(files) if before.content is None]
    then = [i for i, before in enumerate(files) if before.content is not None]
    real_root = os.path.realpath(root)
    for index in first + then:
        before = files[index]
        try:
            if before.by and not door.within(before.real or before.path, real_root):
                raise ToolFailure("it is outside the project")
            line = _restore(_target(before, root), before)
        except ToolFailure as failure:
            line = f"Could not restore {one_line(before.path)}: {failure.message.rstrip('.')}"
        except OSError as error:
            line = f"Could not restore {one_line(before.path)}: {error.strerror or error}"
        if line is not None:
            lines[index] = line
    for folder in sorted(folders, key=len, reverse=True):
        # Only an empty folder goes (one the person put something in since stays), and only
        # where its path still leads: a folder swapped for a symlink is left alone.
        with contextlib.suppress(OSError, ToolFailure):
            target = door.locate(folder, root)
            if target.real == folder != real_root and door.within(folder, real_root):
                door.remove_folder(target)
    return [lines[index] for index in sorted(lines)]


def _target(before: FileBefore, root: str) -> Target:
    """Where ``before`` is restored: where its path led when it was recorded, or nowhere."""
    if before.real is not None and os.path.islink(before.real):
        # The file itself became a symlink (a command replaced it with one): if the folder it
        # was in is still that folder, restoring replaces the link, and nothing is read or
        # written where it leads (~/.bashrc, /dev/zero).
        folder = os.path.dirname(before.real)
        if door.locate(folder, root).real == folder:
            return door.Target(before.path, before.real)
    target = door.locate(before.path, root)
    if before.real is None or target.real == before.real:
        return target
    # A folder on the way became a symlink since: writing would land somewhere else.
    raise ToolFailure(
        f"it now leads to {target.real}, not to {before.real} as it did before that "
        "prompt; nothing was written"
    )


def _restore(target: Target, before: FileBefore) -> str | None:
    # A name a command made may hold a newline: shown as it is, it would start a line of its
    # own ("Restored ~/.bashrc") that says something /undo did not do.
    shown = one_line(before.path)
    by = f" by {_short(before.by)}" if before.by else ""
    if before.content is None:
        if not os.path.lexists(target.real):
            return None
        door.remove(target)
        return f"Removed {shown} ({'created' + by if by else 'the prompt created it'})"
    there = os.path.lexists(target.real)
    if os.path.islink(target.real):
        door.remove(target)  # the link itself, in the checked folder it is in
    elif _same(target, before.content):
        return None  # unchanged (the tool was refused or failed): nothing to say
    door.write(target, before.content, mode=before.mode)
    return f"Restored {shown}" + (f" ({'changed' if there else 'deleted'}{by})" if by else "")


def _short(command: str) -> str:
    lines = command.strip().splitlines()
    line = lines[0] if lines else command
    return f"`{line[:60]}`" + ("…" if len(line) > 60 or len(lines) > 1 else "")


def _same(target: Target, content: bytes) -> bool:
    """Whether the file holds ``content`` now (False when it is missing or no file)."""
    try:
        now = _content(target, len(content))
    except (FileNotFoundError, ToolFailure):
        return False
    return now == content


class _Large:
    """A file larger than was asked for: it differs from any content of the asked size."""


_TOO_LARGE = _Large()


def _content(target: Target, limit: int) -> bytes | _Large | None:
    """The file's bytes, None if there is none, ``_TOO_LARGE`` past ``limit`` (not read); a
    ToolFailure if it is no file now."""
    try:
        file = door.open_read(target)
    except FileNotFoundError:
        return None
    with file:
        st = os.fstat(file.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise ToolFailure("it is not a regular file now (a folder, a device or a pipe)")
        if st.st_size > limit:
            return _TOO_LARGE
        content = file.read(limit + 1)
        return _TOO_LARGE if len(content) > limit else content
