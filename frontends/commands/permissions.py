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
"""

from __future__ import annotations

import argparse
import os
import re
from typing import TYPE_CHECKING, Literal

from actors.errors import EXIT_OK, UsageError
from actors.settings import SETTINGS_MODES
from actors.visible import escape_controls, printed_visibly
from frontends import errors_out
from frontends.commands.arguments import Parser

if TYPE_CHECKING:
    from collections.abc import Mapping, Sequence

    from actors.protocol import (
        Explained,
        PermissionBrokerMsg,
        PermissionMode,
        PermissionRequest,
        PermissionsReport,
        ProjectContext,
        RuleBehavior,
        RuleScope,
        RuleWritten,
    )
    from runtime import Address

_LABELS = {
    "read": "read",
    "write": "edit",
    "create": "create",
    "run": "run",
    "call": "call",
    "fetch": "fetch",
    "search": "search",
}
_URL = re.compile(r"https?://\S+", re.IGNORECASE)
Force = Literal["path", "command"] | None
_MCP_TOOL = re.compile(r"mcp__[A-Za-z0-9_-]+__[A-Za-z0-9_-]+")


# ── what to ask, and how to show the answers (shared with the interactive session) ─────────


def requests_for(target: str, root: str, force: Force = None) -> tuple[PermissionRequest, ...]:
    """The requests that explain ``target``: a path's read, edit and create, one run, or one
    call of an MCP tool (``mcp__<server>__<tool>``)."""
    from actors.protocol import PermissionRequest

    path = os.path.join(root, os.path.expanduser(target))
    if force is None and _URL.fullmatch(target):
        # Judged by its host, with no DNS lookup: the explanation says what a local address
        # would need instead.
        return (PermissionRequest(tool="WebFetch", kind="fetch", url=target),)
    if force is None and target == "WebSearch" and not os.path.lexists(path):
        return (PermissionRequest(tool="WebSearch", kind="search"),)
    if force is None and _MCP_TOOL.fullmatch(target) and not os.path.lexists(path):
        # The broker finds which configured server the tool belongs to.
        return (PermissionRequest(tool=target, kind="call"),)
    if force == "command" or (force is None and path_reason(target, root) is None):
        return (PermissionRequest(tool="Bash", kind="run", command=target),)
    if os.path.isdir(path):
        return (PermissionRequest(tool="Read", kind="read", paths=(path,)),)
    return (
        PermissionRequest(tool="Read", kind="read", paths=(path,)),
        PermissionRequest(tool="Edit", kind="write", paths=(path,)),
        PermissionRequest(tool="Write", kind="create", paths=(path,)),
    )


# A last word's extension (``.py``, ``.env``, ``.tar``): ``python3.11`` is a command, not a file.
_EXTENSION = re.compile(r"[^/\s]*\.[A-Za-z][A-Za-z0-9_-]*")


def path_reason(target: str, root: str) -> str | None:
    """Why ``target`` is taken for a path (it exists, has a '/', has a file extension), or None
    for a command line: a file that does not exist yet (``src/new.py``) is a path too."""
    if os.path.lexists(os.path.join(root, os.path.expanduser(target))):
        return "it exists"
    if not target or any(char.isspace() for char in target):
        return None
    if "/" in target:
        return "it has a '/'"
    if _EXTENSION.fullmatch(target):
        return "it has a file extension"
    return None


def judged_line(target: str, root: str, force: Force) -> list[str]:
    """What a word naming nothing that exists was taken for (a path or a command) and why, with
    the flag that says otherwise; nothing when a flag said it, the word names something that
    exists, or it is a URL, a tool's name or a line of several words."""
    if force is not None or _URL.fullmatch(target) or target == "WebSearch":
        return []
    if _MCP_TOOL.fullmatch(target) or any(char.isspace() for char in target.strip()):
        return []
    reason = path_reason(target, root)
    if reason == "it exists":
        return []  # what it names is there to see: nothing was guessed
    if reason is None:
        return [f"'{target}' is judged as a command (add --path to judge it as a path)"]
    return [f"'{target}' is judged as a path: {reason} (add --command to judge it as a command)"]


def split_target(argument: str) -> tuple[Force, str]:
    """``--command git push`` -> ("command", "git push"); the session's ``/permissions explain``."""
    word, _, rest = argument.strip().partition(" ")
    if word in ("--path", "--command"):
        return ("path" if word == "--path" else "command"), rest.strip()
    return None, argument.strip()


def decision_lines(report: PermissionsReport) -> list[str]:
    """``read    src/a.py  allowed  by allowedPaths entry 'src/**' ... in <settings file>``."""
    lines = []
    for item in report.assessments:
        reason = item.reason
        if reason.startswith(item.outcome + " "):
            reason = reason[len(item.outcome) + 1 :]  # "allowed  allowed by ..." says it twice
        if item.rules_file is not None:
            reason += f" in {item.rules_file}"
        if item.outcome == "asks":
            reason += " (headless: denied)"
        label = _LABELS[item.kind]
        lines.append(f"{label:<6}  {item.target}  {item.outcome:<7}  {reason}")
    return lines


