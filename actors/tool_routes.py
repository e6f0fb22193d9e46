"""Which actor answers a tool call, the ids of background work read back from their text, and
the order of the tools a request offers.

The table (``route``):

==========================  =================================================================
``Read`` ``Write`` ``Edit``  the tool executor
``Bash`` ``Glob`` ``Grep``
``mcp__<server>__<tool>``    the tool executor, which calls the MCP client
``TaskOutput`` ``TaskStop``  by the kind of the id: a command's (``bash_N``) the tool executor,
                             an agent's (``agent_N``) the conductor; text that begins as an
                             agent's id but is none (``agent_1 ``, ``agent_01``) the conductor,
                             whose error names the agents there are; any other the executor,
                             whose error names the commands there are
``Agent``                    the conductor (``conductor/agents.py``)
``ToolSearch``               the conductor (``conductor/mcp_tools.py``)
``Skill``                    the conductor (``conductor/skill_tool.py``), which asks the
                             skill library
``WebSearch``                the conductor (``conductor/web_search.py``), which asks the
                             permission broker, then the model client (the API's own search)
==========================  =================================================================

The conductor asks ``route`` for every call; what it does not answer goes to the executor,
which answers a name it does not know as an unknown tool. So it is, too, for ``Agent``,
``TaskOutput`` or ``TaskStop`` when the session does not offer it (the driving program's
``tools`` and ``disallowed_tools``), as for the executor's own tools.

A background command's id and a background agent's are of two types (``protocol.CommandId``,
``protocol.AgentId``), read from text once where they come in (the model's TaskOutput and
TaskStop, ``/tasks stop``) by ``parse_job_id``; their text, which the model and the person read,
is ``str(id)``.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Literal

import msgspec

from actors.protocol import AgentId, CommandId
from actors.tool_names import AGENT_TOOL, SKILL_TOOL, TASK_TOOLS, TOOL_SEARCH, WEB_SEARCH

if TYPE_CHECKING:
    from collections.abc import Iterable, Sequence

    from actors.protocol import BackgroundAgent, BackgroundCommand, Block, ToolCall

JobId = CommandId | AgentId

# Exactly what ``str`` of a ``CommandId`` or an ``AgentId`` gives: a number from 1, without a
# sign, spaces or leading zeros; 18 digits at most, more than any session counts to, so a
# model's id of a thousand digits is refused before it is made a number.
_JOB_ID = re.compile(r"(bash|agent)_([1-9][0-9]{0,17})")
# Text that begins so was meant as an agent's id, even when it is none (``agent_1 ``).
AGENT_PREFIX = "agent_"


def parse_job_id(text: object) -> JobId | None:
    """The id ``text`` names, or None when it is not one a session could have given."""
    if not isinstance(text, str):
        return None
    found = _JOB_ID.fullmatch(text)
    if found is None:
        return None
    kind, number = found.groups()
    return CommandId(int(number)) if kind == "bash" else AgentId(int(number))


def no_such_job(kind: Literal["command", "agent"], text: str, ids: Iterable[str]) -> str:
    """The error for an id that names no background command (or agent) of this session."""
    known = ", ".join(ids) or "none has been started in this session"
    return f"No background {kind} {text!r}; the ids are: {known}."


class AgentJobCall(msgspec.Struct, frozen=True):
    """TaskOutput or TaskStop of a background agent: the conductor answers it. ``id`` is the
    model's text when it begins as an agent's id does but is none: the model meant an agent,
    so the error it gets lists the agents there are, not the commands."""

    id: AgentId | str


# Who answers: the executor, the conductor's Agent runner, ToolSearch, Skill or WebSearch, or
# the conductor for one background agent.
Route = Literal["executor", "Agent", "ToolSearch", "Skill", "WebSearch"] | AgentJobCall


def route(call: ToolCall) -> Route:
    """Who answers ``call`` (see the table in the module's docstring)."""
    if call.name == AGENT_TOOL:
        return "Agent"
    if call.name == TOOL_SEARCH:
        return "ToolSearch"
    if call.name == SKILL_TOOL:
        return "Skill"
    if call.name == WEB_SEARCH:
        return "WebSearch"
    if call.name in TASK_TOOLS:
        task = call.input.get("task_id")
        job = parse_job_id(task)
        if isinstance(job, AgentId):
            return AgentJobCall(job)
        if job is None and isinstance(task, str) and task.startswith(AGENT_PREFIX):
            return AgentJobCall(task)
    return "executor"


def offered_tools(
    tools: Sequence[Block],
    *,
    agent: Block | None = None,
    mcp: Sequence[Block] = (),
    skill: Block | None = None,
    search: Block | None = None,
) -> list[Block]:
    """The tools of a request, in the order every request gives them: ``tools`` (the
    executor's, as ``ListTools`` lists them), ``Agent``, ``Skill`` and ``WebSearch`` when
    offered, then
    ``mcp`` (the MCP servers' tools offered now, ``ToolSearch`` last).

    The tools open a request's cached prefix, so for one conversation they are the same bytes
    in the same order on every request while nothing offered changes. A subagent's MCP tools
    are fixed when it starts: they come in ``tools``, with the executor's its type allows.
    """
    offered = [spec for spec in (agent, skill, search) if spec is not None]
    return [*tools, *offered, *mcp]


def still_running(
    commands: Iterable[BackgroundCommand], agents: Iterable[BackgroundAgent]
) -> list[str]:
    """The background commands and agents still running (or waiting for a place), each as
    ``bash_1 (npm run dev)``: what a rewind leaves running, or a headless run's end stops."""
    running = [f"{job.id} ({_one_line(job.command)})" for job in commands if job.state == "running"]
    running += [
        f"{agent.id} ({_one_line(agent.description)})"
        for agent in agents
        if agent.state in ("waiting", "running")
    ]
    return running


def _one_line(text: str) -> str:
    line = " ".join(text.split())
    return line if len(line) <= 60 else line[:59] + "…"
