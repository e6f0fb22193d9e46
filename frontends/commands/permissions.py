"""``legato permissions``: the mode and the path, command and tool rules, and what they decide.

    legato permissions [--project DIR] [--permission-mode MODE]
    legato permissions explain [--project DIR] [--permission-mode MODE] [--path | --command]
                               <path or command...>
    legato permissions allow|ask|deny|remove RULE... [--local | --project | --user]

For a path it prints the decision for reading it, editing it (writing it when it exists) and
creating it; for a command line, the decision to run it; for an MCP tool's name
(``mcp__<server>__<tool>``), the decision to call it; for an http(s) URL, the decision to fetch
it (WebFetch); for ``WebSearch``, the decision to search the web. A relative path is relative
to the project. The argument is a path when one exists there, or when it is one word with a '/'
or a file extension (``src/new.py``, a file not created yet), else a command line (``--path`` and
``--command`` say which; a guess from the word's shape is said above the decisions); flags come
first, as everything after the first word is the argument.

Each decision is the permission broker's own: the command starts the memory store and the
broker as a session would (the same files, the mode a session would start in) and asks them,
so the rule and the file named are those that decide in a session. The session's
``/permissions`` asks its own broker the same, and lists the session's ``always``/``never``
replies too; ``/permissions forget <number>`` drops one.

``allow``, ``ask`` and ``deny`` write a rule in the reference's syntax (``Bash(npm test:*)``)
into ``permissions`` of Legato's own file: ``--local`` (the default) the personal, git-ignored
``.legato/settings.local.json``, ``--project`` ``.legato/settings.json``, ``--user`` the global
config; ``remove`` takes it out. The memory store writes it (actors/memory_store/rule_file.py).
Exit codes: 0, or 2 for a bad flag, a rule that is not one, or an invalid settings file.

This module is the command: its flags, and what it asks and prints. What a word names and the
requests that explain it: permission_targets.py; how the broker's answer reads:
permission_lines.py (both shared with the session's ``/permissions``, in permission_session.py);
writing and removing rules: permission_writes.py.
"""

from __future__ import annotations

import argparse
import os
from typing import TYPE_CHECKING

from actors.errors import EXIT_OK, UsageError
from actors.settings import SETTINGS_MODES
from actors.visible import printed_visibly
from frontends import errors_out
from frontends.commands.arguments import Parser
from frontends.commands.permission_lines import decision_lines, rule_lines
from frontends.commands.permission_targets import judged_line, requests_for
from frontends.commands.permission_writes import write_rules

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from actors.protocol import (
        Explained,
        PermissionMode,
        PermissionRequest,
        PermissionsReport,
        ProjectContext,
    )
    from frontends.commands.permission_targets import Force


def build_parser() -> argparse.ArgumentParser:
    parser = Parser(
        prog="legato permissions",
        description="Print the permission mode and rules, or what they decide for a path or a "
        "command (legato permissions explain).",
    )
    _common(parser)
    commands = parser.add_subparsers(dest="action", metavar="{explain,allow,ask,deny,remove}")
    explain = commands.add_parser(
        "explain",
        help="what the rules decide for a path (read, edit, create) or a command line (run)",
        description="Print the decision for each operation on a path, or for running a command "
        "line, with the rule and file that decided. Flags come before the argument.",
    )
    _common(explain)
    which = explain.add_mutually_exclusive_group()
    which.add_argument("--path", action="store_true", help="the argument is a path")
    which.add_argument("--command", action="store_true", help="the argument is a command line")
    explain.add_argument(
        "target",
        nargs=argparse.REMAINDER,
        metavar="<path or command>",
        help="a path (relative to the project), a command line, an MCP tool's name, an "
        "http(s) URL (a WebFetch of it) or WebSearch",
    )
    for action, words in _WRITES.items():
        write = commands.add_parser(action, help=words, description=f"{words}.")
        write.add_argument("rules", nargs="+", metavar="RULE", help="e.g. 'Bash(npm run test:*)'")
        where = write.add_mutually_exclusive_group()
        for flag, file in _SCOPES.items():
            where.add_argument(
                f"--{flag}", dest="scope", action="store_const", const=flag, help=f"in {file}"
            )
    return parser


_WRITES = {
    "allow": "write a rule that allows without a question",
    "ask": "write a rule that always asks",
    "deny": "write a rule that refuses",
    "remove": "take a rule out of the file",
}
_SCOPES = {
    "local": ".legato/settings.local.json, personal and git-ignored (the default)",
    "project": ".legato/settings.json, shared with the repository",
    "user": "~/.config/legato/config.json, every project",
}


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--project",
        metavar="DIR",
        default=argparse.SUPPRESS,
        help="the project folder (default: the current one)",
    )
    parser.add_argument(
        "--permission-mode",
        choices=SETTINGS_MODES,
        default=argparse.SUPPRESS,
        help="explain as in this mode (default: as a session would start)",
    )