def rule_lines(report: PermissionsReport) -> list[str]:
    """The rules the broker enforces, by list, and the file they come from; then the rules in
    the reference's syntax, by file and line (deny before ask before allow, whatever file)."""
    if not any(entries for _, entries in report.rules):
        # "Rules: none" above a list of rules would read as if the rules were not applied.
        none = f"Rules: none ({report.rules_file} sets no path, command or tool rules)"
        lines = [] if report.permission_rules else [none]
    else:
        width = max(len(key) for key, _ in report.rules)
        lines = [f"Rules from {report.rules_file}:"]
        for key, entries in report.rules:
            shown = ", ".join(f"'{entry}'" for entry in entries) or "(none)"
            lines.append(f"  {key:<{width}}  {shown}")
    return lines + permission_rule_lines(report)


def permission_rule_lines(report: PermissionsReport) -> list[str]:
    """``Permission rules (deny, then ask, then allow):`` and each file's, line by line."""
    if not report.permission_rules:
        return []
    lines = ["Permission rules (deny, then ask, then allow, whatever file):"]
    by_source: dict[str, list[str]] = {}
    for rule in report.permission_rules:
        where = "" if rule.line is None else f":{rule.line}"
        text = escape_controls(rule.text, newlines=True)
        by_source.setdefault(rule.source, []).append(f"    {where:<5} {rule.behavior:<5}  {text}")
    for source, entries in by_source.items():
        lines.append(f"  {escape_controls(source, newlines=True)}")
        lines += entries
    return lines


async def session_text(argument: str, root: str, broker: Address[PermissionBrokerMsg]) -> str:
    """``/permissions [explain <path or command>]`` in a session: the broker answers by message,
    in the session's current mode and with the answers given so far; raises UsageError."""
    import anyio.to_thread

    from actors.errors import UsageError
    from actors.protocol import ExplainPermissions

    action, _, rest = argument.strip().partition(" ")
    if action == "forget":
        return await _forget(rest.strip(), broker)
    force, target = split_target(rest)
    if action not in ("", "explain") or (action == "explain" and not target):
        raise UsageError(
            f"/permissions {argument.strip()}: not a form it takes",
            remedy="Type /permissions, /permissions explain <path or command>, or "
            "/permissions forget <number>",
        )
    requests: tuple[PermissionRequest, ...] = ()
    if action == "explain":
        requests = await anyio.to_thread.run_sync(requests_for, target, root, force)
    report = await broker.ask(ExplainPermissions(requests=requests))
    lines = [f"Mode: {report.mode} (this session's): {MODE_GRANTS[report.mode]}"]
    if action == "explain":
        lines += judged_line(target, root, force) + decision_lines(report)
    else:
        lines += rule_lines(report) + folder_lines(report) + reply_lines(report)
    return "\n".join(lines)


def folder_lines(report: PermissionsReport) -> list[str]:
    """The other folders the tools work in as in the project, and how each came."""
    from actors.visible import escape_controls

    folders = [(path, "--add-dir or additionalDirectories") for path in report.add_dirs]
    folders += [(path, "added with /add-dir, for this session") for path in report.added_dirs]
    if not folders:
        return []
    lines = ["Other folders the tools work in as in the project:"]
    lines += [f"  {escape_controls(path, newlines=True)}  ({how})" for path, how in folders]
    return lines


# What each mode decides by itself, after the rules and the session's replies.
MODE_GRANTS: dict[PermissionMode, str] = {
    "ask": "asks before anything the rules and your replies do not settle",
    "auto": "reads and edits files inside the project without asking; asks the rest",
    "custom": "allows only what the rules allow; asks the rest",
    "plan": "reads inside the project; refuses writes, commands and MCP calls (Shift+Tab leaves)",
    "dont_ask": "refuses what the rules and your replies do not allow, asking nobody",
    "bypass": "allows everything the rules do not block",
}


def reply_lines(report: PermissionsReport) -> list[str]:
    """The session's ``always``/``never`` replies, numbered for ``/permissions forget``."""
    if not report.replies:
        return ["Your replies: none yet (an 'always' or 'never' to a question is kept here)"]
    lines = ["Your replies this session (/permissions forget <number> removes one):"]
    for number, reply in enumerate(report.replies, 1):
        word = "always" if reply.allowed else "never "
        lines.append(f"  {number}. {word}  {reply.covers}")
    return lines


