"""The Agent SDK's options, as its command line gives them, turned into a stream session's
options (docs/sdk.md says what each one means here).

``allowed_tools`` and ``disallowed_tools`` hold Claude Code's rule strings: a tool's name
(``Bash``, ``mcp__git``), or ``Bash(<command>)`` / ``Bash(<prefix>:*)``. Names join
``allowedTools`` / ``blockedTools``, commands ``allowedCommands`` / ``blockedCommands``
(Legato's command entries match by word prefix). Other forms (``Read(src/**)``) are named as
unsupported rather than guessed at. A blocked rule from the project's settings always wins.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING

import msgspec

from actors.errors import UsageError
from actors.protocol import Overrides
from actors.tool_names import entry_problem
from frontends.errors_out import report
from frontends.headless.sdk_session import SdkOptions
from frontends.session_options import from_flags
from frontends.startup.sdk_flags import ignored_options

if TYPE_CHECKING:
    import argparse

_BASH_RULE = re.compile(r"Bash\((?P<command>.+?)(?::\*)?\)", re.DOTALL)
_BUILT_IN_NAME = re.compile(r"[A-Z][A-Za-z]*")


def sdk_options(args: argparse.Namespace, project: str, resumed: str | None) -> SdkOptions | int:
    """The options, or the exit code when one is wrong (said on stderr)."""
    unsupported = ignored_options(args)
    system_prompt: str | None = args.system_prompt
    if args.system_prompt_file is not None:
        try:
            with open(args.system_prompt_file, encoding="utf-8") as file:
                system_prompt = file.read()
        except (OSError, UnicodeDecodeError) as error:
            problem = UsageError(
                f"--system-prompt-file {args.system_prompt_file}: cannot be read "
                f"({getattr(error, 'strerror', None) or error})",
                remedy="Give a readable UTF-8 text file, or pass the text with --system-prompt",
            )
            return report(problem)
    allowed = _rules(args.allowed_tools, unsupported, "--allowedTools")
    blocked = _rules(args.disallowed_tools, unsupported, "--disallowedTools")
    offered = None if args.tools in (None, "default") else tuple(split_rules([args.tools]))
    add_dirs = []
    for folder in args.add_dirs:
        path = os.path.realpath(os.path.join(project, os.path.expanduser(folder)))
        if not os.path.isdir(path):
            problem = UsageError(
                f"--add-dir {folder}: not a folder",
                remedy="Give an existing folder, or leave the option out",
            )
            return report(problem)
        add_dirs.append(path)
    overrides = Overrides(
        system_prompt=system_prompt,
        append_system_prompt=args.append_system_prompt,
        offered_tools=offered,
        refused_tools=blocked[2],
        allowed_tools=allowed[0],
        allowed_commands=allowed[1],
        blocked_tools=blocked[0],
        blocked_commands=blocked[1],
        add_dirs=tuple(add_dirs),
        mcp_configs=tuple(args.mcp_config),
        strict_mcp_config=args.strict_mcp_config,
    )
    # The mode stays in the SDK's words (the init line reports it so); the session gets it as
    # Legato's, in the overrides, once it is assembled.
    session = msgspec.structs.replace(
        from_flags(args, project, resumed),
        permission_mode=None,
        overrides=overrides,
    )
    return SdkOptions(
        session,
        permission_mode=args.permission_mode or "default",
        ask_program=args.permission_prompt_tool == "stdio",
        unsupported=tuple(unsupported),
    )


def split_rules(values: list[str]) -> list[str]:
    """The rules of a comma-separated list, commas inside parentheses kept (``Bash(a, b)``)."""
    rules: list[str] = []
    for value in values:
        depth, start = 0, 0
        for i, char in enumerate(value):
            if char == "(":
                depth += 1
            elif char == ")":
                depth = max(depth - 1, 0)
            elif char == "," and depth == 0:
                rules.append(value[start:i])
                start = i + 1
        rules.append(value[start:])
    return [rule.strip() for rule in rules if rule.strip()]


def _rules(
    values: list[str], unsupported: list[str], flag: str
) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """Tool entries, command entries and the bare built-in names, from one flag's rules."""
    tools: list[str] = []
    commands: list[str] = []
    names: list[str] = []
    for rule in split_rules(values):
        match = _BASH_RULE.fullmatch(rule)
        if match is not None:
            commands.append(" ".join(match["command"].split()))
        elif entry_problem(rule) is None:
            tools.append(rule)
            names.append(rule)
        elif _BUILT_IN_NAME.fullmatch(rule):
            names.append(rule)  # a tool that asks nothing: only offering it can be refused
        else:
            unsupported.append(f"{flag} {rule}")
    return tuple(tools), tuple(commands), tuple(names)
