"""A note for an allowedTools / blockedTools entry that differs from a configured MCP server's
name only in case: names are compared exactly, so such an entry covers nothing, and a blocked
one that blocks nothing should not pass silently. Entries for servers that are not configured
say nothing: a committed settings file may name servers that only some users have."""

from __future__ import annotations

from typing import TYPE_CHECKING

from actors.tool_names import MCP_PREFIX

if TYPE_CHECKING:
    from collections.abc import Sequence

    from actors.settings import McpServer, ProjectSettings
    from actors.settings.validate import Loaded


def tool_rule_warnings(
    settings: Loaded[ProjectSettings], servers: Sequence[McpServer]
) -> list[str]:
    names = [server.name for server in servers]
    warnings: list[str] = []
    for key, entries in (
        ("allowedTools", settings.value.allowed_tools),
        ("blockedTools", settings.value.blocked_tools),
    ):
        for index, entry in enumerate(entries):
            if not entry.startswith(MCP_PREFIX):
                continue
            rest = entry[len(MCP_PREFIX) :]
            if any(rest == name or rest.startswith(name + "__") for name in names):
                continue
            folded = rest.lower()
            close = next(
                (
                    name
                    for name in names
                    if folded == name.lower() or folded.startswith(name.lower() + "__")
                ),
                None,
            )
            if close is None:
                continue
            fixed = MCP_PREFIX + close + rest[len(close) :]
            line = settings.line_of(key, index) or settings.line_of(key)
            at = f"{settings.path}:{line}" if line else settings.path
            warnings.append(
                f"{at}: {key} entry '{entry}' covers no tool: names are case-sensitive and the "
                f"MCP server is '{close}'; did you mean '{fixed}'?"
            )
    return warnings
