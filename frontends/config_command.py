"""``legato config``: the effective settings, and where each value came from.

    legato config [project_path] [--model M] [--permission-mode P] [--json]

Flags given here take part as they would in a session, so ``legato config --model opus`` shows
what ``legato --model opus`` would run with. The API key is never printed: only which variable
or file it came from.
"""

from __future__ import annotations

import argparse
import json
import os
from typing import TYPE_CHECKING, Any, NoReturn

from actors.errors import EXIT_OK
from actors.visible import one_line, printed_visibly
from frontends.errors_out import report, warn
from frontends.flags import PERMISSION_MODES, permission_mode

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from actors.protocol import Explained, HookGroup, McpServer, ProviderReport
    from frontends.session import MemoryStore
    from frontends.session_options import SessionOptions


NOT_STARTED = "not started here: 'legato doctor' starts the approved ones"


class Parser(argparse.ArgumentParser):
    """Usage errors exit 2 with the remedy line, as every Legato command's do."""

    def error(self, message: str) -> NoReturn:
        from actors.errors import UsageError

        remedy = f"Run '{self.prog} --help' for the flags"
        self.exit(report(UsageError(message, remedy=remedy), program=self.prog))


def build_parser(prog: str, description: str) -> argparse.ArgumentParser:
    parser = Parser(prog=prog, description=description)
    parser.add_argument("project_path", nargs="?", default=None, help="project (default: here)")
    parser.add_argument("--model", help="as the session flag: an alias or a model id")
    parser.add_argument(
        "--permission-mode",
        type=permission_mode,
        choices=PERMISSION_MODES,
        help="as the session flag",
    )
    return parser


def session_options(args: argparse.Namespace, env: Mapping[str, str]) -> SessionOptions:
    """What a session with these flags would be built from (a subcommand's ``--model`` and
    ``--permission-mode`` are the session's)."""
    from actors.permission_modes import SDK_MODES, from_sdk
    from frontends.session_options import SessionOptions

    if args.permission_mode in SDK_MODES:  # given by the Agent SDK's name
        args.permission_mode = from_sdk(args.permission_mode)
    return SessionOptions(
        project_root=os.path.abspath(args.project_path or os.getcwd()),
        model=args.model,
        permission_mode=args.permission_mode,
        env=env,
        home=env.get("HOME"),
    )


def memory_store(args: argparse.Namespace, env: Mapping[str, str]) -> MemoryStore:
    """The memory store a session with these flags would start: its ``ExplainContext`` is the
    effective configuration (and it fails to start with a ConfigError or UsageError)."""
    from frontends.session import memory_store

    return memory_store(session_options(args, env))


def setting_lines(explained: Explained) -> list[str]:
    # What the project's file sets but is not applied shows as such, beside what is.
    rows = [
        (one_line(s.key), one_line(_show(s.value)), one_line(s.source))
        for s in (*explained.settings, *explained.not_applied)
    ]
    width = max(len(key) for key, _, _ in rows)
    value_width = min(max(len(value) for _, value, _ in rows), 40)
    return [f"  {key:<{width}}  {value:<{value_width}}  {source}" for key, value, source in rows]


def credential_lines(provider: ProviderReport) -> list[str]:
    return [f"  {line}" for line in provider.credentials]


def _ask(args: argparse.Namespace, env: Mapping[str, str]) -> tuple[Explained, ProviderReport]:
    """The memory store's configuration and the model client's credentials, by message."""
    from actors.protocol import DescribeProvider, ExplainContext
    from frontends.asking import ask_actors
    from frontends.session import memory_store, model_client

    options = session_options(args, env)
    memory = memory_store(options)
    client = model_client(options, memory, connect_at_start=False)  # it sends nothing

    async def questions() -> tuple[Explained, ProviderReport]:
        explained = await memory.address.ask(ExplainContext())
        model = explained.context.model
        return explained, await client.address.ask(DescribeProvider(model=model))

    return ask_actors([memory, client], questions)


@printed_visibly
def run_config(argv: Sequence[str], *, env: Mapping[str, str] | None = None) -> int:
    parser = build_parser("legato config", "Print the effective settings and their sources.")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args(list(argv))
    env = os.environ if env is None else env
    from actors.errors import LegatoError

    try:
        explained, provider = _ask(args, env)
    except LegatoError as error:
        return report(error)
    context = explained.context
    if args.json:
        out = {
            "project": context.project_root,
            "settings": {s.key: {"value": s.value, "source": s.source} for s in explained.settings},
            "credentials": list(provider.credentials),
            "mcpServers": [_server_json(s) for s in context.mcp_servers],
            "hooks": [_hook_json(group) for group in context.hooks],
            "warnings": list(context.warnings),
            "notApplied": [
                {"key": s.key, "value": s.value, "source": s.source} for s in explained.not_applied
            ],
        }
        print(json.dumps(out, indent=2))
        return EXIT_OK
    print(f"Effective settings for {context.project_root}")
    print("(precedence: flags > environment > project settings > global config > defaults)")
    print(*setting_lines(explained), sep="\n")
    print("Credentials")
    print(*credential_lines(provider), sep="\n")
    print("Hooks (global config's first, then the project's)")
    print(*(hook_lines(context.hooks) or ["  none"]), sep="\n")
    print(f"MCP servers ({NOT_STARTED})")
    print(*(mcp_server_lines(context.mcp_servers) or ["  none"]), sep="\n")
    for warning in context.warnings:
        warn(warning, program="legato config")
    return EXIT_OK


def mcp_server_lines(servers: Sequence[McpServer], *, approval: bool = True) -> list[str]:
    """Each server, its transport, what it runs or reaches, and its file; with ``approval``,
    whether a project's is approved and how to approve it. Env and header values often hold
    tokens: each shows the variables it comes from by name, a value written out stays hidden."""
    from frontends.mcp_notes import is_project_server, server_target, server_value_lines

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


def _hook_json(group: HookGroup) -> dict[str, Any]:
    return {
        "event": group.event,
        "matcher": group.matcher,
        "hooks": [{"command": h.command, "timeout": h.timeout} for h in group.hooks],
        "source": group.source,
    }


def _server_json(server: McpServer) -> dict[str, Any]:
    return {
        "name": server.name,
        "transport": server.transport,
        "source": server.source,
        **(
            {"command": server.command, "args": list(server.args), "env": sorted(server.env)}
            if server.transport == "stdio"
            else {"url": server.url, "headers": sorted(server.headers)}
        ),
    }


def _show(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return json.dumps(list(value))
    return str(value)
