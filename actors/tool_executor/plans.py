"""A tool call planned before it runs, and the order two planned calls must keep.

Planning finds the tool a call names (one of the session's, or an MCP server's), holds a
subagent to its tools, decodes the input and resolves the path the call touches, with
symlinks followed, so that ``ordered`` can tell whether a later call must wait for an earlier
one. A call that cannot run (an unknown tool, input that does not decode) is planned too: its
``failure`` is its result. Nothing here runs a tool.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import anyio
import msgspec

from actors import door
from actors.errors import LegatoError
from actors.tool_executor.context import Access
from actors.tool_executor.files import shown_path
from actors.tool_executor.schemas import decode
from actors.tool_executor.tools import mcp
from actors.visible import escape_controls
from runtime import KernelError

if TYPE_CHECKING:
    from collections.abc import Mapping

    from actors.protocol import AgentScope, McpClientMsg, ToolCall
    from actors.tool_executor.context import Tool
    from runtime import Address


# The input fields that name what a call works on, most telling first.
_PATH_KEYS = ("file_path", "notebook_path", "path")
_TARGET_KEYS = (*_PATH_KEYS, "command", "pattern", "task_id")


class Plan(msgspec.Struct, frozen=True):
    call: ToolCall
    tool: Tool[Any] | None
    args: Any
    failure: str | None  # the input was unusable: this is the result
    access: Access | None  # with the real path, for ordering
    summary: str


async def make_plan(
    call: ToolCall,
    agent: AgentScope | None,
    tools: Mapping[str, Tool[Any]],
    root: str,
    client: Address[McpClientMsg] | None,  # the MCP servers' tools; None: none
) -> Plan:
    tool = tools.get(call.name)
    if tool is None and client is not None and mcp.is_mcp(call.name):
        return await _plan_mcp(client, call, agent, root)
    allowed = [name for name in tools if agent is None or _may_use(agent, name)]
    if tool is not None and agent is not None and not _may_use(agent, call.name):
        # What a subagent may use is decided here, whatever the model was offered: a
        # model that names a tool it was not given gets nothing done.
        failure = (
            f"The tool {call.name!r} is not available to the agent {agent.name!r}; "
            f"its tools are: {', '.join(allowed) or 'none'}. Nothing was done."
        )
        return Plan(call, None, None, failure, None, _raw_summary(call, root))
    if tool is None:
        failure = f"Unknown tool {call.name!r}. The available tools are: {', '.join(allowed)}."
        return Plan(call, None, None, failure, None, _raw_summary(call, root))
    try:
        args = decode(tool.name, call.input, tool.input_type)
        access = tool.access(args, root)
        if access is not None:
            real = await anyio.to_thread.run_sync(door.real_path, access.path)
            access = Access(real, access.writes)
        return Plan(call, tool, args, None, access, tool.summary(args, root))
    except LegatoError as exc:  # a NUL byte in a path, too: it is no name at all
        return Plan(call, tool, None, exc.describe(), None, _raw_summary(call, root))
    except (ValueError, OSError) as exc:
        failure = f"Invalid input for {tool.name}: {exc}"
        return Plan(call, tool, None, failure, None, _raw_summary(call, root))


def _raw_summary(call: ToolCall, root: str) -> str:
    """What a call that could not be planned was aimed at, from its input as sent: the
    failure line then names the file or command, not the tool a second time."""
    for key in _TARGET_KEYS:
        value = call.input.get(key)
        if isinstance(value, str) and value.strip():
            if key in _PATH_KEYS and "\0" not in value:
                value = shown_path(value, root)
            return escape_controls(value, newlines=True)
    return ""


async def _plan_mcp(
    client: Address[McpClientMsg], call: ToolCall, agent: AgentScope | None, root: str
) -> Plan:
    if agent is not None and not _may_use(agent, call.name):
        failure = (
            f"The tool {call.name!r} is not available to the agent {agent.name!r}. "
            "Nothing was done."
        )
        return Plan(call, None, None, failure, None, _raw_summary(call, root))
    try:
        tool = await mcp.plan_call(client, call)
    except KernelError:  # the client is gone: the session is ending
        tool = f"The MCP servers are not running; {call.name} was not called."
    if isinstance(tool, str):
        return Plan(call, None, None, tool, None, _raw_summary(call, root))
    args = mcp.McpInput(arguments=call.input)
    return Plan(call, tool, args, None, None, tool.summary(args, root))


async def replan(
    plan: Plan,
    call: ToolCall,
    source: str,
    tools: Mapping[str, Tool[Any]],
    root: str,
    client: Address[McpClientMsg] | None,
) -> Plan:
    """``plan`` for the same call with other input, which ``source`` gave; its summary stays."""
    if plan.tool is not None and plan.tool.input_type is mcp.McpInput:
        args = mcp.McpInput(arguments=call.input)
        return Plan(call, plan.tool, args, None, None, plan.summary)
    planned = await make_plan(call, None, tools, root, client)
    if planned.failure is not None:
        failure = f"The input {source} gave is unusable, so nothing was done: {planned.failure}"
        planned = msgspec.structs.replace(planned, failure=failure)
    return msgspec.structs.replace(planned, summary=plan.summary)


def _may_use(agent: AgentScope, name: str) -> bool:
    return agent.tools is None or name in agent.tools


def ordered(earlier: Plan, later: Plan) -> bool:
    """Whether ``later`` must wait for ``earlier``: same path or nested, and one of them writes."""
    a, b = earlier.access, later.access
    if a is None or b is None or not (a.writes or b.writes):
        return False
    return door.within(a.path, b.path) or door.within(b.path, a.path)
