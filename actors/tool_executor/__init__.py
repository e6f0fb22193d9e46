"""The tool executor: runs the model's tool calls (Read, Write, Edit, Bash, Glob, Grep).

Calls of one turn run side by side, in the model's order where they touch the same file; each
asks the permission broker first; files change only by atomic replacement; shell commands run
in their own process group, which ends with the call.
"""

from __future__ import annotations

from actors.tool_executor.actor import ToolExecutor

__all__ = ["ToolExecutor"]