def mode_note(report: PermissionsReport) -> str | None:
    """After a mode change: whether the replies given earlier still apply (they do, in every
    mode; Plan Mode refuses writes and commands before they are looked at)."""
    count = len(report.replies)
    if not count:
        return None
    one = count == 1
    them = "your 'always'/'never' reply" if one else f"your {count} 'always'/'never' replies"
    apply = "applies" if one else "apply"
    if report.mode == "plan":
        return (
            f"In Plan Mode writes and commands are refused whatever {them} "
            f"{'says' if one else 'say'}; {'it' if one else 'they'} {apply} again when you "
            "leave it (Shift+Tab). /permissions lists them."
        )
    return f"{them.capitalize()} still {apply} in this mode. /permissions lists them."


async def _forget(number: str, broker: Address[PermissionBrokerMsg]) -> str:
    from actors.errors import UsageError
    from actors.protocol import ForgetReply

    if not number.isdigit():
        raise UsageError(
            f"/permissions forget {number}".rstrip() + ": give the number of a reply",
            remedy="Type /permissions to see your replies, numbered, then /permissions forget "
            "<number>",
        )
    forgotten = await broker.ask(ForgetReply(number=int(number)))
    if forgotten is None:
        raise UsageError(
            f"/permissions forget {number}: there is no reply {number}",
            remedy="Type /permissions to see your replies, numbered",
        )
    word = "always" if forgotten.allowed else "never"
    return f"Forgot '{word}' for {forgotten.covers}: Legato asks about it again."


# ── the command ─────────────────────────────────────────────────────────────────────────────


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
            return _write(project, args.action, args.rules, args.scope or "local", env)
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


def _write(
    project: str, action: str, rules: Sequence[str], scope: RuleScope, env: Mapping[str, str]
) -> int:
    """Each rule written by the memory store, which owns the settings files; what happened,
    and what the person still has to do for it to apply."""
    from actors.protocol import WriteRule
    from frontends.commands.asking import ask_actors
    from frontends.session import memory_store
    from frontends.session_options import SessionOptions

    behavior: RuleBehavior | None = None if action == "remove" else action  # type: ignore[assignment]
    memory = memory_store(SessionOptions(project_root=project, env=env, home=env.get("HOME")))

    async def writing() -> list[RuleWritten]:
        return [
            await memory.address.ask(WriteRule(behavior=behavior, text=rule, scope=scope))
            for rule in rules
        ]

    for rule, written in zip(rules, ask_actors([memory], writing), strict=True):
        shown = escape_controls(rule, newlines=True)
        if behavior is None:
            done = f"Removed '{shown}' from" if written.changed else f"'{shown}' is not in"
        elif written.changed:
            done = f"Wrote {behavior} rule '{shown}' to"
        else:
            done = f"The {behavior} rule '{shown}' is already in"
        print(f"{done} {written.path}")
        if behavior is None and not written.changed:
            own = _own_files(project, env)
            for file, where in _written_elsewhere(rule, written.context):
                flag = own.get(os.path.realpath(file))
                if flag is not None:
                    print(f"  It is in {where}: legato permissions remove '{shown}' {flag}")
                else:
                    print(
                        f"  It is in {where}, which 'legato permissions' does not write: take "
                        "it out there"
                    )
        if written.excluded:
            print(f"  (listed in {written.excluded}, so git leaves it out of commits)")
        context = written.context
        waiting = any(
            item.key == "permissions.allow" and item.value == rule for item in context.trust_items
        )
        if behavior == "allow" and waiting and not context.trusted:
            print(
                "  It applies once you trust this project's settings: 'legato trust --show' "
                "lists them, 'legato trust' trusts them."
            )
    return EXIT_OK


def _written_elsewhere(rule: str, context: ProjectContext) -> list[tuple[str, str]]:
    """``(file, where)`` for each other place ``rule`` is written (``file:line``, or the file
    for one held until the project is trusted): most often the reference's
    ``.claude/settings.json``."""
    places = [
        (r.source, f"{r.source}:{r.line}" if r.line else r.source)
        for r in context.permission_rules
        if r.text == rule
    ]
    # A trusted project's rule is in both lists; the first, with its line, names it.
    places += [
        (item.source, item.source)
        for item in context.trust_items
        if item.key.startswith("permissions.") and item.value == rule and item.source
    ]
    by_file: dict[str, str] = {}
    for file, where in places:
        by_file.setdefault(file, where)
    return [(file, escape_controls(where, newlines=True)) for file, where in by_file.items()]


def _own_files(project: str, env: Mapping[str, str]) -> dict[str, str]:
    """The files this command writes (the memory store's three), by real path, with the flag
    that names each."""
    home = env.get("HOME") or os.path.expanduser("~")
    files = {
        os.path.join(project, ".legato", "settings.local.json"): "--local",
        os.path.join(project, ".legato", "settings.json"): "--project",
        os.path.join(home, ".config", "legato", "config.json"): "--user",
    }
    return {os.path.realpath(path): flag for path, flag in files.items()}


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
