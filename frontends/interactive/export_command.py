"""``/export [file]``: the conversation as Markdown, to a file or to the clipboard."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import anyio
from rich.text import Text

from actors.errors import LegatoError
from actors.protocol import GetConversation
from frontends.export import conversation_markdown, export_target, write_export

if TYPE_CHECKING:
    from frontends.interactive.surface import SessionSurface

# What ``/export`` alone offers, the digit typed picks one.
_CHOICES = ("1", "2")
DEFAULT_NAME = "conversation.md"


async def export(session: SessionSurface, argument: str) -> None:
    view = session.view
    messages = await session.session.conductor.address.ask(GetConversation())
    if not messages:
        view.note("warning", "There is no conversation to export yet.")
        return
    text = conversation_markdown(
        messages, title=f"Legato conversation in {os.path.basename(session.root) or session.root}"
    )
    name = argument.strip()
    if not name:
        view.say(
            Text(
                "Export the conversation:\n  1. Copy it to the clipboard\n"
                f"  2. Save it to a file ({DEFAULT_NAME} in the project)\n  (Esc: neither)"
            )
        )
        answer = await session.choose(_CHOICES, label="Export?")
        if answer is None:
            view.say(Text("Nothing exported.", style="legato.muted"))
            return
        if answer == "1":
            await _copy(session, text)
            return
        name = DEFAULT_NAME
    await _save(session, name, text)


async def _save(session: SessionSurface, name: str, text: str) -> None:
    view = session.view
    try:
        target, exists = await anyio.to_thread.run_sync(
            export_target, name, session.root, session.home
        )
        if exists:
            view.say(Text(f"{target.shown} exists. Replace it with the conversation?"))
        if exists and await session.choose(("y", "n"), label="Replace?") != "y":
            view.say(Text("Nothing exported; the file is as it was.", style="legato.muted"))
            return
        await anyio.to_thread.run_sync(write_export, target, text)
    except LegatoError as error:
        view.note("error", error.describe())
        return
    lines = text.count("\n")
    view.say(Text(f"Exported the conversation to {target.shown} ({lines} lines).", "legato.good"))


async def _copy(session: SessionSurface, text: str) -> None:
    from frontends.interactive import clipboard

    view = session.view
    try:
        tool = await clipboard.write_text(text)
    except LegatoError as error:
        view.note("error", error.describe())
        return
    if tool is not None:
        view.say(Text(f"Copied the conversation to the clipboard with {tool}.", "legato.good"))
        return
    output = session.screen.app.output
    output.write_raw(clipboard.osc52(text))
    output.flush()
    view.say(
        Text(
            "Sent the conversation to the terminal's clipboard (OSC 52): no clipboard tool "
            "was found. If nothing was copied, your terminal does not allow it: /export <file> "
            "saves it instead.",
            "legato.good",
        )
    )