# This command's own flags: after the path or command they would be read as part of it.
_OWN_FLAGS = frozenset({"--project", "--permission-mode", "--path", "--command"})


@printed_visibly
def run_permissions(argv: Sequence[str], *, env: Mapping[str, str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(list(argv))
    env = os.environ if env is None else env
    words = list(getattr(args, "target", []))
    literal = words[:1] == ["--"]  # '--': everything after is the command, as written
    if literal:
        words = words[1:]
    target = " ".join(words).strip()
    misplaced = [] if literal else [w for w in words if w.split("=")[0] in _OWN_FLAGS]
    if args.action == "explain" and misplaced:
        # Everything after the first word is the command being explained, flags included:
        # 'explain .env --project p' would explain the command '.env --project p'.
        problem = UsageError(
            f"{misplaced[0]} comes after the path or command, where it is read as part of it",
            remedy=f"Put it first (legato permissions explain {misplaced[0]} ... <path or "
            "command>), or write -- before a command that has it",
        )
        return errors_out.report(problem, program="legato permissions explain")
    if args.action == "explain" and not target:
        problem = UsageError(
            "give a path or a command line",
            remedy="legato permissions explain src/app.py, legato permissions explain git push, "
            "or legato permissions explain https://docs.python.org/3/",
        )
        return errors_out.report(problem, program="legato permissions explain")
    from actors.errors import LegatoError

    if args.action in _WRITES:
        project = os.path.abspath(getattr(args, "project", None) or os.getcwd())
        try:
            return write_rules(project, args.action, args.rules, args.scope or "local", env)
        except LegatoError as error:
            return errors_out.report(error, program=f"legato permissions {args.action}")
    explaining: tuple[str, Force] | None = None  # the path or command, and what it is
    if args.action == "explain":
        explaining = (target, "path" if args.path else "command" if args.command else None)
    try:
        explained, report = _ask(
            os.path.abspath(getattr(args, "project", None) or os.getcwd()),
            getattr(args, "permission_mode", None),
            env,
            explaining,
        )
    except LegatoError as error:
        return errors_out.report(error, program="legato permissions")
    for warning in explained.context.warnings:
        errors_out.warn(warning, program="legato permissions")
    mode = next(s for s in explained.settings if s.key == "permissionMode")
    print(f"Mode: {report.mode} (from {mode.source})")
    if explaining is None:
        lines = rule_lines(report)
    else:
        target, force = explaining
        lines = judged_line(target, explained.context.project_root, force)
        lines += decision_lines(report)
    print("\n".join([*lines, *held_lines(explained.context)]))
    return EXIT_OK


def held_lines(context: ProjectContext) -> list[str]:
    """What the project's files would allow once trusted: without it, an allow rule the
    person wrote seems simply missing from the rules and the decisions."""
    if context.trusted:
        return []
    keys = sorted({item.key.split(".")[0] if item.key.startswith("env.") else item.key
                   for item in context.trust_items if item.key != "hooks"})  # fmt: skip
    count = sum(item.key != "hooks" for item in context.trust_items)
    if not count:
        return []
    return [
        f"Not applied until you trust this project: {count} setting{'s' * (count > 1)} of its "
        f"files ({', '.join(keys)}); 'legato trust --show' lists them, 'legato trust' applies "
        "them"
    ]


def _ask(
    project: str,
    mode: PermissionMode | None,
    env: Mapping[str, str],
    explaining: tuple[str, Force] | None,
) -> tuple[Explained, PermissionsReport]:
    """The memory store's settings and their sources, and the broker's rules, with its
    decisions on what is explained; raises the LegatoError that stops the store starting."""
    import anyio.to_thread

    from actors.protocol import ExplainContext, ExplainPermissions
    from frontends.commands.asking import ask_actors
    from frontends.session import memory_store, permission_broker
    from frontends.session_options import SessionOptions

    options = SessionOptions(
        project_root=project, permission_mode=mode, env=env, home=env.get("HOME")
    )
    memory = memory_store(options)
    broker = permission_broker(memory)  # no UI: what would ask is reported as "asks"

    async def questions() -> tuple[Explained, PermissionsReport]:
        explained = await memory.address.ask(ExplainContext())
        requests: tuple[PermissionRequest, ...] = ()
        if explaining is not None:
            target, force = explaining
            root = explained.context.project_root
            requests = await anyio.to_thread.run_sync(requests_for, target, root, force)
        return explained, await broker.address.ask(ExplainPermissions(requests=requests))

    return ask_actors([memory, broker], questions)
