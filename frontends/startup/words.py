"""The command line's words: which is the project folder and which the prompt
(``legato [PROJECT] [PROMPT]``), and piped stdin added to ``-p``'s prompt.

The rule (docs/headless.md#the-command-line), which keeps ``legato PROJECT`` meaning what it
always meant and reads the reference's ``claude "query"`` and ``claude -p "query"`` as it does:

- with ``-p``: one word is the prompt, two are the project then the prompt;
- with ``--headless PROMPT`` (the prompt is its value): one word is the project;
- without either: a word naming a folder is the project; a word with a space in it is the
  interactive session's first prompt; two words are the project then the first prompt.

Where both readings are possible the rule is said, never guessed silently: a lone word without
a space that names no folder (``legato myprojct``) is refused, since a typo of a folder's name
must not go to the model; ``-p`` with one word that is also a folder's name says on stderr
that it is taken as the prompt.

Only the standard library is imported here: this runs on every start.
"""

from __future__ import annotations

import os
import stat
import sys
from typing import TYPE_CHECKING

from actors.errors import UsageError
from frontends.errors_out import report

if TYPE_CHECKING:
    import argparse

# More than this on stdin is not a prompt but a file: pointed to with @path, it is read in parts.
MAX_STDIN_BYTES = 10 * 1024 * 1024


def place_words(args: argparse.Namespace) -> int | None:
    """Sets ``args.project_path`` and ``args.prompt`` (the interactive session's first prompt)
    from the words, and ``args.headless`` from ``-p``'s prompt and stdin; the exit code when
    the words cannot be read (said on stderr)."""
    words: list[str] = list(args.words)
    args.project_path, args.prompt = None, None
    if len(words) > 2:
        return report(
            UsageError(
                f"{len(words)} words were given ({_listed(words)}); legato takes at most two, "
                "the project folder and the prompt",
                remedy='Put the prompt in quotes: legato -p "fix the failing test"',
            )
        )
    headless = args.headless is not None or args.print_mode
    if len(words) == 2 or (len(words) == 1 and args.headless is not None):
        args.project_path = words[0]
        prompt = words[1] if len(words) == 2 else None
    elif len(words) == 1 and headless:
        prompt = words[0]
        if os.path.isdir(prompt) and not any(char.isspace() for char in prompt):
            _note(
                f"'{prompt}' is taken as the prompt (with -p one word is the prompt); "
                f'to work in that folder: legato {prompt} -p "<prompt>"'
            )
    elif len(words) == 1:
        word = words[0]
        if os.path.isdir(word):
            args.project_path, prompt = word, None
        elif any(char.isspace() for char in word.strip()):
            prompt = word
        else:
            return report(
                UsageError(
                    f"'{word}' is not a folder, and a word without a space is not taken as a "
                    "prompt",
                    remedy="Give the path of an existing project folder, or to start with it "
                    f"as a prompt: legato . {quoted(word)}",
                )
            )
    else:
        prompt = None
    if args.headless is not None:
        if prompt is not None:
            return report(
                UsageError(
                    "--headless takes its prompt as its value, and another was given: "
                    f"{quoted(prompt)}",
                    remedy='Give one prompt: legato -p "<prompt>", or --headless "<prompt>"',
                )
            )
        return None
    if args.print_mode:
        return _print_prompt(args, prompt)
    args.prompt = prompt
    return None


def _print_prompt(args: argparse.Namespace, prompt: str | None) -> int | None:
    """``-p``'s prompt, with piped stdin after it (``cat log | legato -p "explain"``), as
    ``args.headless``; stream-json input reads stdin itself."""
    if args.input_format == "stream-json":
        if prompt is not None:
            return report(
                UsageError(
                    "--input-format stream-json reads its prompts from stdin, and a prompt "
                    f"was given: {quoted(prompt)}",
                    remedy="Drop the prompt, or use --input-format text",
                )
            )
        args.print_mode = False  # the session is stream-json's, as without -p
        return None
    piped = _piped_stdin()
    if isinstance(piped, int):
        return piped
    text = "\n\n".join(part for part in (prompt, piped) if part and part.strip())
    if not text:
        return report(
            UsageError(
                "-p needs a prompt",
                remedy='Give one: legato -p "<prompt>", or pipe it: echo "<prompt>" | legato -p',
            )
        )
    args.headless = text
    return None


def _piped_stdin() -> str | int | None:
    """What a pipe or a file on stdin holds; None for a terminal, or for stdin that is neither
    (``/dev/null``, a socket a supervisor left open), which is never waited on."""
    try:
        mode = os.fstat(0).st_mode
    except OSError:
        return None
    if not (stat.S_ISFIFO(mode) or stat.S_ISREG(mode)):
        return None
    data = sys.stdin.buffer.read(MAX_STDIN_BYTES + 1)
    if len(data) > MAX_STDIN_BYTES:
        return report(
            UsageError(
                f"stdin holds more than {MAX_STDIN_BYTES // (1024 * 1024)} MiB, too much for a "
                "prompt",
                remedy='Save it to a file in the project and name it: legato -p "explain @log.txt"',
            )
        )
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        return report(
            UsageError(
                f"stdin is not UTF-8 text (byte {error.start} is not)",
                remedy="Pipe text, or save the data to a file and name it in the prompt",
            )
        )


def _listed(words: list[str]) -> str:
    return ", ".join(quoted(word) for word in words)


def quoted(text: str) -> str:
    """``text`` as the shell takes it back: in double quotes when that is safe to read."""
    if any(char in text for char in '"$`\\!'):
        import shlex

        return shlex.quote(text)
    return f'"{text}"'


def _note(text: str) -> None:
    from actors.visible import escape_controls

    print(f"legato: note: {escape_controls(text)}", file=sys.stderr)
