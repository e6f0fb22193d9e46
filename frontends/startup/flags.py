"""The flags of ``legato``: the parser and the checks of the values argparse cannot make.

Only the standard library is imported here, so ``--version`` and ``--help`` stay fast.
"""

from __future__ import annotations

import argparse
import functools
import os
import textwrap
from typing import NoReturn

from frontends.startup.sdk_flags import (
    SDK_PERMISSION_MODES,
    add_sdk_flags,
    split_unknown,
    started_by_sdk,
)

# Legato's own modes, then the Agent SDK's names (docs/sdk.md says how they map).
PERMISSION_MODES = ("ask", "auto", "custom", *SDK_PERMISSION_MODES)
OUTPUT_FORMATS = ("text", "json", "stream-json")

# What each of frontends/cli.py's SUBCOMMANDS does, for --help (a test keeps the two in step).
SUBCOMMAND_HELP = {
    "config": "show the effective settings and where each value came from",
    "doctor": "check what a session would run with, and what stands in its way",
    "mcp": "list the MCP servers; 'legato mcp approve NAME' approves a project's",
    "permissions": "show the rules; 'legato permissions explain' says what they decide",
    "trust": "show and trust what the project's settings widen (--show, --revoke)",
}
_HELP_WIDTH = 79

STREAM_TIMEOUT_ENV = "ASSISTANT_STREAM_TIMEOUT"
# A session's defaults, written here once: the flags' help says them, and SessionOptions
# (frontends/session_options.py) takes them for whoever builds a session without flags.
DEFAULT_STREAM_TIMEOUT = 60.0
DEFAULT_MAX_TURNS = 50


class _Parser(argparse.ArgumentParser):
    def format_help(self) -> str:
        # The epilog is made only when the help is shown: its table of in-session commands
        # costs ~10 ms of imports that every other run of `legato` would pay for nothing.
        if self.epilog is None:
            self.epilog = _epilog()
        return super().format_help()

    def error(self, message: str) -> NoReturn:
        from actors.errors import UsageError
        from frontends.errors_out import report

        remedy = "Run 'legato --help' for the flags"
        if message.startswith("unrecognized arguments: "):
            # A flag of the reference's that Legato lacks, most often: say where they are listed.
            message = "Legato has no flag " + message.removeprefix("unrecognized arguments: ")
            remedy += "; docs/claude-code.md#flags lists the reference's"
        self.exit(report(UsageError(message, remedy=remedy)))


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="legato",
        usage="legato [options] [PROJECT] [PROMPT]\n       legato <command> ...",
        description="Legato: a fast terminal coding assistant that asks before it touches files.",
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "words",
        nargs="*",
        metavar="[PROJECT] [PROMPT]",
        help="the project folder (default: the current one) and a first prompt; with -p one "
        "word is the prompt (the rule: docs/headless.md#the-command-line)",
    )
    parser.add_argument("-v", "--version", action="store_true", help="print the version and exit")
    parser.add_argument(
        "-p",
        "--print",
        dest="print_mode",
        action="store_true",
        help="run the prompt without interaction and exit; piped stdin is added to the prompt",
    )
    # Without a value only with --demo (its headless run); elsewhere an empty prompt is refused.
    parser.add_argument(
        "--headless", metavar="PROMPT", nargs="?", const="", help="as -p, the prompt as its value"
    )
    parser.add_argument("--model", help="model alias (opus, sonnet, haiku) or full model id")
    parser.add_argument(
        "--permission-mode",
        type=permission_mode,
        choices=PERMISSION_MODES,
        help="start-up mode: ask, auto, custom, plan, or the reference's default, acceptEdits, "
        "plan, dontAsk, bypassPermissions (default: the settings', else ask)",
    )
    parser.add_argument(
        "--output-format", choices=OUTPUT_FORMATS, default="text", help="-p's output (text)"
    )
    parser.add_argument(
        "--max-turns",
        type=_positive_int,
        default=DEFAULT_MAX_TURNS,
        help="stop after this many model turns",
    )
    parser.add_argument(
        "--max-parallel",
        type=_positive_int,
        default=None,
        metavar="N",
        help="run at most N tool calls at a time (default: 16 commands, 32 calls in all)",
    )
    parser.add_argument(
        "--stream-timeout",
        type=_seconds,
        default=None,
        metavar="SECONDS",
        help="retry, then fail, when the model's answer stalls this long "
        f"(default: ${STREAM_TIMEOUT_ENV}, else {DEFAULT_STREAM_TIMEOUT:g})",
    )
    parser.add_argument(
        "-c",
        "--continue",
        dest="continue_session",
        action="store_true",
        help="go on with this project's latest saved session",
    )
    parser.add_argument(
        "-r",
        "--resume",
        nargs="?",
        const="",
        default=None,
        metavar="ID",
        help="go on with the saved session ID (without ID: pick one)",
    )
    parser.add_argument(
        "--demo",
        action="store_true",
        help="an offline demo against Legato's scripted model server (no API key needed): the "
        "terminal session in a scratch project; with --headless, or without a terminal, one "
        "headless run",
    )
    parser.add_argument(
        "--pattern-stats",
        action="store_true",
        help="print how often each pattern ran in this project: one 'name count' line each",
    )
    add_sdk_flags(parser)
    return parser


