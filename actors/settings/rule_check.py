"""Checking the rules in the reference's syntax as a session starts, and what they take away
from what the model is offered: the memory store calls ``with_rules_checked`` once over
``ProjectContext.permission_rules``; the conductor asks ``denied_agents``, the tool executor
``denies_paths``.

A rule Legato cannot honour stops the start (ConfigError naming the file, line, field and the
remedy); one that matches less than it says is a warning giving the reason. None is silently
dead.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import msgspec

from actors.counts import counted
from actors.errors import ConfigError
from actors.tool_names import MCP_PREFIX
from actors.visible import escape_controls

if TYPE_CHECKING:
    from collections.abc import Callable, Iterator, Sequence

    from actors.path_entries import PathRule
    from actors.protocol import ProjectContext
    from actors.settings.rule_syntax import ParsedRule
    from actors.settings.rules import PermissionRule

# The parser and the path matcher load with the first rule: a session without any (the most
# common) never imports them (~2 ms).


def check_rules(rules: Sequence[PermissionRule]) -> tuple[str, ...]:
    """The warnings for rules that match less than they say; raise ConfigError, naming the
    file, line, field and remedy, for the first rule Legato cannot honour."""
    if not rules:
        return ()
    from actors.settings.rule_syntax import NO_TOOL_YET, RuleError, parse

    warnings: list[str] = []
    # Rules for the reference's tools Legato has no counterpart for, and those tools.
    held: list[str] = []
    waiting: dict[str, None] = {}
    counts: dict[tuple[str, str], int] = {}
    for rule in rules:
        index = counts.get((rule.source, rule.behavior), 0)
        counts[(rule.source, rule.behavior)] = index + 1
        field = f"permissions.{rule.behavior}[{index}]" if not rule.source.startswith("-") else None
        try:
            parsed = parse(rule.text, rule.behavior)
        except RuleError as error:
            # Escaped: the rule's text, quoted back, comes from a file anyone may have written.
            raise ConfigError(
                f"the rule {rule.text!r} cannot be honoured: "
                + escape_controls(error.reason, newlines=True),
                path=rule.source,
                line=rule.line,
                field=field,
                remedy=escape_controls(error.remedy[:1].upper() + error.remedy[1:], newlines=True),
            ) from None
        where = rule.source if rule.line is None else f"{rule.source}:{rule.line}"
        if parsed.note == NO_TOOL_YET.format(parsed.tool):
            # Common in the reference's files (WebFetch, WebSearch): said in one line, not one
            # a rule on every start.
            waiting[parsed.tool] = None
            held.append(f"{escape_controls(rule.text)!r} at {where}")
        elif parsed.note is not None:
            note = escape_controls(parsed.note, newlines=True)
            warnings.append(f"{where}: {rule.behavior} rule {rule.text!r}: {note}")
    if held:
        more = f" and {len(held) - 3} more" if len(held) > 3 else ""
        warnings.append(
            f"{counted(len(held), 'rule')} for tools Legato does not have yet "
            f"({', '.join(waiting)}) {'acts' if len(held) == 1 else 'act'} on nothing for now: "
            f"{', '.join(held[:3])}{more}"
        )
    return tuple(warnings)


def denied_agents(rules: Sequence[PermissionRule]) -> frozenset[str]:
    """The subagent types a deny rule names (``Agent(Explore)``): none of them starts."""
    return frozenset(
        parsed.specifier
        for _, parsed in _denials(rules)
        if parsed.kind == "agent" and parsed.specifier is not None
    )


def denies_paths(rules: Sequence[PermissionRule]) -> bool:
    """Whether a deny rule names paths (``Read(./.env)``): the sandbox then hides what they
    cover from confined commands, as it does blockedPaths."""
    return any(parsed.kind == "path" for _, parsed in _denials(rules))
    from actors.settings.rule_syntax import RuleError, parse

    for rule in rules:
        if rule.behavior == "deny":
            try:
                if parse(rule.text, rule.behavior).kind == "path":
                    return True
            except RuleError:
                continue
    return False


def removed_tools(rules: Sequence[PermissionRule]) -> tuple[str, ...]:
    """The built-in tools a bare-name deny rule removes from what the model is offered
    (``Bash``, ``Bash(*)``, ``*``)."""
    if not rules:
        return ()
    from actors.settings.rule_syntax import LEGATO_TOOLS, TOOL_FAMILIES, wildcard

    removed: dict[str, None] = {}
    for _, parsed in _denials(rules):
        if parsed.bare:
            for tool in sorted(LEGATO_TOOLS):
                if wildcard(parsed.tool, tool):
                    removed[tool] = None
            for tool in TOOL_FAMILIES.get(parsed.tool, ()):
                removed[tool] = None
    return tuple(removed)


def with_rules_checked(
    context: ProjectContext, written: Sequence[PermissionRule] | None = None
) -> ProjectContext:
    """``context`` as the memory store hands it on: its rules checked (``check_rules``: a
    warning each for what matches less than it says; ConfigError for what cannot be
    honoured), and the built-in tools a bare-name deny rule names removed from what the model
    is offered. ``written``: every rule as the files write them, when the context holds fewer
    (an untrusted project's allow rules are left out, yet a broken one is still its file's
    error, and the index a message gives counts every rule of the file)."""
    rules = context.permission_rules
    checked = rules if written is None else written
    if not rules and not checked:
        return context
    warnings = check_rules(checked)
    removed = tuple(tool for tool in removed_tools(rules) if tool not in context.refused_tools)
    return msgspec.structs.replace(
        context,
        warnings=context.warnings + warnings,
        refused_tools=context.refused_tools + removed,
    )


def path_rule(rule: PermissionRule, parsed: ParsedRule, root: str, home: str) -> PathRule | None:
    """A ``Read``/``Edit`` rule's pattern as the one path matcher reads it (gitignore's,
    through ``actors/path_entries.py``), from the folder its anchor names; None for a rule of
    another kind, or one refused at load."""
    from actors.path_entries import parse_entry
    from actors.path_patterns import PatternError
    from actors.settings.rule_syntax import anywhere

    if parsed.kind != "path" or parsed.specifier is None:
        return None
    pattern, base = parsed.specifier, root
    if parsed.anchor == "source":
        base = os.path.realpath(rule.anchor or root)
    elif parsed.anchor == "project":
        pattern = anywhere(pattern, rule.behavior)
    try:
        return parse_entry(pattern, base, negation=False, home=home)
    except PatternError:
        return None


def denied_reads(
    rules: Sequence[PermissionRule], root: str, home: str
) -> Callable[[str], str | None] | None:
    """The deny ``Read(...)`` rule a path matches, as the broker reads it (the path as
    written and resolved); None without any: what keeps a file out of the instruction files
    and their imports, as it keeps it from the Read tool."""
    if not rules:
        return None
    from actors.path_entries import rule_matches

    denied = [
        (rule, found)
        for rule, parsed in _denials(rules)
        if parsed.tool == "Read" and (found := path_rule(rule, parsed, root, home)) is not None
    ]
    if not denied:
        return None

    def entry(path: str) -> str | None:
        written = os.path.normpath(path)
        for rule, found in denied:
            if any(rule_matches(found, name) for name in (written, os.path.realpath(written))):
                where = rule.source if rule.line is None else f"{rule.source}:{rule.line}"
                return f"the deny rule {escape_controls(rule.text)!r} at {where}"
        return None

    return entry


def removed_mcp_tools(rules: Sequence[PermissionRule]) -> tuple[str, ...]:
    """The names of bare-name deny rules that can name an MCP tool (``mcp__git``,
    ``mcp__git__push``, ``mcp__*``, ``*``): a tool they cover is not offered to the model
    (``mcp_tool_removed`` says which), as a bare deny of a built-in tool removes it."""
    names = (
        parsed.tool
        for _, parsed in _denials(rules)
        if parsed.bare and (parsed.tool.startswith(MCP_PREFIX) or parsed.tool.startswith("*"))
    )
    return tuple(dict.fromkeys(names))


def mcp_tool_removed(names: Sequence[str], tool: str, server: str) -> bool:
    """Whether one of ``removed_mcp_tools``'s names covers ``tool`` of ``server``: the server's
    whole name covers its tools, not a server whose name only starts the same."""
    from actors.settings.rule_syntax import wildcard

    whole = MCP_PREFIX + server
    return any(wildcard(name, tool) if "*" in name else name in (tool, whole) for name in names)


def _denials(rules: Sequence[PermissionRule]) -> Iterator[tuple[PermissionRule, ParsedRule]]:
    """Each deny rule, read; one that does not read is refused at load, so no session holds
    it. The parser is imported with the first rule only."""
    if not rules:
        return
    from actors.settings.rule_syntax import RuleError, parse

    for rule in rules:
        if rule.behavior != "deny":
            continue
        try:
            yield rule, parse(rule.text, rule.behavior)
        except RuleError:
            continue
