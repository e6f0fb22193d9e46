"""How every frontend and subcommand tells the person that something went wrong, in one format:

    legato: <what went wrong>
      → <what to do about it>

(``legato doctor: ...`` and the like for a subcommand: the command the person ran), and with
which exit code: the error's own (actors/errors.py). A problem found before any actor runs (a
flag, a folder that is not one) is said as the ``UsageError`` it is. Warnings, which stop
nothing, read ``legato: warning: <what>``, with the remedy's line when there is one.

The message may quote a value from a project's files or a server's answer: its control
characters are shown, not obeyed.
"""

from __future__ import annotations

import sys

# Not typing's: see frontends/cli.py (mypy takes any name TYPE_CHECKING as true).
TYPE_CHECKING = False
if TYPE_CHECKING:
    from typing import Protocol

    class Writer(Protocol):
        """A text stream: sys.stderr, or a headless renderer's guarded one."""

        def write(self, text: str, /) -> object: ...


PROGRAM = "legato"
INTERNAL_REMEDY = "Please report it; run with ASSISTANT_LOG=debug for details"


def report(error: BaseException, stderr: Writer | None = None, *, program: str = PROGRAM) -> int:
    """Write ``error`` (a ``LegatoError``: its message and remedy; anything else is a bug,
    said as one) on ``stderr``; returns the exit code to end with. ``program``: the command
    that failed, as the person typed it (``legato doctor``)."""
    from actors.errors import EXIT_FAILURE, LegatoError

    if isinstance(error, LegatoError):
        text, code = error.describe(), error.exit_code
    else:
        # A bug, not the user's mistake: what failed, in one line, and a hint.
        text, code = f"internal error: {error}\n  → {INTERNAL_REMEDY}", EXIT_FAILURE
    _write(f"{program}: {text}", stderr)
    return code


def warn(
    text: str, stderr: Writer | None = None, *, program: str = PROGRAM, remedy: str | None = None
) -> None:
    """Write a warning: something the person should know, that stops nothing; ``remedy``, what
    to do about it, on its own line as an error's is."""
    said = text if remedy is None else f"{text}\n  → {remedy}"
    _write(f"{program}: warning: {said}", stderr)


def _write(text: str, stderr: Writer | None) -> None:
    from actors.visible import escape_controls

    (sys.stderr if stderr is None else stderr).write(escape_controls(text) + "\n")
