"""A ``/name args`` line split into its words, for the terminal and the command line alike
(its own module, so that neither imports the other to get it)."""

from __future__ import annotations

import shlex

from actors.errors import UsageError


def split_command(line: str) -> tuple[str, list[str]]:
    """``/name a "b c"`` -> ("name", ["a", "b c"]); quoting is shell-like."""
    text = line.strip()
    if not text.startswith("/"):
        raise UsageError(f"{text!r} is not a /command", remedy="Start it with '/', as in /commit")
    try:
        words = shlex.split(text[1:])
    except ValueError as error:
        raise UsageError(
            f"cannot split the arguments of {text!r}: {error}",
            remedy="Close the quote; give a JSON value as one single-quoted string",
        ) from None
    if not words:
        raise UsageError("'/' names no command", remedy="Run /help to list them")
    return words[0], words[1:]
