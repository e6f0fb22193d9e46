"""``legato /<skill-or-pattern> ...``, ``--headless "/<name> args"`` and ``--pattern-stats``:
the command-line glue around the skill library (actors/skills).

The forms:
    legato [project] /<name> [args] [--test] [--seed N] [session flags]
    legato [project] --headless "/<name> args" [session flags]
    legato [project] --pattern-stats

Each starts the skill library on its own (``runtime.supervise``) and asks it one question: no
configuration is read and no model is reached for ``--test``, ``/help`` or mock data. A skill or
pattern that needs the model becomes an ordinary headless run of its prompt, through
``frontends.startup.launch.run_session``, so every session flag (``--model``, ``--permission-mode``,
``--output-format``...) means the same as for any other prompt.
"""

from __future__ import annotations

import os
import shutil
import sys
from typing import TYPE_CHECKING, TypeVar

import anyio

from actors.errors import EXIT_OK, LegatoError, UsageError
from actors.protocol import CheckCommand, GetPatternStats, PrepareCommand, SkillOutput
from actors.visible import escape_controls
from frontends.errors_out import report, warn
from frontends.session import skill_library
from frontends.session_options import SessionOptions
from frontends.skills.skill_report import hang, report_text
from frontends.skills.slash_line import split_command
from frontends.startup.flags import build_parser
from runtime import supervise

if TYPE_CHECKING:
    from collections.abc import Sequence

    from actors.protocol import SkillPrompt
    from runtime import Ask

R = TypeVar("R")


def run_slash(argv: Sequence[str]) -> int:
    """``legato [project] /<name> [args] [flags]``; the exit code."""
    try:
        project, name, words, forwarded = _split_argv(argv)
        args, test, seed = split_flags(words)
        if test:
            return _test(project, name)
        result = ask_library(project, PrepareCommand(name=name, args=tuple(args), seed=seed))
    except LegatoError as error:
        return report(error)
    if isinstance(result, SkillOutput):
        _show(result.text)
        return EXIT_OK
    from frontends.startup.launch import run_session as run

    for note in result.notes:
        warn(note)
    # The rendered prompt runs like any headless prompt (its @path references included); the
    # run knows it is a skill's or a pattern's, which must change something to have worked.
    return run([project, *forwarded, "--headless", result.prompt], command=result)


def headless_prompt(text: str, project: str, *, home: str | None = None) -> SkillPrompt | int:
    """A ``--headless "/name args"`` prompt made ready: the skill or pattern's prompt.

    Returns the prompt to send, with the skill or pattern it was made from (the run judges
    its denials by that), or an exit code when nothing is left to send (``/help``,
    mock data, an error; what there was to say is already printed). Its ``@path`` references
    are attached by the session's tool executor once it runs, like any prompt's.
    """
    try:
        name, words = split_command(text)
        args, test, seed = split_flags(words)
        if test:
            return _test(project, name, home=home)
        message = PrepareCommand(name=name, args=tuple(args), seed=seed)
        result = ask_library(project, message, home=home)
    except LegatoError as error:
        return report(error)
    if isinstance(result, SkillOutput):
        _show(result.text)
        return EXIT_OK
    for note in result.notes:
        warn(note)
    return result


def ask_library(project: str, message: Ask[R], *, home: str | None = None) -> R:
    """Start the skill library alone, ask it ``message``, stop it; its answer or its error."""

    async def ask() -> R:
        library = skill_library(SessionOptions(project_root=project, home=home))
        async with supervise([library]):
            return await library.address.ask(message)

    return anyio.run(ask, backend="trio")


def pattern_stats(project: str, *, home: str | None = None) -> int:
    """``legato --pattern-stats``: ``name count`` for every pattern, then any retired ones."""
    for runs in ask_library(project, GetPatternStats(), home=home):
        print(escape_controls(f"{runs.name} {runs.runs}"))
    return EXIT_OK


def split_flags(words: Sequence[str]) -> tuple[list[str], bool, int | None]:
    """Take ``--test`` and ``--seed N`` out of a command's words."""
    args: list[str] = []
    test, seed = False, None
    index = 0
    while index < len(words):
        word = words[index]
        if word == "--test":
            test = True
        elif word == "--seed" or word.startswith("--seed="):
            value = word.partition("=")[2] if "=" in word else _next(words, index, "--seed")
            index += 0 if "=" in word else 1
            seed = _whole_number(value)
        else:
            args.append(word)
        index += 1
    return args, test, seed


def _next(words: Sequence[str], index: int, flag: str) -> str:
    if index + 1 >= len(words):
        raise UsageError(f"{flag} needs a value", remedy=f"Write {flag} 42")
    return words[index + 1]


def _whole_number(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise UsageError(
            f"--seed: {text!r} is not a whole number", remedy="Write --seed 42"
        ) from None


def _split_argv(argv: Sequence[str]) -> tuple[str, str, list[str], list[str]]:
    """-> (project, command name, the command's words, the session flags to pass on)."""
    value_flags = {
        option
        for action in build_parser()._actions  # argparse has no public list of its options
        if action.nargs != 0
        for option in action.option_strings
    }
    project: str | None = None
    name: str | None = None
    words: list[str] = []
    forwarded: list[str] = []
    index = 0
    while index < len(argv):
        word = argv[index]
        if word in ("--test", "--seed") or word.startswith("--seed="):
            words.append(word)
            if word == "--seed" and index + 1 < len(argv):
                words.append(argv[index + 1])
                index += 1
        elif word.startswith("--"):
            forwarded.append(word)
            if word in value_flags and index + 1 < len(argv):
                forwarded.append(argv[index + 1])
                index += 1
        elif name is None and word.startswith("/") and not os.path.isdir(word):
            name = word[1:]
        elif name is None and project is None:
            project = word
        else:
            words.append(word)
        index += 1
    if name is None:
        raise UsageError("no /command given", remedy="Run 'legato /help' to list them")
    root = os.path.abspath(project or os.getcwd())
    if not os.path.isdir(root):
        raise UsageError(
            f"project path '{project}' is not a directory",
            remedy="Give the path of an existing project folder, or run legato inside it",
        )
    return root, name, words, forwarded


def _test(project: str, name: str, *, home: str | None = None) -> int:
    print(escape_controls(report_text(ask_library(project, CheckCommand(name=name), home=home))))
    return EXIT_OK


def _show(text: str) -> None:
    # On a terminal, /help's long descriptions wrap under their column; into a pipe each row
    # stays one line, for grep.
    if sys.stdout.isatty():
        text = "\n".join(hang(text, shutil.get_terminal_size().columns))
    print(escape_controls(text))
