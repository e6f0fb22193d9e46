"""``!cmd``: a shell command the person runs themselves, and ``#text``: a line they save to memory.

``!cmd`` goes to the tool executor as the model's Bash call would (``RunPersonCommand``): the
same rules, sandbox, output cap and process group, except that the broker asks nothing the
rules leave to the person, who has just asked for it. Its output streams under its line; Esc or
Ctrl-C stops it with everything it started. The command, its output and how it ended are then
put into the conversation (``AddNote``) for the model's next turn, and saved with the session.

``#text`` is saved to the instruction or memory file the person picks (``AddMemory``: the memory
store writes it) and the model is told of it at once in a note, since the system prompt holding
the files is made when the session starts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import anyio
from rich.padding import Padding
from rich.text import Text

from actors.errors import LegatoError
from actors.output_caps import omitted_bytes
from actors.protocol import (
    AddMemory,
    AddNote,
    InterruptTools,
    MemoryTarget,
    RunPersonCommand,
    ToolFinished,
)
from actors.visible import escape_controls, project_relative
from frontends.export import command_note

if TYPE_CHECKING:
    from collections.abc import AsyncIterator

    from actors.protocol import ToolEvent
    from frontends.interactive.surface import SessionSurface

# A command's output on screen: whole up to SHOWN_LINES, else its first and last lines.
SHOWN_LINES = 200
HEAD_LINES = 50
TAIL_LINES = 100
# Seconds the executor gets to stop a command on Esc and report what it printed.
STOP_WAIT = 5.0
# Where ``#`` saves, in the order offered: the digit typed picks one.
MEMORY_CHOICES: tuple[tuple[MemoryTarget, str], ...] = (
    ("project", "Project guide: LEGATO.md, shared with the repository"),
    ("local", "Your guide for this project: CLAUDE.local.md, for you alone (git ignores it)"),
    ("memory", "Your memory of this project: ~/.legato/projects/<hash>/memory/MEMORY.md"),
    ("user", "Your guide for every project: ~/.legato/LEGATO.md"),
)


def command_of(text: str) -> str | None:
    """The shell command of a line that starts with ``!``; None for any other line."""
    return text[1:].strip() if text.startswith("!") else None


def memory_of(text: str) -> str | None:
    """What a line that starts with ``#`` asks to remember; None for any other line."""
    return text[1:].strip() if text.startswith("#") else None


async def run_command(session: SessionSurface, command: str) -> None:
    """Run ``!command``; its output on screen and, once it ends, in the conversation."""
    view = session.view
    if not command:
        view.note(
            "error",
            "There is no command after '!'.\n  → Type one after it, e.g. !git status; "
            "to send the model a line starting with '!', put a space before it",
        )
        return
    session.person_commands += 1
    call_id = f"person_{session.person_commands}"
    tools = session.session.tools.address
    finished: ToolFinished | None = None
    started = anyio.current_time()
    async with tools.stream(RunPersonCommand(id=call_id, command=command)) as events:
        with anyio.CancelScope() as scope:
            session.screen.busy = scope
            session.screen.changed()
            try:
                finished = await _follow(session, events)
            finally:
                session.screen.busy = None
        if scope.cancelled_caught:
            # Esc: the executor stops the command with all it started and reports what it
            # had printed (its capped capture, not the display's lines), as for the model's.
            await tools.tell(InterruptTools(ids=(call_id,)))
            with anyio.CancelScope(shield=True), anyio.move_on_after(STOP_WAIT):
                finished = await _follow(session, events)
    view.running.pop(call_id, None)  # its line is printed whole below, not as the model's
    if finished is None:  # the executor did not report in time: the stream's end stops it
        took = anyio.current_time() - started
        output = f"Stopped by the user after {took:.1f} s; what it printed is not known."
        _show(session, "⏹", "legato.warn", command, f"stopped after {took:.1f} s", output)
    elif scope.cancelled_caught:
        output = finished.result.content
        note = f"stopped after {finished.elapsed:.1f} s"
        _show(session, "⏹", "legato.warn", command, note, output)
    else:
        result = finished.result
        output = result.content
        if result.is_error:
            _show(session, "✗", "legato.bad", command, f"{finished.elapsed:.1f} s", output)
            # Shown whole, the output may say the remedy itself (a command not found does).
            if finished.remedy and finished.remedy not in output:
                view.say(Text(f"    → {escape_controls(finished.remedy)}"))
        else:
            output = f"{output}\nExit code 0"
            took_text = f"{finished.elapsed:.1f} s"
            _show(session, "✓", "legato.good", command, took_text, result.content)
    # Shielded: a person's command that ran must reach the conversation even as the session
    # ends, so the model never misses what changed.
    with anyio.CancelScope(shield=True), anyio.move_on_after(5):
        await session.session.conductor.address.ask(AddNote(text=command_note(command, output)))


