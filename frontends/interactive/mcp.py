"""``/mcp``: the session's MCP servers and their states, and ``/mcp approve`` to approve a
project's server and start it now.

The MCP client owns the servers (``ListMcpServers``, ``ApproveMcpServers``) and the memory store
the approvals (``ApproveProjectMcpServers``, which records them in the user's folder); this asks
them and puts the answers in words. ``/mcp approve`` alone approves every unapproved server once
the person, shown what they run, says yes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from actors.errors import UsageError
from actors.protocol import (
    ApproveMcpServers,
    ApproveProjectMcpServers,
    GetContext,
    ListMcpServers,
)
from actors.visible import one_line
from frontends.commands.listings import mcp_server_lines
from frontends.commands.mcp_notes import error_lines, server_target, server_value_lines

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Sequence

    from actors.protocol import McpClientMsg, McpServer, McpServerStatus, MemoryStoreMsg
    from runtime import Address

USAGE = (
    "Type /mcp to list the MCP servers, /mcp approve <name> to approve one and start it, "
    "/mcp approve for every unapproved one"
)


async def mcp_command(
    argument: str,
    memory: Address[MemoryStoreMsg],
    mcp: Address[McpClientMsg],
    say: Callable[[str], None],
    confirm: Callable[[], Awaitable[bool]],
) -> None:
    """Runs ``/mcp [approve [<name>...]]``: ``say`` shows text, ``confirm`` asks yes or no.
    Raises UsageError for an unknown word or server name."""
    words = argument.split()
    if not words:
        statuses = await mcp.ask(ListMcpServers())
        say(listing(statuses, (await memory.ask(GetContext())).mcp_servers))
        return
    if words[0] != "approve":
        raise UsageError(f"/mcp does not take {argument!r}", remedy=USAGE)
    servers = (await memory.ask(GetContext())).mcp_servers
    names = tuple(words[1:])
    if not names:
        waiting = [server for server in servers if not server.approved]
        if not waiting:
            say("Every MCP server is approved.")
            return
        say(
            "\n".join(
                ["These MCP servers are not approved:", *mcp_server_lines(waiting, approval=False)]
            )
        )
        if not await confirm():
            say("Nothing approved.")
            return
        names = tuple(server.name for server in waiting)
    else:
        # The names are checked (UsageError) before anything is shown or recorded.
        shown = [server for server in servers if server.name in names]
        if len(shown) == len(set(names)):
            say(
                "\n".join(
                    ["Approving what these servers run:", *mcp_server_lines(shown, approval=False)]
                )
            )
    await memory.ask(ApproveProjectMcpServers(names=names))
    statuses = await mcp.ask(ApproveMcpServers(names=names))
    say("\n".join(["Approved; the next sessions here start them too:", *_rows(statuses, {})]))


def listing(statuses: Sequence[McpServerStatus], servers: Sequence[McpServer]) -> str:
    if not statuses:
        return "No MCP servers (.mcp.json or the global config: docs/mcp.md)."
    by_name = {server.name: server for server in servers}
    return "\n".join(["MCP servers (state, source):", *_rows(statuses, by_name)])


def _rows(statuses: Sequence[McpServerStatus], servers: dict[str, McpServer]) -> list[str]:
    width = max(len(one_line(status.name)) for status in statuses)
    rows = []
    for status in statuses:
        name = one_line(status.name)
        rows.append(f"  {name:<{width}}  {_state(status)}  ({one_line(status.source)})")
        if status.state == "failed":
            rows += error_lines(status.error, "      ")
        elif status.state == "unapproved":
            server = servers.get(status.name)
            if server is not None:
                # In full: what is left out could be what the user needs to read.
                rows.append(f"      runs: {server_target(server)}")
                rows += server_value_lines(server, "      ")
            rows.append(f"      → /mcp approve {name} (after reading what it runs)")
    return rows


def _state(status: McpServerStatus) -> str:
    match status.state:
        case "ready":
            return f"ready, {status.tools} tool{'s' if status.tools != 1 else ''}"
        case "unapproved":
            return "not approved, not started"
        case state:
            return state
