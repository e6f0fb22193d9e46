"""The Agent SDK's ``hooks`` option, as its ``initialize`` control request sends it, read into
hook groups for ``Overrides.hooks``.

    {"PreToolUse": [{"matcher": "Bash", "hookCallbackIds": ["hook_0"], "timeout": 30,
                     "onFailure": "block"}], ...}

Each callback id becomes one callback command of its group, run through the frontend
(actors/hooks/callback.py). The input comes over a pipe from another program, so nothing here
raises: what cannot be used is left out and named in a problem (``hooks.<Event>[i].<field>``),
for the frontend to report. Only what would weaken a hook is refused: a bad ``timeout`` falls
back to the default, and an ``onFailure`` other than ``"continue"`` blocks, as the SDK's own
CLI reads it, so that a guard meant to fail closed never fails open.
"""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from actors.memory_store.hook_settings import (
    DEFAULT_TIMEOUT,
    EVENTS,
    MATCH_ALL,
    MATCHED,
    matcher_problem,
)
from actors.settings import HookCommand, HookGroup
from actors.settings.jsonpos import format_path

if TYPE_CHECKING:
    from collections.abc import Callable

    from actors.settings import HookEvent

SOURCE = "the Agent SDK's hooks option"
_SHOWN = 60  # characters of a value quoted in a problem: the input may be anything


def read_sdk_hooks(hooks: object) -> tuple[tuple[HookGroup, ...], list[str]]:
    """The groups of ``hooks`` (the initialize request's field; None: there are none), in the
    order given, and the problems with what was left out or changed."""
    problems: list[str] = []
    if hooks is None:
        return (), problems
    if not isinstance(hooks, dict):
        problems.append(f"hooks: must be an object of hook events, not {_kind(hooks)}")
        return (), problems
    out: list[HookGroup] = []
    for event, matchers in hooks.items():
        if event not in EVENTS:
            problems.append(
                f"hooks: unknown hook event {_shown(event)} is skipped; Legato runs "
                f"{', '.join(EVENTS)}"
            )
            continue
        if not isinstance(matchers, list):
            problems.append(f"hooks.{event}: must be a list of matchers, not {_kind(matchers)}")
            continue
        for index, entry in enumerate(matchers):
            group = _group(event, entry, ("hooks", event, index), problems)
            if group is not None:
                out.append(group)
    return tuple(out), problems


def _group(
    event: HookEvent, entry: object, at: tuple[str | int, ...], problems: list[str]
) -> HookGroup | None:
    def problem(field: str | None, text: str) -> None:
        problems.append(f"{format_path((*at, field) if field else at)}: {text}")

    if not isinstance(entry, dict):
        problem(None, f"must be an object with hookCallbackIds, not {_kind(entry)}")
        return None
    matcher = entry.get("matcher")
    if matcher is None:
        matcher = ""  # the SDK's "every tool"
    if not isinstance(matcher, str):
        problem(
            "matcher", f"must be a string or null, not {_kind(matcher)}; the matcher is left out"
        )
        return None
    if event not in MATCHED:
        matcher = ""  # as in the settings files: accepted, and ignored
    elif matcher not in MATCH_ALL:
        error = matcher_problem(matcher)
        if error is not None:
            problem("matcher", f"{_shown(matcher)} is not a valid regular expression: {error}")
            return None
    ids = entry.get("hookCallbackIds")
    if not isinstance(ids, list):
        problem("hookCallbackIds", f"must be a list of callback ids, not {_kind(ids)}")
        return None
    timeout = _timeout(entry.get("timeout"), problem)
    failure = entry.get("onFailure")
    if failure not in (None, "continue", "block"):
        problem("onFailure", f'{_kind(failure)} is read as "block", as the SDK\'s CLI reads it')
    block = failure is not None and failure != "continue"
    commands: list[HookCommand] = []
    for number, callback in enumerate(ids):
        if not isinstance(callback, str) or not callback.strip():
            problem(f"hookCallbackIds[{number}]", f"must be a callback id, not {_kind(callback)}")
            continue
        commands.append(
            HookCommand(
                # Whole: two callbacks must never read as one (the runner runs a command once).
                command=f"Agent SDK callback {callback}",
                timeout=timeout,
                callback=callback,
                block_on_failure=block,
            )
        )
    return HookGroup(event=event, matcher=matcher, hooks=tuple(commands), source=SOURCE)


def _timeout(value: object, problem: Callable[[str | None, str], None]) -> float:
    if value is None:
        return DEFAULT_TIMEOUT
    if (
        isinstance(value, bool)
        or not isinstance(value, int | float)
        or not math.isfinite(value)
        or value <= 0
    ):
        problem(
            "timeout",
            f"must be a positive number of seconds, not {_kind(value)}; "
            f"the default ({DEFAULT_TIMEOUT:g} s) is used",
        )
        return DEFAULT_TIMEOUT
    return float(value)


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= _SHOWN else text[: _SHOWN - 3] + "..."


def _kind(value: object) -> str:
    match value:
        case None:
            return "null"
        case bool():
            return "true" if value else "false"
        case int() | float() | str():
            return _shown(value)
        case list():
            return "a list"
        case dict():
            return "an object"
    return type(value).__name__
