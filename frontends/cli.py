"""The ``legato`` command: parse the command line, then hand over to a frontend.

Exit codes (documented in the README):
    0    success
    1    the session failed at run time (API failure, a crashed actor, the model hit --max-turns)
    2    usage or configuration error (a bad flag, a malformed settings file)
    130  stopped by SIGINT (Ctrl-C)
    143  stopped by SIGTERM

Only the standard library is imported here, so ``--version`` and ``--help`` stay fast; the
runtime, httpx and the actors are imported once a session is actually going to run.
"""

from __future__ import annotations

import argparse
import os
import sys
from typing import TYPE_CHECKING, NoReturn

from frontends.version import __version__

if TYPE_CHECKING:
    from collections.abc import Sequence

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_SIGINT = 130
EXIT_SIGTERM = 143

PERMISSION_MODES = ("ask", "auto", "custom")
OUTPUT_FORMATS = ("text", "json", "stream-json")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        self.exit(EXIT_USAGE, f"legato: {message}\n  → Run 'legato --help' for the flags\n")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="legato",
        description="Legato: a fast terminal coding assistant that asks before it touches files.",
        epilog=(
            "permission modes: ask = Normal (every operation asks; headless denies), "
            "auto = Auto-Accept (file reads and edits inside the project are accepted), "
            "custom = the rules in .legato/settings.json decide. "
            "Exit codes: 0 ok, 1 run-time failure, 2 usage or configuration error, "
            "130 SIGINT, 143 SIGTERM."
        ),
    )
    parser.add_argument(
        "project_path", nargs="?", default=None, help="project directory (default: current)"
    )
    parser.add_argument("--version", action="store_true", help="print the version and exit")
    parser.add_argument("--headless", metavar="PROMPT", help="run one prompt without interaction")
    parser.add_argument("--model", help="model alias (opus, sonnet, haiku) or full model id")
    parser.add_argument(
        "--permission-mode", choices=PERMISSION_MODES, help="start-up permission mode (ask)"
    )
    parser.add_argument(
        "--output-format", choices=OUTPUT_FORMATS, default="text", help="headless output (text)"
    )
    parser.add_argument(
        "--max-turns", type=_positive_int, default=50, help="stop after this many model turns"
    )
    parser.add_argument(
        "--demo",
        action="store_true",
        help="run an offline demo against Legato's scripted model server (no API key needed)",
    )
    return parser


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"'{text}' must be 1 or more")
    return value


def main(argv: Sequence[str] | None = None) -> NoReturn:
    code = run(sys.argv[1:] if argv is None else list(argv))
    # By now the session is over: every actor stopped, every process reaped, every file
    # closed. Tearing down the interpreter's hundreds of modules would only add tens of
    # milliseconds to every exit (and to Ctrl-C), so flush what was printed and leave.
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (BrokenPipeError, ValueError):
        pass  # the reader went away, or the stream is already closed: nothing left to flush
    os._exit(code)


# Commands that are not a session: `legato <name> ...`, each in its own module, imported only
# when called. Each entry is "module:function", the function taking the remaining arguments
# and returning the exit code.
SUBCOMMANDS: dict[str, str] = {}


def _subcommand(argv: list[str]) -> int | None:
    if not argv or argv[0] not in SUBCOMMANDS:
        return None
    import importlib

    module, _, function = SUBCOMMANDS[argv[0]].partition(":")
    entry = getattr(importlib.import_module(module), function)
    return int(entry(argv[1:]))


def run(argv: list[str]) -> int:
    code = _subcommand(argv)
    if code is not None:
        return code
    args = build_parser().parse_args(argv)
    if args.version:
        print(f"legato {__version__}")
        return EXIT_OK
    if args.demo:
        from frontends.demo import run_demo

        return run_demo(args)
    project = os.path.abspath(args.project_path or os.getcwd())
    if not os.path.isdir(project):
        print(
            f"legato: project path '{args.project_path}' is not a directory\n"
            "  → Give the path of an existing project folder, or run legato inside it",
            file=sys.stderr,
        )
        return EXIT_USAGE
    if args.headless is None:
        print(
            "legato: the interactive terminal is not part of this release yet\n"
            '  → Run one prompt with: legato --headless "<prompt>"  (or try: legato --demo)',
            file=sys.stderr,
        )
        return EXIT_USAGE
    if not args.headless.strip():
        print(
            'legato: --headless needs a prompt\n  → legato --headless "<prompt>"', file=sys.stderr
        )
        return EXIT_USAGE
    if args.model is not None:
        from actors.errors import UsageError
        from actors.models import resolve_model

        try:
            resolve_model(args.model)
        except UsageError as error:
            print(f"legato: {error.describe()}", file=sys.stderr)
            return error.exit_code
    from frontends.headless import run_headless

    return run_headless(
        project_root=project,
        prompt=args.headless,
        model=args.model,
        permission_mode=args.permission_mode,
        output_format=args.output_format,
        max_turns=args.max_turns,
    )
