"""The reference assistant's flags (Claude Code's), which the Claude Agent SDK passes too when it
runs ``legato`` as its CLI (docs/sdk.md, docs/claude-code.md).

The SDK builds a Claude Code command line: ``--output-format stream-json --verbose
--input-format stream-json`` and one flag per option set in ``ClaudeAgentOptions``. Those Legato
honours are parsed into the namespace like its own flags, in every mode. The others are parsed
too, so that their values are not taken for a prompt, and then refused with their names (exit
2); started by the SDK, which passes some of them by default, they are named in the ``init``
line's ``unsupported_options`` instead, so that the program sees what did not take effect.

Only the standard library is imported here: the parser is built on every start.
"""

from __future__ import annotations

import argparse
import os

# The SDK sets this for the CLI it starts ("sdk-py", "sdk-ts"): a flag from a newer SDK is then a
# warning, not a usage error. The reference's GitHub Action runs the TypeScript SDK with a name of
# its own there, and passes `--setting-sources` on every run (docs/scale.md).
ENTRYPOINT_ENV = "CLAUDE_CODE_ENTRYPOINT"
SDK_ENTRYPOINTS = ("sdk", "claude-code-github-action")

# The SDK's names for the permission modes, and Legato's own.
SDK_PERMISSION_MODES = ("default", "acceptEdits", "plan", "bypassPermissions", "dontAsk")

# The reference's flags Legato does not act on: name -> whether it takes a value. Refused on a
# person's command line; named in ``unsupported_options`` when the SDK passes them.
IGNORED: dict[str, bool] = {
    "--betas": True,
    "--task-budget": True,
    "--setting-sources": True,
    "--plugin-dir": True,
    "--fork-session": False,
    "--resume-session-at": True,
    "--resume-drops-turn": True,
    "--append-system-prompt-file": True,
    "--allow-dangerously-skip-permissions": False,
    "--agents": True,
    "--agent": True,
    "--bare": False,
    "--disable-slash-commands": False,
    "--ide": False,
    "--no-session-persistence": False,
    "--name": True,
}


def started_by_sdk() -> bool:
    return os.environ.get(ENTRYPOINT_ENV, "").startswith(SDK_ENTRYPOINTS)


