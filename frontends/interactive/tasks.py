"""``/tasks``: the session's background commands, and ``/tasks stop <id>`` to stop one; and the
status line each running one gets under the answer.

The tool executor owns the commands; this only asks it (``ListBackground``, ``StopBackground``)
and puts the answer in words. A command the person stops is told to the model at its next turn.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from actors.errors import UsageError
from actors.protocol import ListBackground, StopBackground

if TYPE_CHECKING:
    from collections.abc import Sequence

    from actors.protocol import BackgroundCommand, ToolExecutorMsg
    from runtime import Address

USAGE = "Type /tasks to list the background commands, /tasks stop <id> to stop one"


async def tasks_text(argument: str, tools: Address[ToolExecutorMsg]) -> str:
    words = argument.split()
    if not words:
        commands = await tools.ask(ListBackground())
        return listing(commands)
    if words[0] == "stop" and len(words) == 2:
        return await tools.ask(StopBackground(id=words[1]))
    raise UsageError(f"/tasks does not take {argument!r}", remedy=USAGE)


def listing(commands: Sequence[BackgroundCommand]) -> str:
    if not commands:
        return "No background commands in this session."
    rows = ["Background commands (id, state, age, command; last output line under it):"]
    for command in commands:
        line = command.command.strip().splitlines()[0] if command.command.strip() else ""
        rows.append(f"  {command.id:<8} {command.state:<10} {age(command.age):>7}  {line}")
        if command.last_line:
            rows.append(f"      {command.last_line[:200]}")
    return "\n".join(rows)


def status_lines(commands: Sequence[BackgroundCommand]) -> tuple[str, ...]:
    """One line for each running command, for the live part under the answer (the terminal
    cuts what does not fit its width)."""
    lines = []
    for command in commands:
        if command.state != "running":
            continue
        line = command.command.strip().splitlines()[0] if command.command.strip() else ""
        last = f" · {command.last_line}" if command.last_line else ""
        lines.append(f"◦ {command.id} running {age(command.age)} · {line[:60]}{last[:80]}")
    return tuple(lines)


def age(seconds: float) -> str:
    """``9s``, ``3m05s``, ``2h04m``: short enough for a column."""
    whole = int(seconds)
    if whole < 60:
        return f"{whole}s"
    if whole < 3600:
        return f"{whole // 60}m{whole % 60:02d}s"
    return f"{whole // 3600}h{whole % 3600 // 60:02d}m"
