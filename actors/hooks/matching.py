"""Which configured groups an event runs, by Claude Code's matcher rules.

A matcher of letters, digits, ``_`` and ``|`` only names tools exactly (``Edit|Write`` matches
Edit and Write, never NotebookEdit); any other character makes it a regular expression, searched
anywhere in the name as JavaScript's ``RegExp.test`` does (``mcp__github__.*``). ``""`` and
``"*"`` match everything. Tool events match the tool's name; SessionStart matches the payload's
``source`` and PreCompact its ``trigger``; the other events ignore the matcher.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import Sequence

    from actors.protocol import HookCommand, HookEvent, HookGroup

TOOL_EVENTS = frozenset({"PreToolUse", "PostToolUse"})
# The events whose matcher matches a field of the payload instead of a tool's name.
MATCHED_FIELD = {"SessionStart": "source", "PreCompact": "trigger"}
_NAMES = re.compile(r"[A-Za-z0-9_|]*")


def subject(event: HookEvent, payload: dict[str, Any], tool_name: str | None) -> str | None:
    """What the matchers of ``event`` are matched against; None: every group runs."""
    if event in TOOL_EVENTS:
        return tool_name or str(payload.get("tool_name", ""))
    field = MATCHED_FIELD.get(event)
    if field is None:
        return None
    value = payload.get(field)
    return value if isinstance(value, str) else ""


def matches(matcher: str, name: str) -> bool:
    """Whether ``matcher`` selects ``name``; raises ``re.error`` for an invalid expression."""
    if matcher in ("", "*"):
        return True
    if _NAMES.fullmatch(matcher):
        return name in matcher.split("|")
    return re.search(matcher, name) is not None


def select(
    groups: Sequence[HookGroup], event: HookEvent, name: str | None
) -> tuple[list[tuple[HookCommand, str]], list[str]]:
    """The commands to run, each with its source, in configured order and each command once;
    and the errors of matchers that are not valid expressions (they match nothing)."""
    # By command and callback: a shell command that reads like a callback's name is not it.
    chosen: dict[tuple[str, str | None], tuple[HookCommand, str]] = {}
    errors: list[str] = []
    for group in groups:
        if group.event != event:
            continue
        if name is not None:
            try:
                if not matches(group.matcher, name):
                    continue
            except re.error as exc:
                errors.append(f"{group.source}: {event} matcher {group.matcher!r}: {exc}")
                continue
        for hook in group.hooks:
            chosen.setdefault((hook.command, hook.callback), (hook, group.source))
    return list(chosen.values()), errors