async def _follow(session: SessionSurface, events: AsyncIterator[ToolEvent]) -> ToolFinished | None:
    """The command's progress onto the screen as it comes; its ``ToolFinished``, or None if
    the stream ended without one."""
    async for event in events:
        if isinstance(event, ToolFinished):
            return event
        session.view.apply(event)
        session.screen.changed()
    return None


def _show(
    session: SessionSurface, mark: str, style: str, command: str, note: str, output: str
) -> None:
    """``✓ ! ls  0.1 s`` and the whole output under it, as the person asked to see it."""
    view = session.view
    shown = escape_controls(command, newlines=True)
    head = Text.assemble((f"{mark} ", style), ("! ", "bold"), shown, "  ", (note, "legato.muted"))
    view.say(head)
    body = escape_controls(project_relative(output, session.root)).rstrip("\n")
    lines = body.split("\n")
    if len(lines) > SHOWN_LINES:
        # A flood is cut in the middle: its start and its end (where a failure says why) stay
        # in sight of the command's line; the model gets all of the capped output.
        left = len(lines) - HEAD_LINES - TAIL_LINES
        cut = f"… {left:,} more lines (all of them go to the model) …"
        # The capture's own cut falls out of sight there: the person is told the model does not
        # get the whole flood either.
        if dropped := omitted_bytes("\n".join(lines[HEAD_LINES:-TAIL_LINES])):
            cut = (
                f"… {left:,} more lines go to the model, and {dropped:,} bytes of output between "
                "them were left out for it …"
            )
        body = "\n".join([*lines[:HEAD_LINES], cut, *lines[-TAIL_LINES:]])
    if body and body != "(no output)":
        # Wrapped under the command's line, not cut: the end of a refusal holds its remedy.
        view.say(Padding(Text(body, style="legato.muted"), (0, 0, 0, 4)))


async def remember(session: SessionSurface, text: str) -> None:
    """``#text``: saved to the file the person picks; Esc saves nothing."""
    view = session.view
    if not text:
        view.note(
            "error",
            "There is nothing to remember after '#'.\n  → Type it after the '#', e.g. "
            "# run the tests with make check",
        )
        return
    listing = "\n".join(f"  {n}. {label}" for n, (_, label) in enumerate(MEMORY_CHOICES, 1))
    view.say(Text(f"Save to which memory?\n{listing}\n  (Esc: save nothing)"))
    digits = tuple(str(n) for n in range(1, len(MEMORY_CHOICES) + 1))
    answer = await session.choose(digits, label="Save to?")
    if answer is None:
        view.say(Text("Nothing saved.", style="legato.muted"))
        return
    target = MEMORY_CHOICES[int(answer) - 1][0]
    try:
        added = await session.session.memory.address.ask(AddMemory(target=target, text=text))
    except LegatoError as error:
        view.note("error", error.describe())
        return
    made = " (a new file)" if added.created else ""
    if added.excluded is not None:
        made = f" (a new file, which git now ignores: listed in {added.excluded})"
    view.say(
        Text(
            f"Saved to {added.path}{made}. The model is told now; from the next session it is "
            "in the instructions it starts with.",
            style="legato.good",
        )
    )
    note = f"(Note: the user saved this to {added.path}, to keep in mind from now on: {text})"
    await session.session.conductor.address.ask(AddNote(text=note))
