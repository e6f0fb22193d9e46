"""What a session is built from, as one value: ``SessionOptions``.

The command line's flags become one here (``from_flags``, once frontends/startup/checks.py has
checked them), for the terminal, ``-p`` and the Agent SDK's stream alike (frontends/headless/
sdk_options.py adds what only the SDK's protocol has), and a subcommand or a
benchmark makes the one it needs; frontends/session.py builds the actors from it, and the
frontends read their own wants (the output format, the turns allowed) from the same value. A
new flag is a field here, its line in ``from_flags``, and the code that uses it.

Only msgspec and the flags' defaults are imported: the value is made on the one-turn start path,
before any actor (or httpx) is loaded.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import msgspec

from frontends.startup.flags import DEFAULT_MAX_TURNS, DEFAULT_STREAM_TIMEOUT

if TYPE_CHECKING:
    import argparse
    from collections.abc import Mapping

    from actors.hooks import Invoke
    from actors.protocol import Overrides, PermissionMode
    from actors.reasoning import Reasoning
    from actors.ui import Renderer

__all__ = ["SessionOptions", "from_flags"]


class SessionOptions(msgspec.Struct, frozen=True, kw_only=True):
    """One session's options. Frozen, so that whoever is handed it cannot change what another
    part of the session was built from; a variation is a new value (``msgspec.structs.replace``).
    A msgspec ``Struct`` rather than a dataclass: msgspec is loaded for the messages anyway,
    where ``dataclasses`` would cost every start its import, and the actors' values are Structs
    too. Nothing here is encoded: the annotations are for mypy, not for msgspec."""

    project_root: str  # absolute
    headless: bool = False  # no person at a terminal: a question the rules would ask is denied
    model: str | None = None  # the flag's alias or id; None: the settings' model
    permission_mode: PermissionMode | None = None  # Legato's name; None: the settings' mode
    env: Mapping[str, str] | None = None  # None: the process's environment
    home: str | None = None  # None: the user's home
    session_id: str | None = None  # None: a new id
    resume: bool = False  # go on with the saved session ``session_id`` (--continue, --resume)
    # --session-mirror: the saved events also go to the driving program's session store, and a
    # session resumed from it is read where it put them (actors/session_store/mirror.py).
    session_mirror: bool = False
    max_parallel: int | None = None  # None: the tool executor's defaults
    stream_timeout: float = DEFAULT_STREAM_TIMEOUT  # seconds without a byte before a retry
    # What the frontend shows and how long it lets the model go on.
    output_format: str = "text"
    max_turns: int = DEFAULT_MAX_TURNS
    # --json-schema, parsed and checked: every prompt's answer is a value valid against it.
    json_schema: dict[str, Any] | None = None
    # --effort and the thinking flags, checked; None: the model's defaults.
    reasoning: Reasoning | None = None
    # --max-budget-usd: no request whose input would take a run's spend over it is sent.
    max_budget_usd: float | None = None
    # --fallback-model, resolved: the run goes on with it once the model is overloaded.
    fallback_model: str | None = None
    partial_messages: bool = False  # stream-json: the answer's deltas as they come
    hook_events: bool = False  # stream-json: each hook's start and end
    # The driving program's options (the Agent SDK's): they replace ``model`` and
    # ``permission_mode`` when given.
    overrides: Overrides | None = None
    # Who answers the broker's questions in a headless session (the driving program); None:
    # an interactive session asks its renderer, a headless one denies.
    asker: Renderer | None = None
    # Runs the driving program's callback hooks (the Agent SDK's ``hooks``).
    hook_callbacks: Invoke | None = None
    # The interactive session's first prompt (``legato "explain this project"``), sent as if
    # typed once the session is up.
    initial_prompt: str | None = None
    # Text waiting in the interactive session's input at start, not sent until the person
    # presses Enter (``legato --demo``'s first prompt).
    draft: str | None = None


def from_flags(args: argparse.Namespace, project: str, resumed: str | None) -> SessionOptions:
    """The options the command line's flags describe, once frontends/startup/checks.py has
    checked them, for every kind of session alike (the terminal, ``-p``, stream-json);
    ``resumed``: the saved session to go on with (--continue, --resume), None for a new one."""
    return SessionOptions(
        project_root=project,
        headless=args.headless is not None or args.input_format == "stream-json",
        model=args.model,
        permission_mode=args.permission_mode,
        session_id=resumed or args.session_id,  # --session-id names a new one
        resume=resumed is not None,
        session_mirror=args.session_mirror,
        max_parallel=args.max_parallel,
        stream_timeout=args.stream_timeout,
        output_format=args.output_format,
        max_turns=args.max_turns,
        json_schema=args.json_schema,
        reasoning=getattr(args, "reasoning", None),
        max_budget_usd=args.max_budget_usd,
        fallback_model=args.fallback_model,
        partial_messages=args.include_partial_messages,
        hook_events=args.include_hook_events,
        overrides=overrides(args, project),
        initial_prompt=getattr(args, "prompt", None),
    )


def overrides(args: argparse.Namespace, project: str) -> Overrides:
    """What the flags set above every settings file: the one place the command line's
    compatibility flags become the session's (the Agent SDK's options are these flags too)."""
    from actors.protocol import Overrides, PermissionRule
    from frontends.startup.checks import flag_rules, offered_tools

    # A path rule's leading '/' is the project's, as in the project's settings files.
    rules = tuple(
        PermissionRule(behavior="allow", text=rule, source="--allowedTools", anchor=project)
        for rule in flag_rules(args.allowed_tools)
    ) + tuple(
        PermissionRule(behavior="deny", text=rule, source="--disallowedTools", anchor=project)
        for rule in flag_rules(args.disallowed_tools)
    )
    # A bare built-in name in --disallowedTools also takes the tool away (as the reference's
    # does), here as well as in the broker's reading of the rules: both only narrow, so they
    # cannot disagree into a tool that runs.
    refused = tuple(
        rule.text
        for rule in rules
        if rule.behavior == "deny" and rule.text.isidentifier() and rule.text[0].isupper()
    )
    return Overrides(
        model=args.model,
        refused_tools=refused,
        permission_mode=args.permission_mode,
        system_prompt=args.system_prompt,  # --system-prompt-file's text, once checked
        append_system_prompt=args.append_system_prompt,
        offered_tools=offered_tools(args.tools),
        add_dirs=tuple(args.add_dirs),
        mcp_configs=tuple(args.mcp_config),
        strict_mcp_config=args.strict_mcp_config,
        permission_rules=rules,
        settings_flags=tuple(args.settings_flags),
    )
