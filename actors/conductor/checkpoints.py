"""Checkpoints: files as they were before a prompt's tools changed them, and ``/undo``.

Before tool calls run (one, or a group that came together), the conductor asks the tool
executor what they will change (each tool declares the file it writes, or the command it runs)
and for the current contents of each file the prompt has not touched yet, and saves that as a
checkpoint. A shell command can change any file: before its batch the executor records the
project, and once the batch is done (``SessionKeeper.after_tools``) it says what the commands
created, deleted and modified, with the content before, and that is saved as a checkpoint too.
``/undo`` has the executor write those contents back, all at once, and remove the files (and
then empty folders) the prompt created. The executor does the reading and writing: it is the
one door to project files.

The content saved is bounded: ``PROMPT_ROOM`` bytes for one prompt and ``SESSION_ROOM`` for
the session, on top of the executor's own bounds (a file's size, text only for what commands
change). A file past them is named, and ``/undo`` says it could not put it back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from actors.protocol import MCP_CALL, Checkpoint, FileBefore, NotKept, RestoreCheckpoint
from actors.visible import one_line

if TYPE_CHECKING:
    from actors.protocol import ToolExecutorMsg
    from runtime import Address

PROMPT_ROOM = 64 * 2**20
SESSION_ROOM = 512 * 2**20


def held(checkpoint: Checkpoint) -> int:
    """The bytes of file content ``checkpoint`` saves."""
    return sum(len(f.content) for f in checkpoint.files if f.content is not None)


def merge(checkpoints: list[Checkpoint]) -> Checkpoint:
    """One prompt's checkpoints as one: each file's earliest content, every command.

    The earliest is the entry read first (``FileBefore.order``), whatever order the entries
    were saved in: a command's batch is compared after it ran, and a Write of the same file
    may have been recorded meanwhile.
    """
    first: dict[str, tuple[tuple[int, int], FileBefore]] = {}
    commands: list[str] = []
    missed: dict[str, NotKept] = {}
    folders: dict[str, None] = {}
    notes: dict[str, None] = {}
    for checkpoint in checkpoints:
        for before in checkpoint.files:
            rank = (checkpoint.prompt, before.order)
            if before.path not in first or rank < first[before.path][0]:
                first[before.path] = (rank, before)
        commands.extend(checkpoint.commands)
        for named in checkpoint.missed:
            missed.setdefault(named.path, named)
        folders.update(dict.fromkeys(checkpoint.folders))
        notes.update(dict.fromkeys(checkpoint.notes))
    return Checkpoint(
        prompt=checkpoints[0].prompt,
        files=tuple(before for _, before in first.values()),
        commands=tuple(commands),
        # A file kept by one entry is restored: it is named only where none holds it.
        missed=tuple(named for path, named in missed.items() if path not in first),
        folders=tuple(folders),
        notes=tuple(notes),
    )


async def restore(tools: Address[ToolExecutorMsg], checkpoint: Checkpoint) -> str:
    """Put the files back; returns what was done, in words for the user."""
    done = await tools.ask(RestoreCheckpoint(files=checkpoint.files, folders=checkpoint.folders))
    lines = list(done)
    if not lines and checkpoint.files:
        lines.append("The files that prompt's tools were to change are as they were before it.")
    lines.extend(unrestored(checkpoint))
    mcp = [c for c in checkpoint.commands if c.startswith("mcp__") and c.endswith(MCP_CALL)]
    shell = [c for c in checkpoint.commands if c not in mcp]
    if shell:
        lines.append(
            f"Shell commands ran in that prompt ({_listed(shell)}): what they changed among the "
            "project's files is put back where the checkpoint saw it; what they changed outside "
            "the project, in .git or in ignored folders such as node_modules stays."
        )
    if mcp:
        lines.append(
            f"Not undone: MCP tools ran in that prompt ({_listed(mcp)}); /undo does not cover "
            "what they changed."
        )
    return "\n".join(lines)


def unrestored(checkpoint: Checkpoint) -> list[str]:
    """What ``checkpoint`` could not keep, in words: files named, not copied, and why what
    commands changed was not recorded (a project past the walk's cap, a command still
    running)."""
    lines: list[str] = []
    for named in checkpoint.missed:
        by = f" (changed by {_short(named.by)})" if named.by else ""
        lines.append(
            f"Could not restore {one_line(named.path)}{by}: {named.why}, so no copy was kept."
        )
    return [*lines, *checkpoint.notes]


def _listed(commands: list[str]) -> str:
    listed = "; ".join(_short(c) for c in commands[:5])
    return listed + (f" and {len(commands) - 5} more" if len(commands) > 5 else "")


def _short(command: str) -> str:
    line = command.strip().splitlines()[0] if command.strip() else command
    return f"`{line[:60]}`" + ("…" if len(line) > 60 else "")
