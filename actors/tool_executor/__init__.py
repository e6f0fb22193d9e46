"""The tool executor: runs the model's tool calls (Read, Write, Edit, Bash, Glob, Grep,
TaskOutput, TaskStop).

Calls of one turn run side by side, in the model's order where they touch the same file; each
asks the permission broker first; files change only by atomic replacement; shell commands run
in their own process group, which ends with the call, or, for a command the model runs in the
background (TaskOutput reads it, TaskStop stops it), with the session at the latest.

The door it opens project files through (``actors/door.py``) is shared: ``read_own``
(``actors/own_files.py``) is the same door for the files Legato reads for itself (guide,
memory, skills, settings, its records), which the memory store and the skill library use.
"""

from __future__ import annotations

from actors.tool_executor.actor import ToolExecutor

__all__ = ["ToolExecutor"]
