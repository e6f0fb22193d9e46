"""The user's hooks, in Claude Code's format, from the global config and the project's settings.

    {"hooks": {"<Event>": [{"matcher": "<regex>",
                            "hooks": [{"type": "command", "command": "...", "timeout": 60}]}]}}

Both files' hooks apply: the global config's first, then the project's, each in file order.
A matcher chooses by the tool's name (PreToolUse, PostToolUse), by how the session started
(SessionStart) or by how compaction came (PreCompact), by the runner's rules
(actors/hooks/matching.py): a plain name exactly, anything else as a regular expression, which
is compiled here so that a bad one stops the session at its start rather than matching nothing;
``"*"``, ``""`` or no matcher matches everything. The other events have no matcher: one written
there is accepted and ignored, as Claude Code does (its group holds ``""``). Only command hooks
exist here: Claude Code's ``prompt`` and ``agent`` types are refused by name, so that a copied
entry does not silently do nothing. Reading the hooks runs nothing (docs/hooks.md).
"""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING, Any, get_args

from actors.errors import ConfigError
from actors.settings import HOOK_TIMEOUT, HookCommand, HookEvent, HookGroup
from actors.settings.jsonpos import format_path

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

    from actors.settings.jsonpos import JsonPath, Position

    # The error for a message at a field path (its line found from the path), with a remedy.
    Fail = Callable[..., ConfigError]
    # Warns of the keys of an entry that are not among the known ones.
    Unknown = Callable[..., None]

EVENTS: tuple[HookEvent, ...] = get_args(HookEvent)
# The events whose hooks a matcher chooses; on the others a matcher is ignored.
MATCHED: frozenset[HookEvent] = frozenset(
    {"PreToolUse", "PostToolUse", "SessionStart", "PreCompact"}
)
MATCH_ALL = ("", "*")
DEFAULT_TIMEOUT = HOOK_TIMEOUT
_GROUP_KEYS = ("matcher", "hooks")
_HOOK_KEYS = ("type", "command", "timeout")
_REMEDY = "Fix the entry (docs/hooks.md describes the format), or remove it"
_EXAMPLE = '{"PreToolUse": [{"matcher": "Bash", "hooks": [{"type": "command", "command": "..."}]}]}'


def read_hooks(
    path: str,
    raw: Mapping[str, Any],
    positions: Mapping[JsonPath, Position],
    warnings: list[str],
) -> tuple[HookGroup, ...]:
    """The ``hooks`` of one decoded settings file (``raw``, its key ``positions``), in file
    order, each with ``source`` = ``path``. Raises ConfigError naming the line and the field."""

    def fail(message: str, *steps: str | int, remedy: str = _REMEDY) -> ConfigError:
        line = next(
            (positions[steps[:n]].line for n in range(len(steps), 0, -1) if steps[:n] in positions),
            1,
        )
        return ConfigError(message, path=path, line=line, field=format_path(steps), remedy=remedy)

    def unknown(keys: tuple[str, ...], entry: Mapping[str, Any], *at: str | int) -> None:
        for key in entry:
            if key not in keys:
                where = positions.get((*at, key))
                place = f"{path}:{where.line}" if where else path
                shown = format_path((*at, key))
                warnings.append(
                    f"{place}: unknown key '{shown}' is ignored; the known keys are "
                    f"{', '.join(keys)}"
                )

    if "hooks" not in raw:
        return ()
    events = raw["hooks"]
    if not isinstance(events, dict):
        raise fail(f"must be an object of events, such as {_EXAMPLE}", "hooks")
    out: list[HookGroup] = []
    for event, groups in events.items():
        if event not in EVENTS:
            raise fail(
                f"unknown hook event {event!r}{_did_you_mean(event)}",
                "hooks",
                event,
                remedy=f"Use one of {', '.join(EVENTS)}, or remove it",
            )
        if not isinstance(groups, list):
            raise fail('must be a list of {"matcher": ..., "hooks": [...]} entries', "hooks", event)
        for index, group in enumerate(groups):
            at = ("hooks", event, index)
            if not isinstance(group, dict):
                raise fail('must be an object such as {"matcher": ..., "hooks": [...]}', *at)
            unknown(_GROUP_KEYS, group, *at)
            out.append(
                HookGroup(
                    event=event,
                    matcher=_matcher(event, group.get("matcher", ""), fail, at),
                    hooks=_commands(group, fail, unknown, at),
                    source=path,
                )
            )
    return tuple(out)


