"""``legato mcp list``: the MCP servers a session here would have, and where each came from.

    legato mcp list [project_path]

It starts no server and no session: only the memory store, which reads .mcp.json and the
global config as a session would (a bad entry exits 2, as it would stop the session). Servers
are not connected to yet, and the listing says so rather than show a state it cannot know.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from frontends.config_command import NOT_STARTED, Parser, mcp_server_lines, memory_store
from frontends.exit_codes import EXIT_OK

if TYPE_CHECKING:
    import argparse
    from collections.abc import Mapping, Sequence

    from actors.protocol import Explained


def _parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="legato mcp", description="The MCP servers of .mcp.json and the global config."
    )
    commands = parser.add_subparsers(dest="action", metavar="list", required=True)
    listing = commands.add_parser("list", help="list the servers and where each came from")
    listing.add_argument("project_path", nargs="?", default=None, help="(default: here)")
    # The memory store is started as a session's would be, with no flags to override.
    listing.set_defaults(model=None, permission_mode=None)
    return parser


def run_mcp(argv: Sequence[str], *, env: Mapping[str, str] | None = None) -> int:
    args = _parser().parse_args(list(argv))
    env = os.environ if env is None else env
    from actors.errors import LegatoError
    from actors.protocol import ExplainContext
    from frontends.asking import ask_actors

    memory = memory_store(args, env)
    try:
        explained: Explained = ask_actors([memory], lambda: memory.address.ask(ExplainContext()))
    except LegatoError as error:
        print(f"legato: {error.describe()}", file=sys.stderr)
        return error.exit_code
    context = explained.context
    if context.mcp_servers:
        print(f"MCP servers for {context.project_root} ({NOT_STARTED})")
        print(*mcp_server_lines(context.mcp_servers), sep="\n")
    else:
        print(f"No MCP servers for {context.project_root} (.mcp.json or the global config)")
    for warning in context.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    return EXIT_OK
