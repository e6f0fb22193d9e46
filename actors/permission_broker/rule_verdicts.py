"""Which rule in the reference's syntax decides a request, for each behavior: the policy asks
deny first, then ask, then allow (``rule_set.py`` says how each form matches).

A request is matched by its tool's name (bare-name rules), then by what it touches: a web
fetch's host (``WebFetch(domain:...)``); a file tool's paths; a command line's simple
commands, the targets of its redirections and the paths its words name (``cat .env`` reads
``.env``, as a ``Read`` rule means), judged as changes, so that ``Read`` and ``Edit`` deny
rules both hold against a command.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from actors.permission_broker.arguments import named_paths
from actors.permission_broker.rules import Judgement
from actors.permission_broker.tool_rules import describe_tool

if TYPE_CHECKING:
    from actors.permission_broker.rule_set import Ruled
    from actors.permission_broker.rules import Rules
    from actors.permission_broker.shell import CommandLine
    from actors.protocol import OperationKind, PermissionRequest
    from actors.settings.rules import RuleBehavior

Hit = tuple["Ruled", str]  # the rule, and what of the request it matched, in words


def matching(
    rules: Rules, behavior: RuleBehavior, request: PermissionRequest, line: CommandLine | None
) -> Hit | None:
    """The first ``behavior`` rule that matches any part of ``request``."""
    found = rules.reference
    if not found:
        return None
    ruled = found.tool(behavior, request.tool, request.server)
    if ruled is not None:
        return ruled, f"tool {describe_tool(request.tool, request.server)}"
    if request.kind in ("call", "search"):
        return None
    if request.kind == "fetch":
        host = request.host or ""
        ruled = found.domain(behavior, host)
        return None if ruled is None else (ruled, f"domain '{host}'")
    paths: list[str] = list(request.paths)
    if request.kind == "run":
        if line is not None:
            command = found.command(behavior, line)
            if command is not None:
                return command[0], f"command '{command[1]}'"
            paths += [path for _, path, _ in named_paths(line, rules.root)]
            paths += [r.target for r in line.redirects if r.target is not None]
        return _paths(rules, behavior, "write", paths)
    return _paths(rules, behavior, request.kind, paths or [rules.root])


def _paths(
    rules: Rules, behavior: RuleBehavior, kind: OperationKind, paths: list[str]
) -> Hit | None:
    found = rules.reference
    for path in dict.fromkeys(paths):
        written, resolved = rules.paths.written(path), rules.paths.resolve(path)
        ruled = found.path(behavior, kind, written, resolved)
        if ruled is not None:
            return ruled, f"path '{rules.show(path)}'"
    return None


def denied(rules: Rules, request: PermissionRequest, line: CommandLine | None) -> Judgement | None:
    """A deny rule's "blocked" verdict, naming the rule, its file and line."""
    hit = matching(rules, "deny", request, line)
    if hit is None and request.kind == "run" and line is not None:
        could = rules.reference.could_match("deny", line)
        if could is not None:
            ruled, text = could
            return Judgement(
                "unknowable",
                f"'{text}' might run what {ruled.named} denies; its words are only known when "
                "it runs",
                names_file=True,
            )
    if hit is None:
        return None
    ruled, what = hit
    return Judgement(
        "blocked",
        f"denied by {ruled.named} ({what})",
        remedy="A deny rule holds in every mode and no reply overrides it; to allow this, "
        f"remove the rule from {ruled.rule.source}",
        names_file=True,
    )


def asked(
    rules: Rules, request: PermissionRequest, line: CommandLine | None
) -> tuple[str, str] | None:
    """Why an ask rule wants a person for ``request``, and the file that holds the rule."""
    hit = matching(rules, "ask", request, line)
    if hit is None and request.kind == "run" and line is not None:
        could = rules.reference.could_match("ask", line)
        if could is not None:
            ruled, text = could
            why = (
                f"'{text}' might run what {ruled.named} names (its words are only known when "
                "it runs)"
            )
            return why, ruled.rule.source
    if hit is None:
        return None
    ruled, what = hit
    return f"{ruled.named} matches ({what})", ruled.rule.source


def allowed(rules: Rules, request: PermissionRequest) -> Judgement | None:
    """An allow rule that covers the whole request: its tool, or every path it names (a
    command's allow rules are entries of the command walk in ``rules.py``)."""
    found = rules.reference
    if not found:
        return None
    ruled = found.tool("allow", request.tool, request.server)
    if ruled is not None:
        return Judgement("allowed", f"allowed by {ruled.named}", names_file=True)
    if request.kind in ("call", "run", "search"):
        return None
    if request.kind == "fetch":
        ruled = found.domain("allow", request.host or "")
        if ruled is None:
            return None
        return Judgement("allowed", f"allowed by {ruled.named}", names_file=True)
    names: list[str] = []
    for path in request.paths or (rules.root,):
        written, resolved = rules.paths.written(path), rules.paths.resolve(path)
        ruled = found.path("allow", request.kind, written, resolved)
        if ruled is None:
            return None
        names.append(f"{ruled.named} (path '{rules.show(path)}')")
    return Judgement("allowed", "allowed by " + ", ".join(dict.fromkeys(names)), names_file=True)