def _epilog() -> str:
    """The commands besides a session, the commands inside one, then the modes and exit codes;
    laid out by hand, since argparse would run the lists together into one paragraph."""
    # Only the standard library: the slash commands' table imports nothing else, nor do the
    # exit codes.
    from actors.errors import exit_codes_summary
    from frontends.interactive.slash_commands import COMMANDS

    def rows(entries: dict[str, str]) -> list[str]:
        width = max(len(name) for name in entries) + 2
        return [f"  {name:<{width}}{what}" for name, what in entries.items()]

    def paragraph(text: str) -> list[str]:
        return textwrap.wrap(text, _HELP_WIDTH, subsequent_indent="  ")

    in_session = {name: what.split(";")[0] for name, what in COMMANDS.items()}
    return "\n".join(
        [
            "commands:",
            *rows({f"legato {name}": what for name, what in SUBCOMMAND_HELP.items()}),
            "  (legato <command> --help for each one's options)",
            "",
            "in a session, type:",
            *rows(in_session),
            "",
            *paragraph(
                "permission modes: ask = Normal (every operation asks; headless denies), "
                "auto = Auto-Accept (file reads and edits inside the project are accepted), "
                "custom = the rules in .legato/settings.json decide, plan = read only; "
                "the reference's names: default = ask, acceptEdits = auto, dontAsk = what would "
                "ask is denied, bypassPermissions = what the rules do not block runs "
                "(docs/configuration.md#permission-modes)."
            ),
            *paragraph(
                "The words: legato [PROJECT] [PROMPT]. Without -p, a word naming a folder is the "
                "project and a word with a space is a first prompt (legato . WORD for a one-word "
                "prompt); with -p, one word is the prompt, two are the project then the prompt."
            ),
            *paragraph(exit_codes_summary()),
            *paragraph(
                "Skills and patterns: legato /<name> [args] runs one, legato /<name> --test "
                "checks it, legato /help lists them (docs/skills-and-patterns.md)."
            ),
        ]
    )


@functools.cache
def _parser() -> argparse.ArgumentParser:
    """The parser, built once a process: a session's command line is read twice (for a
    ``/command`` first, then parsed), and each build costs ~2 ms."""
    return build_parser()


def parse(argv: list[str]) -> argparse.Namespace:
    """The command line parsed; started by the Agent SDK, flags this release does not know are
    set aside in ``unknown_flags`` (the session names them) instead of failing the start."""
    parser = _parser()
    unknown: list[str] = []
    if started_by_sdk():
        known = {option for action in parser._actions for option in action.option_strings}
        argv, unknown = split_unknown(argv, known, value_flags())
    # Intermixed: the project and the prompt may come before, between or after the flags
    # (``legato -p "q" --model opus``, ``legato . --model opus "q"``), as the reference reads them.
    args = parser.parse_intermixed_args(argv)
    args.unknown_flags = unknown
    return args


def permission_mode(text: str) -> str:
    """A mode's name in any case (``Auto``, ``acceptedits``), as ``--model OPUS`` is taken; a
    name that is none is left for argparse to refuse with the list."""
    wanted = text.strip().lower()
    if wanted == "manual":
        return "default"  # the reference's other name for its default mode
    return next((mode for mode in PERMISSION_MODES if mode.lower() == wanted), text)


def value_flags() -> set[str]:
    """The options that take a value (``--model``, ``--headless``...): the word after one is
    its value, never the project path or a ``/command``."""
    return {
        option
        for action in _parser()._actions  # argparse has no public list of its options
        if action.nargs != 0
        for option in action.option_strings
    }


def stream_timeout(flag: float | None) -> float | None:
    """The flag, else ``$ASSISTANT_STREAM_TIMEOUT``, else the default; ``None``: the variable is
    set to something that is not a duration (the error is printed)."""
    if flag is not None:
        return flag
    raw = os.environ.get(STREAM_TIMEOUT_ENV, "").strip()
    if not raw:
        return DEFAULT_STREAM_TIMEOUT
    try:
        return _seconds(raw)
    except argparse.ArgumentTypeError as error:
        from actors.errors import UsageError
        from frontends.errors_out import report

        remedy = f"Set it to a number of seconds (export {STREAM_TIMEOUT_ENV}=120) or unset it"
        report(UsageError(f"{STREAM_TIMEOUT_ENV}: {error}", remedy=remedy))
        return None


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number of seconds") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"'{text}' must be a number of seconds above 0")
    return value


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"'{text}' must be 1 or more")
    return value
