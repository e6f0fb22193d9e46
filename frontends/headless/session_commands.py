"""The session's own commands when a prompt names one: ``/undo``, ``/compact``, ``/context``,
``/rewind N`` and ``/export <file>``. One place for headless runs (``-p``, with --continue on the
saved session) and for stream-json input, so a program driving Legato gets what a shell gets.

Each returns what it did, in words (the run's result); a bad one is a UsageError naming it.
Nobody can answer a question here: ``/rewind`` needs N, and ``/export`` replaces no file.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from actors.errors import UsageError
from actors.protocol import Compact, GetContext, GetContextFill, GetConversation, Undo
from frontends.startup import session_words

if TYPE_CHECKING:
    from actors.protocol import ConductorMsg
    from frontends.session import Session
    from runtime import Address


async def run(session: Session, prompt: str, *, project_root: str, home: str) -> str:
    """Run the command ``prompt`` names (``session_words.named(prompt)`` is true); what it
    did, in words."""
    session_words.check(prompt)
    name, _, argument = prompt.strip().partition(" ")
    conductor = session.conductor.address
    match name:
        case "/undo":
            return await conductor.ask(Undo())
        case "/compact":
            return await conductor.ask(Compact())
        case "/context":
            from frontends.context_report import context_text

            fill = await conductor.ask(GetContextFill())
            return context_text(await session.memory.address.ask(GetContext()), fill)
        case "/rewind":
            return await _rewind(conductor, argument)
        case _:
            return await _export(session, argument.strip(), project_root, home)


async def _rewind(conductor: Address[ConductorMsg], argument: str) -> str:
    """``/rewind N [code|conversation|both]``: nobody can pick from a list here, so N is
    needed; a bad N is a UsageError (exit 2)."""
    from frontends.rewind_words import HEADLESS_USAGE, parse_rewind, prompt_back

    ask = parse_rewind(argument, pick=False)
    if ask is None:
        raise UsageError(
            "/rewind needs how many prompts back when there is no terminal to pick in",
            remedy=f"Run {HEADLESS_USAGE}",
        )
    report = await conductor.ask(ask)
    back = prompt_back(report) if report.conversation else ""
    return f"{report.text}\n{back}" if back else report.text


async def _export(session: Session, name: str, project_root: str, home: str) -> str:
    """``/export <file>``: the conversation (with --continue, the saved one) as Markdown.
    Nobody can confirm here, so an existing file is never replaced."""
    import anyio.to_thread

    from frontends.export import conversation_markdown, export_target, write_export

    if not name:
        raise UsageError(
            "/export needs a file name when there is no terminal to choose in",
            remedy='Run legato --continue --headless "/export conversation.md"',
        )
    messages = await session.conductor.address.ask(GetConversation())
    if not messages:
        raise UsageError(
            "there is no conversation to export",
            remedy="Add --continue (or --resume <id>) to export a saved session",
        )
    target, exists = await anyio.to_thread.run_sync(export_target, name, project_root, home)
    if exists:
        raise UsageError(
            f"{target.shown} exists, and a headless run replaces no file",
            remedy="Remove it, or export to another name",
        )
    title = f"Legato conversation in {os.path.basename(project_root)}"
    text = conversation_markdown(messages, title=title)
    await anyio.to_thread.run_sync(write_export, target, text)
    return f"Exported the conversation to {target.shown} ({text.count(chr(10))} lines)."