def add_sdk_flags(parser: argparse.ArgumentParser) -> None:
    """The reference's flags, in a group of their own in ``--help``."""
    group = parser.add_argument_group(
        "Claude Code compatibility, in the terminal and headless (docs/claude-code.md#flags)"
    )
    group.add_argument(
        "--dangerously-skip-permissions",
        action="store_true",
        help="= --permission-mode bypassPermissions: what the rules do not block runs without "
        "asking, except what only a person may allow (refused as root unless IS_SANDBOX=1)",
    )
    group.add_argument(
        "--allowedTools",
        "--allowed-tools",
        dest="allowed_tools",
        action="append",
        nargs="+",
        default=[],
        metavar="RULE",
        help="allow rules, comma- or space-separated: Read, Bash(git diff:*), mcp__github",
    )
    group.add_argument(
        "--disallowedTools",
        "--disallowed-tools",
        dest="disallowed_tools",
        action="append",
        nargs="+",
        default=[],
        metavar="RULE",
        help="deny rules, as --allowedTools; a bare tool name also takes the tool away",
    )
    group.add_argument(
        "--tools",
        metavar="NAMES",
        help="the built-in tools offered, comma-separated ('' none, 'default' all)",
    )
    group.add_argument(
        "--system-prompt", metavar="TEXT", help="replace Legato's instructions to the model"
    )
    group.add_argument(
        "--system-prompt-file", metavar="FILE", help="as --system-prompt, read from FILE"
    )
    group.add_argument(
        "--append-system-prompt", metavar="TEXT", help="add TEXT to the end of the system prompt"
    )
    group.add_argument(
        "--json-schema",
        metavar="SCHEMA",
        help="headless: the answer is a value valid against this JSON Schema (inline JSON, or "
        "a file holding it), in the result's structured_output",
    )
    group.add_argument(
        "--effort",
        metavar="LEVEL",
        help="how much the model reasons: low, medium, high, xhigh, max (models that take it)",
    )
    group.add_argument(
        "--thinking",
        metavar="MODE",
        help="adaptive (the model decides when to think) or disabled",
    )
    group.add_argument(
        "--max-thinking-tokens",
        metavar="N",
        help="think with a fixed budget of N tokens before answering (0: no thinking)",
    )
    group.add_argument(
        "--thinking-display",
        metavar="HOW",
        help="summarized or omitted: how the thinking comes back",
    )
    group.add_argument(
        "--max-budget-usd",
        metavar="USD",
        help="stop before the request that would take the run's spend over USD (list prices)",
    )
    group.add_argument(
        "--fallback-model",
        metavar="MODEL",
        help="the model to go on with for the rest of the run when the model is overloaded",
    )
    group.add_argument(
        "--add-dir",
        dest="add_dirs",
        action="append",
        default=[],
        metavar="DIR",
        help="another folder the tools work in as in the project; repeatable",
    )
    group.add_argument(
        "--mcp-config",
        action="append",
        default=[],
        metavar="JSON",
        help='MCP servers for this session: {"mcpServers": {...}} or a file holding it; repeatable',
    )
    group.add_argument(
        "--strict-mcp-config",
        action="store_true",
        help="use only the --mcp-config servers",
    )
    group.add_argument(
        "--settings",
        dest="settings_flags",
        action="append",
        default=[],
        metavar="FILE_OR_JSON",
        help="settings for this session, above every file: a settings file or JSON text",
    )
    group.add_argument("--session-id", metavar="UUID", help="the new session's id")
    group.add_argument(
        "--session-mirror",
        action="store_true",
        help="stream-json: also a transcript_mirror line with each batch of saved session "
        "events, for the program's own session store (the SDK's session_store)",
    )
    group.add_argument(
        "--verbose",
        action="store_true",
        help="accepted: headless output already shows every tool call (docs/headless.md)",
    )
    group.add_argument(
        "--input-format",
        choices=("text", "stream-json"),
        default="text",
        help="stream-json: read user messages and control requests as NDJSON on stdin "
        "(needs --output-format stream-json)",
    )
    group.add_argument(
        "--permission-prompt-tool",
        metavar="NAME",
        help="stdio: put permission questions to the program driving Legato (can_use_tool)",
    )
    group.add_argument(
        "--include-partial-messages",
        action="store_true",
        help="stream-json: also a stream_event line for each streamed piece",
    )
    group.add_argument(
        "--include-hook-events",
        action="store_true",
        help="stream-json: also hook_started and hook_response lines",
    )
    group.add_argument(
        "--replay-user-messages",
        action="store_true",
        help="stream-json input: echo each user message back with its uuid (what the SDK's "
        "rewind_files names)",
    )
    for flag, takes_value in IGNORED.items():
        action = "append" if takes_value else "store_true"
        group.add_argument(flag, dest=_dest(flag), action=action, help=argparse.SUPPRESS)


def _dest(flag: str) -> str:
    return "ignored_" + flag.lstrip("-").replace("-", "_")


def ignored_options(args: argparse.Namespace) -> list[str]:
    """The reference's flags given that Legato does not act on, by name."""
    named = [flag for flag in IGNORED if getattr(args, _dest(flag), None)]
    if args.permission_prompt_tool not in (None, "stdio"):
        named.append(f"--permission-prompt-tool {args.permission_prompt_tool}")
    return named + list(getattr(args, "unknown_flags", []))


def split_unknown(
    argv: list[str], known: set[str], takes_value: set[str]
) -> tuple[list[str], list[str]]:
    """``argv`` without the flags no parser knows (from a newer SDK), and those flags.

    An unknown ``--flag`` takes the next word as its value unless that word is a flag too: the
    SDK passes no positional words, so a word after an unknown flag cannot be the project path.
    A known flag's value is kept whatever it looks like (a system prompt may start with "--").
    """
    kept: list[str] = []
    unknown: list[str] = []
    i = 0
    while i < len(argv):
        word = argv[i]
        name = word.split("=", 1)[0]
        if name in known or not word.startswith("--") or word == "--":
            kept.append(word)
            if name in takes_value and "=" not in word and i + 1 < len(argv):
                kept.append(argv[i + 1])
                i += 1
        else:
            unknown.append(name)
            if "=" not in word and i + 1 < len(argv) and not argv[i + 1].startswith("-"):
                i += 1
        i += 1
    return kept, unknown
