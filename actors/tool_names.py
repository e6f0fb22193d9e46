"""The tool names that ``allowedTools`` and ``blockedTools`` entries may hold, and the names of
the built-in tools the conductor answers (``Agent``, ``ToolSearch``, ``Skill``, ``WebSearch``,
``TaskOutput``, ``TaskStop``).

An entry is one of the built-in tools that ask the permission broker (``Bash``, ``Read``...),
an MCP server (``mcp__<server>``: every tool it offers) or one MCP tool
(``mcp__<server>__<tool>``, the name the model calls). Names are compared exactly, case
included: the Messages API's tool names are case-sensitive, and so are the servers' names in
``.mcp.json``. The memory store checks entries with ``entry_problem``; the broker matches them
(``actors/permission_broker/tool_rules.py``).
"""

from __future__ import annotations

import re

MCP_PREFIX = "mcp__"

# The built-in tools whose every call asks the broker: what an entry can stop or let through.
WEB_FETCH = "WebFetch"
WEB_SEARCH = "WebSearch"
NOTEBOOK_EDIT = "NotebookEdit"
PERMISSION_TOOLS = (
    "Bash", "Edit", "Glob", "Grep", NOTEBOOK_EDIT, "Read", WEB_FETCH, WEB_SEARCH, "Write"
)  # fmt: skip
# The built-in tools the conductor answers (actors/tool_routes.py says which call goes where).
AGENT_TOOL = "Agent"
TOOL_SEARCH = "ToolSearch"
SKILL_TOOL = "Skill"
WEB_SEARCH = "WebSearch"  # asks the broker (kind "search") before it searches
TASK_TOOLS = ("TaskOutput", "TaskStop")
# The answer as a value of the prompt's JSON Schema (actors/conductor/structured.py).
STRUCTURED_OUTPUT = "StructuredOutput"
# Built-in tools that ask nobody: an entry for one would promise what the broker cannot keep.
UNCHECKED_TOOLS = (AGENT_TOOL, *TASK_TOOLS)

# What a server's name (.mcp.json) and a tool's name as the model calls it may hold.
_MCP_NAME = re.compile(r"mcp__[A-Za-z0-9_-]+")


def entry_problem(entry: str) -> str | None:
    """Why ``entry`` can never name a tool the broker is asked about, or None when it can."""
    if entry in PERMISSION_TOOLS:
        return None
    if entry.startswith(MCP_PREFIX):
        if not _MCP_NAME.fullmatch(entry):
            return (
                f"{entry!r} is not an MCP tool name: after 'mcp__' come a server's name and "
                "optionally '__' and a tool's, with letters, digits, '_' and '-' only"
            )
        if entry.endswith("__"):
            return f"{entry!r} ends with '__': write 'mcp__<server>' or 'mcp__<server>__<tool>'"
        return None
    if entry in UNCHECKED_TOOLS:
        return f"{entry!r} asks no permission, so an entry for it would change nothing"
    name, paren, _ = entry.partition("(")
    if paren and name in PERMISSION_TOOLS:
        return (
            f"{entry!r} is a rule, and this list takes tool names only; put the rule in "
            f"permissions.allow (or deny), or write {name!r} for every use of the tool"
        )
    close = [name for name in PERMISSION_TOOLS if name.lower() == entry.lower()]
    if entry.lower().startswith(MCP_PREFIX):
        close = [MCP_PREFIX + entry[len(MCP_PREFIX) :]]
    hint = (
        f"; did you mean {close[0]!r}? Names are case-sensitive"
        if close
        else f"; the built-in tools are {', '.join(PERMISSION_TOOLS)}"
    )
    return f"{entry!r} is neither a built-in tool nor an MCP name (mcp__<server>[__<tool>]){hint}"


def short_name(tool: str, server: str) -> str:
    """The tool's name as its server gives it: ``push`` for ``mcp__git__push`` of ``git``."""
    prefix = f"{MCP_PREFIX}{server}__"
    return tool[len(prefix) :] if tool.startswith(prefix) else tool
