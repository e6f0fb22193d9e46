"""Checkpoints: files as they were before a prompt's tools changed them, and ``/undo``.

Before tool calls run (one, or a group that came together), the conductor asks the tool
executor what they will change (each tool declares the file it writes, or the command it runs)
and for the current contents of each file the prompt has not touched yet, and saves that as a
checkpoint; ``/undo`` has the executor write those contents back, all at once, and remove files
the prompt created. The executor does the reading and writing: it is the one door to project
files. Shell commands can change anything, so they are listed instead, and ``/undo`` says that
their changes stay.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from actors.protocol import Checkpoint, FileBefore, RestoreCheckpoint

if TYPE_CHECKING:
    from actors.protocol import ToolExecutorMsg
    from runtime import Address


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


async def restore(tools: Address[ToolExecutorMsg], checkpoint: Checkpoint) -> str:
    """Put the files back; returns what was done, in words for the user."""
    done = await tools.ask(RestoreCheckpoint(files=checkpoint.files))
    lines = list(done)
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


def _short(command: str) -> str:
    line = command.strip().splitlines()[0] if command.strip() else command
    return f"`{line[:60]}`" + ("…" if len(line) > 60 else "")
