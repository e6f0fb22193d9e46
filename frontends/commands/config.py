"""``legato config``: the effective settings, and where each value came from.

    legato config [project_path] [--model M] [--permission-mode P] [--json]

Flags given here take part as they would in a session, so ``legato config --model opus`` shows
what ``legato --model opus`` would run with. The API key is never printed: only which variable
or file it came from.
"""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any

from actors.errors import EXIT_OK
from actors.visible import printed_visibly
from frontends.commands.arguments import build_parser, session_options
from frontends.commands.listings import (
    NOT_STARTED,
    credential_lines,
    hook_lines,
    mcp_server_lines,
    not_acted_on_lines,
    rule_source_lines,
    setting_lines,
)
from frontends.context_report import guide_lines, guides_json
from frontends.errors_out import report, warn

PRECEDENCE = (
    "precedence: flags > environment > local settings > project settings > user settings > "
    "defaults; at each level Legato's file before the reference's (.claude/)"
)

if TYPE_CHECKING:
    import argparse
    from collections.abc import Mapping, Sequence

    from actors.protocol import Explained, HookGroup, McpServer, ProviderReport


def _ask(args: argparse.Namespace, env: Mapping[str, str]) -> tuple[Explained, ProviderReport]:
    """The memory store's configuration and the model client's credentials, by message."""
    from actors.protocol import DescribeProvider, ExplainContext
    from frontends.commands.asking import ask_actors
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
            "instructionFiles": guides_json(context),
            "warnings": list(context.warnings),
            "notApplied": [
                {"key": s.key, "value": s.value, "source": s.source} for s in explained.not_applied
            ],
            "notActedOn": [{"key": s.key, "source": s.source} for s in explained.not_acted_on],
            "permissionRules": [
                {"behavior": r.behavior, "rule": r.text, "source": r.source, "line": r.line}
                for r in context.permission_rules
            ],
        }
        print(json.dumps(out, indent=2))
        return EXIT_OK
    print(f"Effective settings for {context.project_root}")
    print(f"({PRECEDENCE})")
    print(*setting_lines(explained), sep="\n")
    print(
        "Permission rules (nearest file first; whatever the file, a deny wins over an ask and "
        "an ask over an allow)"
    )
    print(*(rule_source_lines(context.permission_rules) or ["  none"]), sep="\n")
    if explained.not_acted_on:
        print("Not acted on (keys of the reference's settings that Legato does not use)")
        print(*not_acted_on_lines(explained), sep="\n")
    print(*guide_lines(context), sep="\n")
    print("Credentials")
    print(*credential_lines(provider), sep="\n")
    print("Hooks (global config's first, then the project's)")
    print(*(hook_lines(context.hooks) or ["  none"]), sep="\n")
    print(f"MCP servers ({NOT_STARTED})")
    print(*(mcp_server_lines(context.mcp_servers) or ["  none"]), sep="\n")
    for warning in context.warnings:
        warn(warning, program="legato config")
    return EXIT_OK


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