def _matcher(event: HookEvent, matcher: Any, fail: Fail, at: JsonPath) -> str:
    if not isinstance(matcher, str):
        raise fail(
            f'must be a string (a regular expression such as "Edit|Write"), not {_kind(matcher)}',
            *at,
            "matcher",
        )
    if event not in MATCHED:
        return ""  # accepted and ignored, as Claude Code does: the group runs every time
    # "*" is Claude Code's word for every tool, not a regular expression (it would not compile).
    if matcher not in MATCH_ALL:
        error = matcher_problem(matcher)
        if error is not None:
            raise fail(
                f"{matcher!r} is not a valid regular expression: {error}",
                *at,
                "matcher",
                remedy='Fix the expression (e.g. "Edit|Write", "mcp__.*"), or write "*" for '
                "every tool",
            ) from None
    return matcher


def _commands(
    group: Mapping[str, Any], fail: Fail, unknown: Unknown, at: JsonPath
) -> tuple[HookCommand, ...]:
    if "hooks" not in group:
        raise fail('has no "hooks": the list of commands to run', *at)
    hooks = group["hooks"]
    if not isinstance(hooks, list):
        raise fail('must be a list such as [{"type": "command", "command": "..."}]', *at, "hooks")
    out: list[HookCommand] = []
    for index, hook in enumerate(hooks):
        here = (*at, "hooks", index)
        if not isinstance(hook, dict):
            raise fail('must be an object such as {"type": "command", "command": "..."}', *here)
        unknown(_HOOK_KEYS, hook, *here)
        if "type" not in hook:
            raise fail('has no "type"', *here, remedy='Add "type": "command"')
        kind = hook["type"]
        if kind != "command":
            shown = repr(kind) if isinstance(kind, str) else _kind(kind)
            raise fail(
                f"type {shown} is not supported: only command hooks are (not prompt or agent "
                "hooks)",
                *here,
                "type",
                remedy='Write "type": "command" with a command that does the check, or remove '
                "the hook",
            )
        remedy = 'Set "command" to the shell command to run, e.g. "ruff format ."'
        if "command" not in hook:
            raise fail('has no "command"', *here, remedy=remedy)
        command = hook["command"]
        if not isinstance(command, str) or not command.strip():
            problem = (
                "is empty: there is nothing to run"
                if isinstance(command, str)
                else (f"must be a string, not {_kind(command)}")
            )
            raise fail(problem, *here, "command", remedy=remedy)
        timeout = hook.get("timeout", DEFAULT_TIMEOUT)
        if (
            isinstance(timeout, bool)
            or not isinstance(timeout, int | float)
            or not math.isfinite(timeout)
            or timeout <= 0
        ):
            raise fail(
                f"must be a positive number of seconds, not {_kind(timeout)}",
                *here,
                "timeout",
                remedy=f'Set "timeout" to a number of seconds such as 30, or remove it for the '
                f"default ({DEFAULT_TIMEOUT:g} s)",
            )
        out.append(HookCommand(command=command, timeout=float(timeout)))
    return tuple(out)


def _did_you_mean(event: str) -> str:
    # Compared case-blind, so that 'preToolUse' and 'pre_tool_use' find their event.
    by_lower = {known.lower(): known for known in EVENTS}
    import difflib  # only for an event name that is not one: not on every run's way

    close = difflib.get_close_matches(event.lower().replace("_", ""), list(by_lower), n=1)
    return f"; did you mean '{by_lower[close[0]]}'?" if close else ""


def _kind(value: Any) -> str:
    match value:
        case None:
            return "null"
        case bool():
            return "true" if value else "false"
        case int() | float():
            return repr(value)
        case str():
            return repr(value) if value.strip() else "an empty string"
        case list():
            return "a list"
        case dict():
            return "an object"
    return type(value).__name__


# Deeper than any real matcher. Python's regex compiler recurses once per level, and whether
# it runs out of stack depends on where it is called from: the limit is set here instead.
MAX_NESTING = 100


def matcher_problem(matcher: str) -> str | None:
    """Why ``matcher`` is not a usable regular expression, or None when it compiles."""
    depth = deepest = 0
    escaped = False
    for char in matcher:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == "(":
            depth += 1
            deepest = max(deepest, depth)
        elif char == ")":
            depth -= 1
    if deepest > MAX_NESTING:
        return f"groups nested {deepest} deep (at most {MAX_NESTING})"
    try:
        re.compile(matcher)
    # OverflowError: a repetition count too large.
    except (re.error, OverflowError, RecursionError) as error:
        return str(error)
    return None
