"""The ``legato`` command: parse the command line, then hand over to a frontend.

Exit codes (documented in the README):
    0    success
    1    the session failed at run time (API failure, a crashed actor, the model hit --max-turns)
    2    usage or configuration error (a bad flag, a malformed settings file)
    130  stopped by SIGINT (Ctrl-C)
    141  stdout's reader stopped reading (`| head`), as a shell reports SIGPIPE
    143  stopped by SIGTERM

Only the standard library is imported here, so ``--version`` and ``--help`` stay fast; the
runtime, httpx and the actors are imported once a session is actually going to run.
"""

from __future__ import annotations

import argparse
import contextlib
import os
import re
import sys
from typing import TYPE_CHECKING, NoReturn

from frontends.version import __version__

if TYPE_CHECKING:
    from collections.abc import Sequence

EXIT_OK = 0
EXIT_FAILURE = 1
EXIT_USAGE = 2
EXIT_SIGINT = 130
EXIT_OUTPUT_CLOSED = 141  # stdout's reader stopped reading: what a shell reports for SIGPIPE
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
        "(default: $ASSISTANT_STREAM_TIMEOUT, else 60)",
    )
    parser.add_argument(
        "--continue",
        dest="continue_session",
        action="store_true",
        help="go on with this project's latest saved session",
    )
    parser.add_argument(
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
        help="run an offline demo against Legato's scripted model server (no API key needed)",
    )
    parser.add_argument(
        "--pattern-stats",
        action="store_true",
        help="print how often each pattern ran in this project: one 'name count' line each",
    )
    parser.epilog = (parser.epilog or "") + (
        " Skills and patterns: legato /<name> [args] runs one, legato /<name> --test checks it, "
        "legato /help lists them (docs/skills-and-patterns.md)."
    )
    return parser


STREAM_TIMEOUT_ENV = "ASSISTANT_STREAM_TIMEOUT"
DEFAULT_STREAM_TIMEOUT = 60.0


def _seconds(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a number of seconds") from None
    if not value > 0 or value == float("inf"):
        raise argparse.ArgumentTypeError(f"'{text}' must be a number of seconds above 0")
    return value


def _stream_timeout(flag: float | None) -> float | None:
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
        print(
            f"legato: {STREAM_TIMEOUT_ENV}: {error}\n"
            f"  → Set it to a number of seconds (export {STREAM_TIMEOUT_ENV}=120) or unset it",
            file=sys.stderr,
        )
        return None


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"'{text}' must be 1 or more")
    return value


def main(argv: Sequence[str] | None = None) -> NoReturn:
    from frontends.installation import shadowed

    problem = shadowed()
    if problem is not None:
        print(problem, file=sys.stderr)
        os._exit(EXIT_USAGE)
    try:
        code = run(sys.argv[1:] if argv is None else list(argv))
    except BrokenPipeError:
        # `legato config | head -3`: Python ignores SIGPIPE, so the reader leaving shows up
        # here; end as a SIGPIPE'd command would, without a traceback.
        code = EXIT_OUTPUT_CLOSED
    # By now the session is over: every actor stopped, every process reaped, every file
    # closed. Tearing down the interpreter's hundreds of modules would only add tens of
    # milliseconds to every exit (and to Ctrl-C), so flush what was printed and leave.
    # A reader that stopped reading must not keep Legato alive: after a session, flushing gets
    # half a second in a thread of its own. (Quick commands print a few lines that a pipe always
    # takes, and do not pay the ~5 ms of importing threading for it.)
    if "threading" in sys.modules:
        import threading

        flusher = threading.Thread(target=_flush_standard_streams, daemon=True)
        flusher.start()
        flusher.join(0.5)
    else:
        _flush_standard_streams()
    os._exit(code)


def _flush_standard_streams() -> None:
    for stream in (sys.stdout, sys.stderr):
        # The reader went away, or the stream is already closed: nothing to flush then.
        with contextlib.suppress(BrokenPipeError, ValueError):
            stream.flush()


# Commands that are not a session: `legato <name> ...`, each in its own module, imported only
# when called. Each entry is "module:function", the function taking the remaining arguments
# and returning the exit code.
SUBCOMMANDS: dict[str, str] = {
    "config": "frontends.config_command:run_config",
    "doctor": "frontends.doctor:run_doctor",
    "permissions": "frontends.permissions:run_permissions",
}


def _subcommand(argv: list[str]) -> int | None:
    if not argv or argv[0] not in SUBCOMMANDS:
        return None
    import importlib

    module, _, function = SUBCOMMANDS[argv[0]].partition(":")
    entry = getattr(importlib.import_module(module), function)
    return int(entry(argv[1:]))


