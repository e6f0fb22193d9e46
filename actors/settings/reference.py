"""The reference assistant's settings files (``.claude/settings.json``,
``.claude/settings.local.json``, ``~/.claude/settings.json``, ``--settings``), validated, and
the ``permissions`` object that Legato's own files accept too, so that a line can be copied
across.

Only the keys Legato acts on have fields; the reference has many more and adds keys over time,
so the others are not errors nor did-you-mean warnings: the loader lists them as not acted on
(``legato doctor``, ``legato config``), each with its file and line.
"""

from __future__ import annotations

from typing import Annotated, Literal, get_args

import msgspec

from actors.settings.declared import STATUS_LINE, StatusLine
from actors.settings.words import strings

DefaultMode = Literal["default", "acceptEdits", "plan", "dontAsk", "bypassPermissions"]
"""The reference's permission modes, as ``permissions.defaultMode`` and ``--permission-mode``
write them."""
DEFAULT_MODES: tuple[DefaultMode, ...] = get_args(DefaultMode)


def _rules(description: str) -> msgspec.Meta:
    example = ["Bash(npm run test:*)", "Read(./secrets/**)", "mcp__github"]
    return strings(description, each="a rule string", many="rules", example=example)


class Permissions(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    """The ``permissions`` object: rules in the reference's syntax (actors/settings/rules.py),
    the mode a session starts in, and other folders the tools may work in."""

    allow: Annotated[tuple[str, ...], _rules("what the tools may do without a question")] = ()
    ask: Annotated[tuple[str, ...], _rules("what always asks, whatever allows it")] = ()
    deny: Annotated[tuple[str, ...], _rules("what is refused, whatever allows it")] = ()
    default_mode: Annotated[
        DefaultMode | None,
        msgspec.Meta(description="the permission mode a session starts in"),
    ] = None
    additional_directories: Annotated[
        tuple[str, ...],
        strings(
            "other folders the tools work in, as in the project",
            each="a folder path",
            many="folder paths",
            example=["../shared"],
        ),
    ] = ()
    # Only narrows, so it holds from any file, a project's too: no mode and no flag starts or
    # switches the session to bypassPermissions while a file says "disable".
    disable_bypass_permissions_mode: Annotated[
        Literal["disable"] | None,
        msgspec.Meta(
            description="refuse the bypassPermissions mode and --dangerously-skip-permissions",
            extra={"words": '"disable"'},
        ),
    ] = None


ENV = msgspec.Meta(
    description="variables given to the commands, hooks and MCP servers Legato starts",
    extra={"words": 'an object of variable names and values such as {"NODE_ENV": "test"}'},
)
PERMISSIONS = msgspec.Meta(
    description="permission rules, the starting mode and other folders",
    examples=[{"allow": ["Bash(npm run test:*)"], "deny": ["Read(./.env)"]}],
)


EffortLevel = Literal["low", "medium", "high", "xhigh"]
"""The levels a settings file may hold (``max`` applies to one session only, as in the
reference: it is a flag's or a variable's)."""
EFFORT_LEVEL = msgspec.Meta(
    description="how much the model reasons, for the models that take it (--effort wins)"
)


class ReferenceSettings(msgspec.Struct, frozen=True, kw_only=True, rename="camel"):
    """A settings file of the reference's, the keys Legato acts on (``hooks`` is read by
    actors/memory_store/hook_settings.py, as in Legato's own files)."""

    model: Annotated[
        str | None,
        msgspec.Meta(
            description="the model the session uses",
            extra={"words": "a model alias (opus, sonnet, haiku) or a model id"},
        ),
    ] = None
    effort_level: Annotated[EffortLevel | None, EFFORT_LEVEL] = None
    permissions: Annotated[Permissions, PERMISSIONS] = Permissions()
    env: Annotated[dict[str, str], ENV] = msgspec.field(default_factory=dict)
    status_line: Annotated[StatusLine | None, STATUS_LINE] = None
