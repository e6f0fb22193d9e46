"""The hook runner: the user's hook commands, run at a session's events in Claude Code's format.

Hooks come from the settings files (the memory store reads them into ``ProjectContext.hooks``).
For an event, the runner picks the groups whose matcher matches, runs their commands side by
side (each in its own process group, with the event's JSON on stdin, a timeout and bounded
output), and reads what they decided the way Claude Code does: exit 2 blocks, other failures are
reported and ignored, a JSON object on stdout decides in detail. What the decision does (refuse a
tool call, continue a turn...) is the asker's business: the runner only answers it.

Agent SDK callback hooks (the SDK's ``hooks`` option, given as ``Overrides.hooks``) are hooks
like the others: the runner asks the frontend to run them (``invoke``) instead of the shell, and
reads their answer as a command's JSON stdout (callback.py).
"""

from __future__ import annotations

from actors.hooks.actor import HookRunner
from actors.hooks.callback import Invoke

__all__ = ["HookRunner", "Invoke"]
