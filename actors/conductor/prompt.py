"""The system prompt: short on purpose, since every byte of it is sent with every request."""

from __future__ import annotations

import datetime
import platform
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from actors.protocol import GuideFile, ProjectContext

_CORE = """\
You are Legato, a coding assistant working in the user's project from their terminal.
Use the tools to read, search, edit files and run commands; make the change the user asks for, \
completely and correctly, then say briefly what you did.
- Paths are absolute. Read a file before editing it. Prefer Edit for changes to existing files.
- Independent tool calls go in one message: they run in parallel.
- If a tool call is denied, do not retry it the same way; say what you would have done.
- Be concise. No preamble."""


# Plan Mode: the broker refuses writes and commands; this tells the model why, so it
# investigates and proposes instead of trying tools that will be denied.
PLAN_MODE_NOTE = """\
Plan mode is on: you are planning, not changing anything. Only read and search; writing \
files and running commands are refused. Investigate, then present a concise, numbered plan of \
the changes you would make and stop. The user confirms the plan before anything is executed."""


def environment(context: ProjectContext) -> str:
    """Where the work happens: also the end of each subagent's system prompt."""
    return (
        f"Project root: {context.project_root}\n"
        f"Platform: {platform.system()}; date: {datetime.date.today().isoformat()}"
    )


def system_prompt(context: ProjectContext, *, headless: bool) -> str:
    """Legato's instructions, or the driving program's own (the SDK's ``system_prompt``), then
    where the work happens (tools take absolute paths: the model needs the root whatever the
    instructions), the instruction files and memory, and the program's ``append_system_prompt``."""
    core = _CORE if context.system_prompt is None else context.system_prompt
    parts = [core, environment(context)] if core.strip() else [environment(context)]
    if context.add_dirs:
        parts.append("Other folders you may work in: " + ", ".join(context.add_dirs))
    if headless and context.system_prompt is None:
        parts.append(
            "You run headless: nobody can answer questions. Finish the task without asking."
        )
    parts += project_context(context)
    if context.append_system_prompt:
        parts.append(context.append_system_prompt)
    return "\n\n".join(parts)


def agent_context(context: ProjectContext) -> str:
    """What follows each subagent's own system prompt: the same project context as the main
    conversation's (where, the instruction files, memory), none of its messages."""
    return "\n\n".join([environment(context), *project_context(context)])


# Said once, before the files: they come lowest precedence first, so the later one wins.
GUIDES_NOTE = (
    "Instruction files follow, in order of precedence, lowest first: where two disagree, the "
    "later one wins (the project's over the user's, LEGATO.md over CLAUDE.md, CLAUDE.local.md "
    "and AGENTS.md)."
)


def project_context(context: ProjectContext) -> list[str]:
    """The instruction files and memory, as the memory store read them at start."""
    parts = []
    guides = [guide for guide in context.guides if guide.text.strip()]
    if guides:
        parts.append(GUIDES_NOTE)
        parts += (f"Instructions from {_named(guide)}:\n{guide.text.strip()}" for guide in guides)
    if context.memory_dir:
        parts.append(_memory_note(context))
    if context.memory:
        parts.append(f"Your memory for this project (MEMORY.md):\n{context.memory.strip()}")
    return parts


def _memory_note(context: ProjectContext) -> str:
    """Where memory lives and how to add to it: "remember that ..." needs this."""
    topics = ", ".join(context.memory_topics) or "none yet"
    return (
        f"Memory folder (kept across sessions): {context.memory_dir}\n"
        f"Topic files there: {topics}; Read one when it is relevant.\n"
        "When the user asks you to remember something, add it as a short bullet to MEMORY.md "
        "there (or to a fitting topic file such as debugging.md or conventions.md) with Edit "
        "or Write; only the first 200 lines of MEMORY.md are loaded, so keep it short."
    )


_LEVELS = {
    "user": "the user's, for every project",
    "project": "the project's",
    "local": "the user's, for this project",
    "nested": "for work in its folder",
}


def _named(guide: GuideFile) -> str:
    """A file as the model is told of it: where it is, whose it is, who imported it."""
    whose = _LEVELS[guide.level]
    if guide.imported_by:
        whose += f"; imported by {guide.imported_by}"
    return f"{guide.path} ({whose})"
