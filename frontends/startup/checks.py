"""The checks of a session's flags that argparse cannot make, in every mode alike: each wrong
value is an exit code (2) with a message naming the flag and the value, and the values checked
here are the ones ``from_flags`` (frontends/session_options.py) builds the session from.

Only the standard library and Legato's own light modules are imported: this runs on every start.
"""

from __future__ import annotations

import os
import re
import sys
from typing import TYPE_CHECKING

from actors.errors import EXIT_USAGE, UsageError
from frontends.errors_out import report, warn
from frontends.startup.budget_flags import check_budget_flags
from frontends.startup.flags import stream_timeout
from frontends.startup.json_schema import check_json_schema
from frontends.startup.sdk_flags import ignored_options, started_by_sdk
from frontends.startup.words import MAX_STDIN_BYTES

if TYPE_CHECKING:
    import argparse

# The reference's own way to say "this runs in a throwaway container": its refusal of bypass
# mode as root is lifted by it, and so is Legato's.
SANDBOX_ENV = "IS_SANDBOX"
BYPASS_WARNING = (
    "bypass permissions mode: what the rules do not block runs without asking. A command "
    "outside the sandbox, a path outside the project and a write to Legato's or git's own files "
    "still ask (headless: are denied). Use it only where a mistake costs nothing, such as a "
    "throwaway container"
)
_TOOL_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_-]*")
# A rule as the flags take it, before the permission broker reads what is inside: a tool's
# name (capitalised, as every built-in tool's is), an MCP name or pattern (mcp__github,
# mcp__*), or *, then optionally a specifier in parentheses. A lower-case word is refused:
# after a flag that takes several words it is most likely the prompt.
_RULE = re.compile(r"([A-Z][A-Za-z0-9_]*|mcp__[A-Za-z0-9_*-]*|\*)(\(.*\))?", re.DOTALL)


def check_session_flags(args: argparse.Namespace) -> int | None:
    """The exit code when a flag is wrong (said on stderr), else None with the values made
    ready: the mode in Legato's words (except for stream-json input, which reports it in the
    SDK's), the system prompt read, the folders resolved, the rules split."""
    checks = (
        _unsupported,
        _session_mirror,
        _permission_mode,
        _model,
        _reasoning,
        check_budget_flags,
        _system_prompt,
        check_json_schema,
        _add_dirs,
        _settings,
        _tools,
        check_rules,
    )
    for check in checks:
        problem = check(args)
        if problem is not None:
            return problem
    timeout = stream_timeout(args.stream_timeout)
    if timeout is None:
        return EXIT_USAGE
    args.stream_timeout = timeout  # from here on, the effective value
    return None


def _unsupported(args: argparse.Namespace) -> int | None:
    """The reference's flags Legato does not act on: refused by name, unless the Agent SDK
    passed them (it passes some by default; the init line names them)."""
    if started_by_sdk():
        return None
    named = ignored_options(args)
    if not named:
        return None
    return report(
        UsageError(
            f"Legato does not support {', '.join(named)}",
            remedy="Leave it out; docs/claude-code.md#flags says what each of the reference's "
            "flags does in Legato",
        )
    )


def _session_mirror(args: argparse.Namespace) -> int | None:
    # The mirrored events are lines of the stream-json output, for the program that reads it;
    # the terminal has no such output.
    if not args.session_mirror:
        return None
    headless = args.headless is not None or args.print_mode or args.input_format == "stream-json"
    if headless and args.output_format == "stream-json":
        return None
    return report(
        UsageError(
            "--session-mirror needs --output-format stream-json"
            + ("" if headless else " and -p (or --input-format stream-json)"),
            remedy="Add what it needs, for a program that reads the transcript_mirror lines "
            "(the Agent SDK's session_store), or leave the flag out",
        )
    )


