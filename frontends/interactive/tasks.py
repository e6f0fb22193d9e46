"""``/tasks``: the session's background commands and agents, and ``/tasks stop <id>`` to stop
one; and the status line each running one gets under the answer.

The tool executor owns the commands and the conductor the agents; this only asks them
(``ListBackground`` and ``StopBackground``, ``ListBackgroundAgents`` and
``StopBackgroundAgent``, answered at once even while a prompt runs) and puts the answers in
words. Whatever the person stops is told to the model at its next turn.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from actors.errors import UsageError
from actors.protocol import (
    AgentId,
    CommandId,
    ListBackground,
    ListBackgroundAgents,
    StopBackground,
    StopBackgroundAgent,
)
from actors.tool_routes import AGENT_PREFIX, no_such_job, parse_job_id
from actors.visible import escape_controls

if TYPE_CHECKING:
    from collections.abc import Sequence

    from actors.protocol import BackgroundAgent, BackgroundCommand, ConductorMsg, ToolExecutorMsg
    from runtime import Address

USAGE = "Type /tasks to list the background commands and agents, /tasks stop <id> to stop one"


async def tasks_text(
    argument: str, tools: Address[ToolExecutorMsg], conductor: Address[ConductorMsg]
) -> str:
    words = argument.split()
    if not words:
        commands = await tools.ask(ListBackground())
        agents = await conductor.ask(ListBackgroundAgents())
        return listing(commands, agents)
    if words[0] == "stop" and len(words) == 2:
        match parse_job_id(words[1]):
            case AgentId() as agent:
                return await conductor.ask(StopBackgroundAgent(id=agent))
            case CommandId() as command:
                return await tools.ask(StopBackground(id=command))
            case None if words[1].startswith(AGENT_PREFIX):
                # As for the model's TaskStop: meant as an agent's, it names the agents there are.
                agents = await conductor.ask(ListBackgroundAgents())
                return no_such_job("agent", words[1], (a.id for a in agents))
            case None:
                # As for the model's TaskStop: an id of neither kind is no command's.
                commands = await tools.ask(ListBackground())
                return no_such_job("command", words[1], (c.id for c in commands))
    raise UsageError(f"/tasks does not take {argument!r}", remedy=USAGE)


def listing(commands: Sequence[BackgroundCommand], agents: Sequence[BackgroundAgent] = ()) -> str:
    if not commands and not agents:
        return "No background commands or agents in this session."
    rows = [
        "Background tasks (id, kind, state, age, what it runs; its latest output or activity "
        "under it):"
    ]
    for command in commands:
        line = command.command.strip().splitlines()[0] if command.command.strip() else ""
        rows.append(_row(command.id, "command", command.state, command.age, line))
        if command.last_line:
            rows.append(f"      {command.last_line[:200]}")
    for agent in agents:
        what = f"{agent.agent}: {agent.description}"
        rows.append(_row(agent.id, "agent", agent.state, agent.age, what))
        if agent.activity:
            rows.append(f"      {agent.activity[:200]}")
    # A command, its output and an agent's description come from the model or a program.
    return escape_controls("\n".join(rows))


def _row(task_id: str, kind: str, state: str, seconds: float, what: str) -> str:
    return f"  {task_id:<8} {kind:<7} {state:<10} {age(seconds):>7}  {what}"


def status_lines(
    commands: Sequence[BackgroundCommand], agents: Sequence[BackgroundAgent] = ()
) -> tuple[str, ...]:
    """One line for each running command and agent, for the live part under the answer (the
    terminal cuts what does not fit its width)."""
    lines = []
    for command in commands:
        if command.state != "running":
            continue
        line = command.command.strip().splitlines()[0] if command.command.strip() else ""
        last = f" · {command.last_line}" if command.last_line else ""
        lines.append(f"◦ {command.id} running {age(command.age)} · {line[:60]}{last[:80]}")
    for agent in agents:
        if agent.state not in ("running", "waiting"):
            continue
        what = f"{agent.agent}: {agent.description}"
        last = f" · {agent.activity}" if agent.activity else ""
        lines.append(f"◦ {agent.id} {agent.state} {age(agent.age)} · {what[:60]}{last[:80]}")
    # Shown through prompt_toolkit's ANSI parser, which passes escapes between \x01 and \x02
    # to the terminal as they are: nothing of the model's or a program's may get there.
    return tuple(escape_controls(line, newlines=True) for line in lines)


def age(seconds: float) -> str:
    """``9s``, ``3m05s``, ``2h04m``: short enough for a column."""
    whole = int(seconds)
    if whole < 60:
        return f"{whole}s"
    if whole < 3600:
        return f"{whole // 60}m{whole % 60:02d}s"
    return f"{whole // 3600}h{whole % 3600 // 60:02d}m"
