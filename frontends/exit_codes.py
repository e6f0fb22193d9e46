"""The exit codes of ``legato``, as the README, docs/headless.md and docs/configuration.md
list them.

Its own module, importing nothing, so that every frontend can name a code without importing
the command line (frontends/cli.py) that runs them.
"""

from __future__ import annotations

EXIT_OK = 0
EXIT_FAILURE = 1  # the session failed at run time: the API, a crashed actor, --max-turns
EXIT_USAGE = 2  # a usage or configuration error: a bad flag, a malformed settings file
# A skill or pattern run changed nothing: every file change it tried was denied (headless, where
# nobody can approve one). The model's own words may still say "Wrote 2 files."
EXIT_DENIED = 3
EXIT_SIGINT = 130  # stopped by SIGINT (Ctrl-C)
EXIT_OUTPUT_CLOSED = 141  # stdout's reader stopped reading: what a shell reports for SIGPIPE
EXIT_SIGTERM = 143  # stopped by SIGTERM

# Each code in a few words, for ``legato --help``.
MEANINGS: dict[int, str] = {
    EXIT_OK: "ok",
    EXIT_FAILURE: "run-time failure",
    EXIT_USAGE: "usage or configuration error",
    EXIT_DENIED: "a skill or pattern run whose every change was denied",
    EXIT_SIGINT: "SIGINT",
    EXIT_OUTPUT_CLOSED: "stdout's reader stopped reading",
    EXIT_SIGTERM: "SIGTERM",
}


def summary() -> str:
    """``Exit codes: 0 ok, 1 run-time failure, ...``: the line ``--help`` ends with."""
    return "Exit codes: " + ", ".join(f"{code} {what}" for code, what in MEANINGS.items()) + "."
