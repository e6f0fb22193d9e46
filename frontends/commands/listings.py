"""How the subcommands and the terminal list the configuration: settings with their sources,
credentials by where they came from, hooks under their events, MCP servers with what they run.
Every value from a file is shown on one line, its control characters escaped."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from actors.visible import one_line

if TYPE_CHECKING:
    from collections.abc import Sequence

    from actors.protocol import Explained, HookGroup, McpServer, PermissionRule, ProviderReport


NOT_STARTED = "not started here: 'legato doctor' starts the approved ones"


def setting_lines(explained: Explained) -> list[str]:
    # What the project's file sets but is not applied shows as such, beside what is.
    rows = [
        (one_line(s.key), one_line(_show(s.value)), one_line(s.source))
        for s in (*explained.settings, *explained.not_applied)
    ]
    width = max(len(key) for key, _, _ in rows)
    value_width = min(max(len(value) for _, value, _ in rows), 40)
    return [f"  {key:<{width}}  {value:<{value_width}}  {source}" for key, value, source in rows]


def rule_source_lines(rules: Sequence[PermissionRule]) -> list[str]:
    """Each permission rule in the reference's syntax, with the file and line that hold it."""
    texts = [one_line(rule.text) for rule in rules]
    width = min(max((len(text) for text in texts), default=0), 40)
    return [
        f"  {rule.behavior:<5}  {text:<{width}}  "
        f"({one_line(rule.source)}{f':{rule.line}' if rule.line else ''})"
        for rule, text in zip(rules, texts, strict=True)
    ]


def not_acted_on_lines(explained: Explained) -> list[str]:
    """The keys of the reference's settings files that Legato does not act on, each with its
    file and line: copied across from the reference, they do nothing here."""
    return [f"  {one_line(s.key)}  {one_line(s.source)}" for s in explained.not_acted_on]


def credential_lines(provider: ProviderReport) -> list[str]:
    return [f"  {line}" for line in provider.credentials]


def mcp_server_lines(servers: Sequence[McpServer], *, approval: bool = True) -> list[str]:
    """Each server, its transport, what it runs or reaches, and its file; with ``approval``,
    whether a project's is approved and how to approve it. Env and header values often hold
    tokens: each shows the variables it comes from by name, a value written out stays hidden."""
    from frontends.commands.mcp_notes import is_project_server, server_target, server_value_lines

    lines = []
    for server in servers:
        # Each field escaped on its own: a return or a newline inside one would let the line
        # show another command than the one approved.
        name = one_line(server.name)
        target = server_target(server)
        state = ""
        if approval and is_project_server(server):
            state = "  approved" if server.approved else "  not approved"
        lines.append(f"  {name}  {server.transport}  {target}  ({one_line(server.source)}){state}")
        lines += server_value_lines(server, "    ")
        if approval and not server.approved:
            lines.append(f"    → approve it: 'legato mcp approve {name}'")
    return lines


def hook_lines(groups: Sequence[HookGroup]) -> list[str]:
    """The groups under their events, in the order they run (within an event: the global
    config's, then the project's), each with its matcher and file, then each command with its
    timeout."""
    from typing import get_args

    from actors.protocol import HookEvent

    events: tuple[str, ...] = get_args(HookEvent)
    lines: list[str] = []
    event = ""
    for group in sorted(groups, key=lambda group: events.index(group.event)):
        if group.event != event:
            event = group.event
            lines.append(f"  {event}")
        # "" and "*" match everything; an event without a matcher holds "".
        matcher = (
            "every time" if group.matcher in ("", "*") else f"matcher {one_line(group.matcher)}"
        )
        waiting = "" if group.approved else "  not approved: /hooks approve"
        lines.append(f"    {matcher}  ({one_line(group.source)}){waiting}")
        lines += [
            f"      {one_line(hook.command)}  (timeout {hook.timeout:g} s)" for hook in group.hooks
        ]
    return lines


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return json.dumps(list(value))
    return str(value)