def _permission_mode(args: argparse.Namespace) -> int | None:
    if args.dangerously_skip_permissions:
        if args.permission_mode not in (None, "bypass", "bypassPermissions"):
            return report(
                UsageError(
                    "--dangerously-skip-permissions is --permission-mode bypassPermissions, and "
                    f"--permission-mode {args.permission_mode} was given too",
                    remedy="Give one of them",
                )
            )
        args.permission_mode = "bypassPermissions"
    bypass = args.permission_mode in ("bypass", "bypassPermissions")
    if bypass and not started_by_sdk():
        if _is_root() and os.environ.get(SANDBOX_ENV) != "1":
            flag = (
                "--dangerously-skip-permissions"
                if args.dangerously_skip_permissions
                else f"--permission-mode {args.permission_mode}"
            )
            return report(
                UsageError(
                    f"{flag} is refused when running as root: what runs without asking "
                    "would run with every right on the machine",
                    remedy=f"Run as an ordinary user, or in a throwaway container set "
                    f"{SANDBOX_ENV}=1",
                )
            )
        if args.headless is not None or args.input_format == "stream-json":
            # The terminal says it above the prompt (frontends/interactive), from the mode the
            # session starts in, whatever chose it; a run without a terminal says it here.
            warn(BYPASS_WARNING, remedy="Leave the flag out to have these calls denied instead")
    if args.permission_mode is not None and args.input_format != "stream-json":
        from actors.permission_modes import SDK_MODES, from_sdk

        if args.permission_mode in SDK_MODES:
            args.permission_mode = from_sdk(args.permission_mode)
    return None


def _is_root() -> bool:
    return hasattr(os, "geteuid") and os.geteuid() == 0


def _model(args: argparse.Namespace) -> int | None:
    if args.model is None:
        return None
    from actors.models import resolve_model

    try:
        resolve_model(args.model)
    except UsageError as error:
        return report(error)
    return None


def _reasoning(args: argparse.Namespace) -> int | None:
    """``args.reasoning`` made from --effort and the thinking flags (and the reference's
    variables), checked against --model when it is given: the model of the settings is checked
    when the session starts, before its first request (actors/conductor)."""
    from actors.reasoning import reasoning_from, request_fields

    try:
        args.reasoning = reasoning_from(
            effort=args.effort,
            thinking=args.thinking,
            max_thinking_tokens=args.max_thinking_tokens,
            display=args.thinking_display,
            env=os.environ,
        )
    except UsageError as error:
        return report(error)
    if args.model is not None:
        from actors.models import resolve_model

        fields = request_fields(args.reasoning, resolve_model(args.model), 1)
        if fields.refused:
            return report(fields.refused[0])
    return None


def _system_prompt(args: argparse.Namespace) -> int | None:
    """``--system-prompt-file`` read into ``args.system_prompt``; both at once are refused, as
    the reference refuses them: which one should win is not for Legato to guess."""
    path: str | None = args.system_prompt_file
    if path is None:
        return None
    if args.system_prompt is not None:
        return report(
            UsageError(
                "--system-prompt and --system-prompt-file both replace the system prompt",
                remedy="Give one of them (--append-system-prompt adds to either)",
            )
        )
    try:
        with open(path, encoding="utf-8") as file:
            # At most what a prompt can be: a device or a huge file is not read to its end.
            text = file.read(MAX_STDIN_BYTES + 1)
    except (OSError, UnicodeDecodeError) as error:
        return report(
            UsageError(
                f"--system-prompt-file {path}: cannot be read "
                f"({getattr(error, 'strerror', None) or error})",
                remedy="Give a readable UTF-8 text file, or pass the text with --system-prompt",
            )
        )
    if len(text) > MAX_STDIN_BYTES:
        return report(
            UsageError(
                f"--system-prompt-file {path}: longer than a prompt can be "
                f"({MAX_STDIN_BYTES // (1024 * 1024)} MiB)",
                remedy="Give the instructions themselves, not a data file",
            )
        )
    args.system_prompt = text
    return None


