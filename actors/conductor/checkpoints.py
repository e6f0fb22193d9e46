"""Checkpoints: files as they were before a prompt's tools changed them, and ``/undo``.

Before a tool batch runs, the conductor reads every file its Write and Edit calls will touch
(the first time the prompt touches it) and saves that as a checkpoint; ``/undo`` writes those
contents back, all at once, and removes files the prompt created. Shell commands can change
anything, so they are listed instead, and ``/undo`` says that their changes stay.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import anyio.to_thread

from actors.atomic import write_atomically
from actors.protocol import Checkpoint, FileBefore

if TYPE_CHECKING:
    from actors.protocol import ToolCall

FILE_TOOLS = frozenset({"Write", "Edit"})  # tools whose input names the one file they change
SHELL_TOOLS = frozenset({"Bash"})


def touched_paths(calls: tuple[ToolCall, ...], project_root: str) -> list[str]:
    """The absolute paths the batch's file tools will change, in call order."""
    paths: list[str] = []
    for call in calls:
        path = call.input.get("file_path") if call.name in FILE_TOOLS else None
        if isinstance(path, str) and path:
            paths.append(os.path.normpath(os.path.join(project_root, path)))
    return list(dict.fromkeys(paths))


def shell_commands(calls: tuple[ToolCall, ...]) -> list[str]:
    return [
        str(call.input.get("command", ""))
        for call in calls
        if call.name in SHELL_TOOLS and call.input.get("command")
    ]


async def capture(prompt: int, paths: list[str], commands: list[str]) -> Checkpoint | None:
    """What ``paths`` hold now (None for a file that does not exist), or None if nothing to
    record."""
    if not paths and not commands:
        return None
    files = await anyio.to_thread.run_sync(_read_all, paths)
    return Checkpoint(prompt=prompt, files=tuple(files), commands=tuple(commands))


def merge(checkpoints: list[Checkpoint]) -> Checkpoint:
    """One prompt's checkpoints as one: each file's earliest content, every command."""
    first: dict[str, FileBefore] = {}
    commands: list[str] = []
    for checkpoint in checkpoints:
        for before in checkpoint.files:
            first.setdefault(before.path, before)
        commands.extend(checkpoint.commands)
    return Checkpoint(
        prompt=checkpoints[0].prompt, files=tuple(first.values()), commands=tuple(commands)
    )


async def restore(checkpoint: Checkpoint) -> str:
    """Put the files back; returns what was done, in words for the user."""
    lines = await anyio.to_thread.run_sync(_restore_all, checkpoint.files)
    if not lines and checkpoint.files:
        lines.append("The files that prompt's tools were to change are as they were before it.")
    if checkpoint.commands:
        listed = "; ".join(_short(c) for c in checkpoint.commands[:5])
        more = f" and {len(checkpoint.commands) - 5} more" if len(checkpoint.commands) > 5 else ""
        lines.append(
            f"Not undone: shell commands ran in that prompt ({listed}{more}); /undo does not "
            "cover what they changed."
        )
    return "\n".join(lines)


def _read_all(paths: list[str]) -> list[FileBefore]:
    found: list[FileBefore] = []
    for path in paths:
        try:
            with open(path, "rb") as file:
                found.append(FileBefore(path, file.read()))
        except FileNotFoundError:
            found.append(FileBefore(path, None))
        except (IsADirectoryError, PermissionError):
            continue  # the tool will fail on it too: nothing it can change to undo
    return found


def _restore_all(files: tuple[FileBefore, ...]) -> list[str]:
    lines: list[str] = []
    for before in files:
        try:
            if before.content is None:
                if os.path.exists(before.path):
                    os.remove(before.path)
                    lines.append(f"Removed {before.path} (the prompt created it)")
                continue
            if _content(before.path) == before.content:
                continue  # unchanged (the tool was refused or failed): nothing to say
            write_atomically(before.path, before.content)
            lines.append(f"Restored {before.path}")
        except OSError as error:
            lines.append(f"Could not restore {before.path}: {error.strerror or error}")
    return lines


def _content(path: str) -> bytes | None:
    try:
        with open(path, "rb") as file:
            return file.read()
    except FileNotFoundError:
        return None


def _short(command: str) -> str:
    line = command.strip().splitlines()[0] if command.strip() else command
    return f"`{line[:60]}`" + ("…" if len(line) > 60 else "")
