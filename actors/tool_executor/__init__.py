"""The tool executor: runs the model's tool calls (Read, Write, Edit, Bash, Glob, Grep,
TaskOutput, TaskStop).

Calls of one turn run side by side, in the model's order where they touch the same file; each
asks the permission broker first; files change only by atomic replacement; shell commands run
in their own process group, which ends with the call, or, for a command the model runs in the
background (TaskOutput reads it, TaskStop stops it), with the session at the latest.

``read_own`` is the same door for the files Legato reads for itself (guide, memory, skills,
settings, its records): the memory store and the skill library open them through it.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from actors.tool_executor.own_files import (
    GUIDE_CAP,
    LIBRARY_CAP,
    SETTINGS_CAP,
    OwnFile,
    Refused,
    read_own,
    user_folders,
)

if TYPE_CHECKING:
    from actors.tool_executor.actor import ToolExecutor

__all__ = [
    "GUIDE_CAP",
    "LIBRARY_CAP",
    "SETTINGS_CAP",
    "OwnFile",
    "Refused",
    "ToolExecutor",
    "read_own",
    "user_folders",
]


def __getattr__(name: str) -> Any:
    # The actor loads when something asks for it: the memory store and the skill library,
    # which read Legato's own files through ``read_own``, start without it.
    if name == "ToolExecutor":
        from actors.tool_executor.actor import ToolExecutor

        return ToolExecutor
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