def _add_dirs(args: argparse.Namespace) -> int | None:
    """Each ``--add-dir`` as the real folder it names (relative to where legato was started,
    as a shell's path is)."""
    folders: list[str] = []
    for folder in args.add_dirs:
        path = os.path.realpath(os.path.expanduser(folder))
        if not os.path.isdir(path):
            return report(
                UsageError(
                    f"--add-dir {folder}: not a folder",
                    remedy="Give an existing folder, or leave the option out",
                )
            )
        folders.append(path)
    args.add_dirs = folders
    return None


def _settings(args: argparse.Namespace) -> int | None:
    """Each ``--settings`` that is not JSON text as the absolute path of an existing file: the
    memory store reads it later, from wherever a relative path would then point."""
    values: list[str] = []
    for value in args.settings_flags:
        if value.lstrip().startswith("{"):
            values.append(value)
            continue
        path = os.path.abspath(os.path.expanduser(value))
        if not os.path.isfile(path):
            return report(
                UsageError(
                    f"--settings {value}: no such file",
                    remedy="Give a settings file's path, or the settings as JSON text: "
                    """--settings '{"model": "haiku"}'""",
                )
            )
        values.append(path)
    args.settings_flags = values
    return None


def _tools(args: argparse.Namespace) -> int | None:
    """``--tools``: '' none, 'default' all, else tool names separated by commas or spaces."""
    for name in offered_tools(args.tools) or ():
        if not _TOOL_NAME.fullmatch(name):
            return report(
                UsageError(
                    f"--tools: {name!r} is not a tool's name",
                    remedy="Give built-in tool names separated by commas: --tools Read,Grep,Bash",
                )
            )
    return None


def offered_tools(value: str | None) -> tuple[str, ...] | None:
    """The tools ``--tools`` offers; None: all of them."""
    if value is None or value.strip() == "default":
        return None
    return tuple(split_rules([value]))


def check_rules(args: argparse.Namespace) -> int | None:
    """Each rule of ``--allowedTools`` / ``--disallowedTools`` checked for the shape ``Tool`` or
    ``Tool(specifier)``; what a specifier means is the permission broker's to say."""
    flags = (("--allowedTools", args.allowed_tools), ("--disallowedTools", args.disallowed_tools))
    for flag, given in flags:
        for rule in flag_rules(given):
            if not _RULE.fullmatch(rule) or rule.count("(") != rule.count(")"):
                return report(
                    UsageError(
                        f"{flag}: {rule!r} is not a rule",
                        remedy="Write a tool's name, or the name and a specifier in "
                        "parentheses: Read, Bash(npm run test:*), mcp__github; a prompt goes "
                        f'before the flag, or after --: legato -p "<prompt>" {flag} Read',
                    )
                )
    return None


def flag_rules(given: list[list[str]]) -> list[str]:
    """The rules of a repeatable flag that takes one or more values each time."""
    return split_rules([value for values in given for value in values])


def split_rules(values: list[str]) -> list[str]:
    """The rules of each value, separated by commas or spaces outside parentheses, as the
    reference takes them: ``"Read,Grep"``, ``"Bash(git diff *) Read"``."""
    rules: list[str] = []
    for value in values:
        depth, current = 0, list[str]()
        for char in value:
            if char == "(":
                depth += 1
            elif char == ")":
                depth = max(depth - 1, 0)
            elif (char == "," or char.isspace()) and depth == 0:
                rules.append("".join(current))
                current = []
                continue
            current.append(char)
        rules.append("".join(current))
    return [rule.strip() for rule in rules if rule.strip()]


def say_unused(args: argparse.Namespace) -> None:
    """Flags that only a headless run reads, given to the terminal: said, not silently dropped."""
    if args.output_format != "text":
        print(
            f"legato: note: --output-format {args.output_format} applies to -p; the terminal "
            "shows the session as it goes",
            file=sys.stderr,
        )
