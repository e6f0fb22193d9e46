"""Starting a session from the command line's flags: the saved session to go on with, the debug
log, then the interactive terminal or one headless prompt.

``legato`` (frontends/cli.py) comes here once it knows the command line is a session; so do
the skills and patterns that become a headless prompt (frontends/skills/skill_commands.py), through
``run_session``. Neither imports the other, and nothing here imports either of them.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

from actors import telemetry
from actors.errors import LegatoError, UsageError
from frontends.errors_out import report, warn
from frontends.startup import session_words
from frontends.startup.checks import check_session_flags
from frontends.startup.flags import parse

if TYPE_CHECKING:
    import argparse
    from collections.abc import Callable

    from actors.protocol import SkillPrompt

    # Makes a prompt ready before it runs (a skill or pattern's), given the prompt and the
    # project: the skill or pattern's prompt, or the exit code when nothing is left to send.
    PreparePrompt = Callable[[str, str], SkillPrompt | int]


def run_session(argv: list[str], *, command: SkillPrompt | None = None) -> int:
    """A session's command line (``[project] [flags] --headless <prompt>``), parsed and run;
    a headless prompt goes as it is, nothing made of it (``command``'s prompt is ready already)."""
    args = parse(argv)
    project = project_root(args)
    if isinstance(project, int):
        return project
    return start(args, project, command=command)


def project_root(args: argparse.Namespace) -> str | int:
    """The project folder, absolute, once the words are placed (frontends/startup/words.py);
    the exit code when they cannot be, or the project is not a folder (said on stderr)."""
    from frontends.startup.checks import check_rules
    from frontends.startup.words import place_words

    # Without words, a prompt may be the last word a rule flag took (it takes several, as
    # the reference's does): that is the thing to say, not that the prompt is missing.
    problem = (None if args.words else check_rules(args)) or place_words(args)
    if problem is not None:
        return problem
    project = os.path.abspath(args.project_path or os.getcwd())
    if not os.path.isdir(project):
        return report(
            UsageError(
                f"project path '{args.project_path}' is not a directory",
                remedy="Give the path of an existing project folder, or run legato inside it",
            )
        )
    return project


def start(
    args: argparse.Namespace,
    project: str,
    *,
    prepare: PreparePrompt | None = None,
    command: SkillPrompt | None = None,
) -> int:
    """Runs the session the flags describe; the exit code. ``prepare`` makes a headless prompt
    that starts with ``/`` ready (a skill or pattern); ``command``: the skill or pattern whose
    prompt ``--headless`` already holds."""
    if os.environ.get("ASSISTANT_LOG"):
        from frontends.startup.debug import start_debug_log

        start_debug_log(os.environ)
    if telemetry.wanted(os.environ):
        # An interactive session ignores a TRACEPARENT it inherits: in a terminal it is an
        # ambient value (a CI job's, a container's), not a caller waiting for this session.
        interactive = args.headless is None and args.input_format != "stream-json"
        ignored = telemetry.CONTEXT_VARIABLES if interactive else ()
        env = {name: value for name, value in os.environ.items() if name not in ignored}
        telemetry.start(env, warn)
    try:
        return _start(args, project, prepare=prepare, command=command)
    finally:
        telemetry.stop()


def _start(
    args: argparse.Namespace,
    project: str,
    *,
    prepare: PreparePrompt | None,
    command: SkillPrompt | None,
) -> int:
    # Before the saved sessions are listed: a wrong flag is said before anything is asked.
    problem = check_session_flags(args)
    if problem is not None:
        return problem
    resumed = _resumed(args, project)
    if isinstance(resumed, int):
        return resumed
    if args.input_format == "stream-json":
        return _stream_json(args, project, resumed)
    if args.headless is None:
        return _interactive(args, project, resumed)
    if not args.headless.strip():
        return report(UsageError("--headless needs a prompt", remedy='legato -p "<prompt>"'))
    prompt: str = args.headless
    # /undo, /compact, /context, /rewind N and /export <file> are the session's own commands,
    # run by frontends/headless.
    session_command = session_words.named(prompt)
    if session_command:
        try:
            session_words.check(prompt)
        except UsageError as error:
            return report(error)
    if prepare is not None and not session_command and prompt.lstrip().startswith("/"):
        # A skill or pattern; its @path references, like any prompt's, are attached by the
        # session's tool executor (frontends/headless).
        prepared = prepare(prompt, project)
        if isinstance(prepared, int):
            return prepared
        prompt, command = prepared.prompt, prepared
    from frontends.headless import run_headless
    from frontends.session_options import from_flags

    return run_headless(from_flags(args, project, resumed), prompt=prompt, command=command)


def _stream_json(args: argparse.Namespace, project: str, resumed: str | None) -> int:
    """``--input-format stream-json``: a session driven over stdin (frontends/headless)."""
    if args.output_format != "stream-json":
        return report(
            UsageError(
                "--input-format stream-json needs --output-format stream-json",
                remedy="Add --output-format stream-json (docs/headless.md)",
            )
        )
    if args.headless is not None:
        return report(
            UsageError(
                "--input-format stream-json reads its prompts from stdin, not --headless",
                remedy="Drop --headless, or use --input-format text",
            )
        )
    from frontends.headless.sdk_options import sdk_options

    options = sdk_options(args, project, resumed)
    if args.unknown_flags:
        warn(
            "flags this release does not know were ignored: " + ", ".join(args.unknown_flags),
            remedy="Update Legato, or leave the option out of ClaudeAgentOptions",
        )
    from frontends.headless.stream_input import run_stream_json

    return run_stream_json(options)


def _interactive(args: argparse.Namespace, project: str, resumed: str | None) -> int:
    """``legato`` without -p: the interactive terminal (frontends/interactive)."""
    from frontends.interactive import run_interactive
    from frontends.session_options import from_flags
    from frontends.startup.checks import say_unused

    say_unused(args)

    return run_interactive(from_flags(args, project, resumed))


def _resumed(args: argparse.Namespace, project: str) -> str | int | None:
    """The saved session to go on with (--continue, --resume), None for a new one, or the
    exit code when there is none to resume."""
    if not args.continue_session and args.resume is None:
        return _new_session_id(args, project)
    from frontends.startup.resume import chosen_session

    driven = args.input_format == "stream-json"
    try:
        return chosen_session(
            project_root=project,
            continue_latest=args.continue_session,
            resume=args.resume,
            interactive=args.headless is None and not driven and sys.stdin.isatty(),
            # The loop the session then runs on (frontends/interactive runs prompt_toolkit's).
            backend="trio" if args.headless is not None or driven else "asyncio",
        )
    except UsageError as error:
        if driven and args.continue_session and args.resume is None:
            # The Agent SDK's continue_conversation with nothing saved yet: a new session, as
            # the SDK documents it.
            _say(f"legato: note: {error.message}; starting a new session")
            return None
        return report(error)
    except LegatoError as error:
        # The configuration the sessions are listed with would not load: said as the session
        # itself would have said it.
        return report(error)


def _new_session_id(args: argparse.Namespace, project: str) -> int | None:
    """``--session-id`` for a new session: a UUID no saved session of the project has (the new
    session's file would otherwise be appended to another's); the exit code when it is not."""
    given: str | None = args.session_id
    if given is None:
        return None
    from actors.places import sessions_dir
    from frontends.startup.resume import WHOLE_ID

    if not WHOLE_ID.fullmatch(given.lower()):
        return report(
            UsageError(
                f"--session-id takes a UUID, not '{given}'",
                remedy="Give one such as the output of: "
                "python3 -c 'import uuid; print(uuid.uuid4())'",
            )
        )
    args.session_id = given.lower()
    saved = os.path.join(sessions_dir(project, os.path.expanduser("~")), f"{args.session_id}.jsonl")
    if os.path.exists(saved):
        return report(
            UsageError(
                f"session id {args.session_id} is already in use in this project",
                remedy=f"Run legato --resume {args.session_id} to go on with that session, or "
                "give another id",
            )
        )
    return None


def _say(text: str) -> None:
    """A note on stderr: its message may quote a value from a project's files, whose control
    characters are shown, not obeyed."""
    from actors.visible import escape_controls

    print(escape_controls(text), file=sys.stderr)
