"""The ``legato`` command: parse the command line, then hand over to a frontend.

The exit codes are in actors/errors.py (documented in the README). The flags are in
frontends/startup/flags.py; a session is started by frontends/startup/launch.py, which the
skills and patterns (frontends/skills/skill_commands.py) use too, so that none of them imports
this module.

Only the standard library is imported here, so ``--version`` and ``--help`` stay fast; the
runtime, httpx and the actors are imported once a session is actually going to run.
"""

from __future__ import annotations

import os
import sys

from frontends.startup.version import __version__

# Not typing's: importing typing costs `--version` a few milliseconds, and mypy takes any
# name TYPE_CHECKING as true.
TYPE_CHECKING = False
if TYPE_CHECKING:
    from collections.abc import Sequence
    from typing import NoReturn

    from actors.protocol import SkillPrompt

__all__ = ["main", "run"]


def main(argv: Sequence[str] | None = None) -> NoReturn:
    import gc

    # Start-up makes no garbage worth walking every object for; the collector is switched
    # back on once it is over (runtime/collector.py).
    gc.disable()
    from frontends.installation import shadowed

    problem = shadowed()
    if problem is not None:
        print(problem, file=sys.stderr)
        # EXIT_USAGE: actors/errors.py, which is not to be imported from where it is shadowed.
        os._exit(2)
    try:
        code = run(sys.argv[1:] if argv is None else list(argv))
    except BrokenPipeError:
        # `legato config | head -3`: Python ignores SIGPIPE, so the reader leaving shows up
        # here; end as a SIGPIPE'd command would, without a traceback.
        from actors.errors import EXIT_OUTPUT_CLOSED

        code = EXIT_OUTPUT_CLOSED
    except KeyboardInterrupt:
        # A Ctrl-C outside the session's own handling (a second one just as a stopped
        # session ends, before telemetry's flush): the person wants out, not a traceback.
        from actors.errors import EXIT_SIGINT

        code = EXIT_SIGINT
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
        # Not contextlib.suppress: importing contextlib would cost `--version` ~1.5 ms.
        try:  # noqa: SIM105
            stream.flush()
        except (BrokenPipeError, ValueError):
            pass  # the reader went away, or the stream is already closed: nothing to flush


# Commands that are not a session: `legato <name> ...`, each in its own module, imported only
# when called. Each entry is "module:function", the function taking the remaining arguments
# and returning the exit code.
SUBCOMMANDS: dict[str, str] = {
    "config": "frontends.commands.config:run_config",
    "doctor": "frontends.commands.doctor:run_doctor",
    "mcp": "frontends.commands.mcp_command:run_mcp",
    "permissions": "frontends.commands.permissions:run_permissions",
    "trust": "frontends.commands.trust_command:run_trust",
}


def _subcommand(argv: list[str]) -> int | None:
    if not argv or argv[0] not in SUBCOMMANDS:
        return None
    import importlib

    module, _, function = SUBCOMMANDS[argv[0]].partition(":")
    entry = getattr(importlib.import_module(module), function)
    return int(entry(argv[1:]))


_COMMAND_NAME = r"/[A-Za-z0-9][A-Za-z0-9_-]*(?::[A-Za-z0-9][A-Za-z0-9_-]*)*"


def _slash_command(argv: list[str]) -> int | None:
    """``legato [project] /<skill-or-pattern> ...``, handled in frontends/skills/skill_commands.

    A word is the command when it is ``/name`` and no such directory exists: ``legato /srv``
    still opens the folder /srv. Only the first two positional words are looked at. With ``-p``
    the word is the prompt, made ready as ``--headless "/name args"`` is (``_skill_prompt``).
    """
    if "-p" in argv or "--print" in argv:
        return None
    import re

    from frontends.startup.flags import value_flags

    takes_value = value_flags()
    positional = 0
    skip = False
    for word in argv:
        if skip or word.startswith("-"):
            skip = not skip and word in takes_value
            continue
        if re.fullmatch(_COMMAND_NAME, word) and not os.path.isdir(word):
            from frontends.skills.skill_commands import run_slash

            return run_slash(argv)
        positional += 1
        if positional == 2:
            break
    return None


def run(argv: list[str]) -> int:
    if argv in (["--version"], ["-v"]):
        # Asked on its own (scripts and version checks ask it so), it is answered without
        # building the parser: argparse and its help formatter's imports are most of its cost,
        # and Legato's own packages are not imported (EXIT_OK, actors/errors.py, is 0).
        print(f"legato {__version__}")
        return 0
    code = _subcommand(argv)
    if code is not None:
        return code
    code = _slash_command(argv)
    if code is not None:
        return code
    from actors.errors import EXIT_OK
    from frontends.startup.flags import parse
    from frontends.startup.launch import project_root, start

    args = parse(argv)
    if args.version:
        print(f"legato {__version__}")
        return EXIT_OK
    if args.demo:
        from frontends.demo import run_demo

        return run_demo(args)
    project = project_root(args)
    if isinstance(project, int):
        return project
    if args.pattern_stats:
        from frontends.skills.skill_commands import pattern_stats

        return pattern_stats(project)
    return start(args, project, prepare=_skill_prompt)


def _skill_prompt(prompt: str, project: str) -> SkillPrompt | int:
    """``--headless "/<name> args"``: the skill or pattern's prompt
    (frontends/skills/skill_commands.py, imported only for such a prompt)."""
    from frontends.skills.skill_commands import headless_prompt

    return headless_prompt(prompt, project)
