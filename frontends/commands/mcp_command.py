"""``legato mcp``: the MCP servers a session here would have, and approving a project's.

    legato mcp list [project_path]
    legato mcp approve [--project PATH] (NAME... | --all)
    legato mcp revoke [--project PATH] NAME...

None starts a server or a session: only the memory store, which reads .mcp.json and the global
config as a session would (a bad entry exits 2, as it would stop the session). ``list`` shows
what each server runs and, for a project's, whether it is approved. ``approve`` prints what
each server runs, then records the approval in the user's own folder (never the project's, see
docs/mcp.md): the next session starts it. ``revoke`` forgets an approval. Exit codes: 0 done,
2 a name that is not configured (the message lists the known ones), or a bad file.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from actors.errors import EXIT_OK
from actors.visible import printed_visibly
from frontends.commands.arguments import Parser, session_options
from frontends.commands.listings import NOT_STARTED, mcp_server_lines
from frontends.commands.mcp_notes import is_project_server
from frontends.errors_out import report, warn

if TYPE_CHECKING:
    import argparse
    from collections.abc import Mapping, Sequence

    from actors.protocol import McpServer, ProjectContext
    from frontends.session import MemoryStore


def _parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="legato mcp", description="The MCP servers of .mcp.json and the global config."
    )
    commands = parser.add_subparsers(dest="action", metavar="list|approve|revoke", required=True)
    listing = commands.add_parser("list", help="list the servers, what each runs, and approvals")
    listing.add_argument("project_path", nargs="?", default=None, help="(default: here)")
    approve = commands.add_parser(
        "approve", help="approve project servers (after showing what they run)"
    )
    approve.add_argument("names", nargs="*", metavar="NAME", help="servers of .mcp.json")
    approve.add_argument("--all", action="store_true", help="every unapproved project server")
    revoke = commands.add_parser("revoke", help="forget the approval of project servers")
    revoke.add_argument("names", nargs="+", metavar="NAME")
    for sub in (approve, revoke):
        sub.add_argument("--project", dest="project_path", default=None, help="(default: here)")
    # The memory store is started as a session's would be, with no flags to override.
    parser.set_defaults(model=None, permission_mode=None)
    for sub in (listing, approve, revoke):
        sub.set_defaults(model=None, permission_mode=None)
    return parser


@printed_visibly
def run_mcp(argv: Sequence[str], *, env: Mapping[str, str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(list(argv))
    if args.action == "approve" and bool(args.names) == args.all:
        parser.error("approve takes server names or --all, one of them")
    env = os.environ if env is None else env
    from actors.errors import LegatoError
    from actors.protocol import GetContext
    from frontends.commands.asking import ask_actors
    from frontends.session import memory_store

    memory = memory_store(session_options(args, env))
    try:
        if args.action == "list":
            context = ask_actors([memory], lambda: memory.address.ask(GetContext()))
            _list(context)
        elif args.action == "approve":
            _approve(memory, args)
        else:
            _revoke(memory, args.names)
    except LegatoError as error:
        return report(error, program="legato mcp")
    return EXIT_OK


def _list(context: ProjectContext) -> None:
    if context.mcp_servers:
        print(f"MCP servers for {context.project_root} ({NOT_STARTED})")
        print(*mcp_server_lines(context.mcp_servers), sep="\n")
    else:
        print(f"No MCP servers for {context.project_root} (.mcp.json or the global config)")
    _warn(context)


def _approve(memory: MemoryStore, args: argparse.Namespace) -> None:
    from actors.protocol import ApproveProjectMcpServers, GetContext
    from frontends.commands.asking import ask_actors

    async def approving() -> tuple[ProjectContext, tuple[McpServer, ...]]:
        context = await memory.address.ask(GetContext())
        # First: a warning may say why a name is not among the servers (one refused for
        # asking for Legato's key), before the error that says it is unknown.
        _warn(context)
        names = tuple(args.names)
        if args.all:
            names = tuple(s.name for s in context.mcp_servers if not s.approved)
        if not names:
            return context, ()
        # Before anything is recorded, so that an unknown name changes nothing.
        shown = [s for s in context.mcp_servers if s.name in names]
        if len(shown) == len(set(names)):
            print("Approving what these servers run:")
            print(*mcp_server_lines(shown, approval=False), sep="\n")
        return context, await memory.address.ask(ApproveProjectMcpServers(names=names))

    context, approved = ask_actors([memory], approving)
    if not approved:
        print(f"Every MCP server for {context.project_root} is already approved.")
    for server in approved:
        if is_project_server(server):
            print(f"Approved {server.name}: the next session here starts it.")
        else:
            print(f"{server.name} is the global config's ({server.source}): always approved.")


def _revoke(memory: MemoryStore, names: Sequence[str]) -> None:
    from actors.protocol import RevokeProjectMcpServers
    from frontends.commands.asking import ask_actors

    revoked = ask_actors(
        [memory], lambda: memory.address.ask(RevokeProjectMcpServers(names=tuple(names)))
    )
    for name in names:
        if name in revoked:
            print(f"Revoked {name}: the next session here does not start it.")
        else:
            print(f"{name} was not approved here: nothing to revoke.")


def _warn(context: ProjectContext) -> None:
    for warning in context.warnings:
        warn(warning, program="legato mcp")
