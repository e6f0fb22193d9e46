"""What the program driving the session adds to the settings files' (the Agent SDK's options):
its allowed and blocked tools and commands, system prompt, offered tools and directories, and
the MCP servers of ``--mcp-config``, which it wrote and so are approved.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import msgspec

from actors.memory_store.mcp_servers import parse_mcp_servers, read_mcp_servers

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from actors.protocol import Overrides, ProjectContext
    from actors.settings import McpServer


def with_program_options(
    context: ProjectContext, overrides: Overrides, directories: Sequence[str] = ()
) -> ProjectContext:
    """The options of the program driving the session (the Agent SDK's): its allowed and
    blocked tools and commands join the settings' (a blocked rule still wins over any allow)."""
    settings = context.settings
    settings = msgspec.structs.replace(
        settings,
        allowed_tools=settings.allowed_tools + overrides.allowed_tools,
        blocked_tools=settings.blocked_tools + overrides.blocked_tools,
        allowed_commands=settings.allowed_commands + overrides.allowed_commands,
        blocked_commands=settings.blocked_commands + overrides.blocked_commands,
    )
    return msgspec.structs.replace(
        context,
        settings=settings,
        system_prompt=overrides.system_prompt,
        append_system_prompt=overrides.append_system_prompt,
        offered_tools=overrides.offered_tools,
        refused_tools=overrides.refused_tools,
        add_dirs=(*overrides.add_dirs, *(d for d in directories if d not in overrides.add_dirs)),
    )


def with_given_servers(
    servers: tuple[McpServer, ...],
    overrides: Overrides,
    env: Mapping[str, str],
    warnings: list[str],
) -> tuple[McpServer, ...]:
    """The files' servers and those of ``--mcp-config`` (the Agent SDK's ``mcp_servers``):
    given by whoever drives the session, so approved; their names win. Raises ConfigError."""
    given: list[McpServer] = []
    for config in overrides.mcp_configs:
        if config.lstrip().startswith("{"):
            text = _without_sdk_servers(config, warnings)
            given += parse_mcp_servers("--mcp-config", text, env, warnings)
        else:
            # A file the driving program names: its to choose, wherever it is.
            given += read_mcp_servers(config, env, warnings, inside=(os.sep,))
    given = [msgspec.structs.replace(server, approved=True) for server in given]
    if overrides.strict_mcp_config:
        return tuple(given)
    taken = {server.name for server in given}
    return (*given, *(server for server in servers if server.name not in taken))


def _without_sdk_servers(text: str, warnings: list[str]) -> str:
    """The JSON without the SDK's in-process servers (``"type": "sdk"``), which run inside the
    driving program and which Legato cannot reach; each left out is a warning."""
    try:
        raw = msgspec.json.decode(text)
    except (msgspec.DecodeError, RecursionError):
        return text  # the parser says where it is malformed, or nested too deep
    servers = raw.get("mcpServers") if isinstance(raw, dict) else None
    if not isinstance(servers, dict):
        return text
    for name, entry in list(servers.items()):
        if isinstance(entry, dict) and entry.get("type") == "sdk":
            del servers[name]
            warnings.append(
                f"--mcp-config: the in-process SDK server {name!r} is not supported and was "
                "left out; run it as a stdio or http MCP server instead"
            )
    return msgspec.json.encode(raw).decode()