def _check_session_flags(args: argparse.Namespace) -> int | None:
    """The flags a session needs that argparse cannot check: an exit code when one is wrong."""
    if args.model is not None:
        from actors.errors import UsageError
        from actors.models import resolve_model

        try:
            resolve_model(args.model)
        except UsageError as error:
            print(f"legato: {error.describe()}", file=sys.stderr)
            return error.exit_code
    timeout = _stream_timeout(args.stream_timeout)
    if timeout is None:
        return EXIT_USAGE
    args.stream_timeout = timeout  # from here on, the effective value
    return None


def _interactive(args: argparse.Namespace, project: str, resumed: str | None = None) -> int:
    """``legato`` without --headless: the interactive terminal (frontends/interactive)."""
    problem = _check_session_flags(args)
    if problem is not None:
        return problem
    stream_timeout: float = args.stream_timeout
    from frontends.interactive import run_interactive

    return run_interactive(
        project_root=project,
        model=args.model,
        permission_mode=args.permission_mode,
        session_id=resumed,
        resume=resumed is not None,
        max_parallel=args.max_parallel,
        stream_timeout=stream_timeout,
    )


_COMMAND_NAME = re.compile(r"/[a-z0-9][a-z0-9_-]*")


def _slash_command(argv: list[str]) -> int | None:
    """``legato [project] /<skill-or-pattern> ...`` (spec 4.1), handled in frontends/skill_commands.

    A word is the command when it is ``/name`` and no such directory exists: ``legato /srv``
    still opens the folder /srv. Only the first two positional words are looked at.
    """
    value_flags = {
        option
        for action in build_parser()._actions  # argparse has no public list of its options
        if action.nargs != 0
        for option in action.option_strings
    }
    positional = 0
    skip = False
    for word in argv:
        if skip or word.startswith("-"):
            skip = not skip and word in value_flags
            continue
        if _COMMAND_NAME.fullmatch(word) and not os.path.isdir(word):
            from frontends.skill_commands import run_slash

            return run_slash(argv)
        positional += 1
        if positional == 2:
            break
    return None


def _resumed(args: argparse.Namespace, project: str) -> str | int | None:
    """The saved session to go on with (--continue, --resume), None for a new one, or the
    exit code when there is none to resume."""
    if not args.continue_session and args.resume is None:
        return None
    from actors.errors import UsageError
    from frontends.resume import chosen_session

    try:
        return chosen_session(
            project_root=project,
            continue_latest=args.continue_session,
            resume=args.resume,
            interactive=args.headless is None and sys.stdin.isatty(),
        )
    except UsageError as error:
        print(f"legato: {error.describe()}", file=sys.stderr)
        return error.exit_code


def run(argv: list[str]) -> int:
    code = _subcommand(argv)
    if code is not None:
        return code
    code = _slash_command(argv)
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
    if args.pattern_stats:
        from frontends.skill_commands import pattern_stats

        return pattern_stats(project)
    if os.environ.get("ASSISTANT_LOG"):
        from frontends.debug import start_debug_log

        start_debug_log(os.environ)
    resumed = _resumed(args, project)
    if isinstance(resumed, int):
        return resumed
    if args.headless is None:
        return _interactive(args, project, resumed)
    if not args.headless.strip():
        print(
            'legato: --headless needs a prompt\n  → legato --headless "<prompt>"', file=sys.stderr
        )
        return EXIT_USAGE
    problem = _check_session_flags(args)
    if problem is not None:
        return problem
    stream_timeout: float = args.stream_timeout
    prompt = args.headless
    # /undo and /compact are the session's own commands (issue 7), run by frontends/headless.
    session_command = prompt.strip() in ("/undo", "/compact")
    if not session_command and prompt.lstrip().startswith("/"):
        # A skill or pattern (spec 4.2); its @path references, like any prompt's, are attached
        # by the session's tool executor (frontends/headless).
        from frontends.skill_commands import headless_prompt

        prepared = headless_prompt(prompt, project)
        if isinstance(prepared, int):
            return prepared
        prompt = prepared
    from frontends.headless import run_headless

    return run_headless(
        project_root=project,
        prompt=prompt,
        model=args.model,
        permission_mode=args.permission_mode,
        output_format=args.output_format,
        max_turns=args.max_turns,
        max_parallel=args.max_parallel,
        stream_timeout=stream_timeout,
        session_id=resumed,
        resume=resumed is not None,
    )
