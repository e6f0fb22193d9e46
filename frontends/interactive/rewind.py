"""``/rewind`` and Esc Esc in the terminal: the session's prompts to pick from (newest first,
the undo of the latest rewind above them), then what to restore; ``/rewind N [what]`` without
the lists. After the conversation goes back, the rewound prompt waits in the input."""

from __future__ import annotations

import datetime
from typing import TYPE_CHECKING

from rich.text import Text

from actors.errors import UsageError
from actors.protocol import ListRewindPoints, Rewind, UndoRewind
from actors.visible import one_line
from frontends.rewind_words import parse_rewind

if TYPE_CHECKING:
    from actors.protocol import (
        ConductorMsg,
        RewindPoint,
        RewindReport,
        RewindRestore,
    )
    from frontends.interactive.screen import Screen
    from frontends.interactive.view import TurnView
    from runtime import Address

TITLE = "Rewind to just before which prompt?"
# The reference's menu, in its order; each offered only when there is something to restore.
ACTIONS: tuple[tuple[str, RewindRestore], ...] = (
    ("Restore code and conversation", "both"),
    ("Restore conversation", "conversation"),
    ("Restore code", "code"),
)
NEVER_MIND = "Never mind"


async def rewind(
    argument: str, conductor: Address[ConductorMsg], screen: Screen, view: TurnView
) -> None:
    try:
        ask = parse_rewind(argument)
        if ask is None:
            report = await _picked(conductor, screen, view)
        else:
            report = await conductor.ask(ask)
    except UsageError as error:
        view.note("error", error.describe())
        return
    if report is None:
        view.say(Text("Rewind cancelled: nothing changed.", style="legato.muted"))
        return
    view.say(Text(report.text))
    if report.conversation and report.prompt_text:
        from prompt_toolkit.document import Document

        # Ready to send again or edit; whatever was typed meanwhile goes to the history.
        if screen.buffer.text.strip():
            screen.buffer.append_to_history()
        screen.buffer.document = Document(report.prompt_text, len(report.prompt_text))


async def _picked(
    conductor: Address[ConductorMsg], screen: Screen, view: TurnView
) -> RewindReport | None:
    """The lists: which prompt, then what to restore; None when the person cancels."""
    listing = await conductor.ask(ListRewindPoints())
    undo = () if listing.undo is None else (f"↶ {listing.undo.capitalize()}",)
    if not listing.points and not undo:
        view.say(Text(listing.nothing))
        return None
    rows = (*undo, *(_row(point) for point in listing.points))
    chosen = await screen.choose(TITLE, rows)
    if chosen is None:
        return None
    if undo and chosen == 0:
        return await conductor.ask(UndoRewind())
    point = listing.points[chosen - len(undo)]
    actions = [
        (label, restore)
        for label, restore in ACTIONS
        if (restore == "conversation" or point.files) and (restore == "code" or point.conversation)
    ]
    choices = (*(label for label, _ in actions), NEVER_MIND)
    picked = await screen.choose(_question(point), choices)
    if picked is None or picked == len(actions):
        return None
    return await conductor.ask(Rewind(prompt=point.prompt, restore=actions[picked][1]))


def _row(point: RewindPoint) -> str:
    line = " ".join(point.text.split()) or "(an image)"
    when = _local_time(point.at)
    if point.files:
        files = f"{len(point.files)} file{'s' if len(point.files) > 1 else ''} to restore"
    else:
        files = "no files to restore"
    said = files if point.conversation else f"{files}; conversation {point.gone}"
    return f"{_cut(line, 48)}  · {when} · {said}"


def _question(point: RewindPoint) -> str:
    lines = [f"Prompt {point.prompt}: “{_cut(' '.join(point.text.split()), 60)}”. Restore what?"]
    if point.files:
        more = len(point.files) - 4
        shown = ", ".join(one_line(path) for path in point.files[:4]) + (
            f" and {more} more" if more > 0 else ""
        )
        lines.append(f"  code: {shown}")
    if point.commands:
        lines.append(
            f"  {point.commands} shell command{'s' if point.commands > 1 else ''} ran since: what "
            "a checkpoint could not see stays as it is"
        )
    if not point.conversation:
        lines.append(f"  conversation: {point.gone}, so only the code can come back")
    return "\n".join(lines)


def _local_time(at: str) -> str:
    try:
        return datetime.datetime.fromisoformat(at).astimezone().strftime("%H:%M")
    except ValueError:
        return "?"


def _cut(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 1] + "…"
