"""Every error a user can meet, with its remedy and exit code.

    LegatoError                      exit 1 unless a subclass says otherwise
     ├── UsageError                  exit 2: a bad flag or argument
     ├── ConfigError                 exit 2: a config or settings file is malformed or invalid
     ├── ApiError                    exit 1: the model API failed (after retries)
     │    ├── AuthenticationError    401/403: the key is missing or wrong
     │    ├── ConnectionFailed       the API address could not be reached
     │    ├── RateLimited            429 or 529 still after the retries
     │    ├── ServerError            5xx still after the retries
     │    ├── RequestRejected        another 4xx: the request itself is wrong
     │    └── StreamFailed           an ``event: error`` after HTTP 200, or a stream cut short
     ├── MissingExtra                exit 1: the chosen provider needs an optional extra that is
     │                               not installed (Amazon Bedrock: ``legato[bedrock]``)
     ├── ToolFailure                 a tool call failed; becomes an ``is_error`` tool result
     │    ├── PermissionDenied       the permission rules or the user said no
     │    ├── HookBlocked            a hook refused the call
     │    ├── CommandNotFound        a shell command is not on PATH
     │    ├── InvalidToolInput       the model's arguments do not fit the tool's fields
     │    ├── McpServerFailed        an MCP server failed to start, crashed or is still starting
     │    ├── MediaUnreadable        an image or PDF is corrupt, truncated, too large or encrypted
     │    └── FetchFailed            WebFetch could not get the page, or the page broke a cap
     └── SessionError                the session cannot go on (max turns, a crashed actor)

Each error the user can meet names what went wrong and, on its own line, what to do about it;
``legato doctor`` and tests/doctor/test_error_table.py go through them one by one. A frontend
says it with ``frontends/errors_out.py``'s ``report``, which exits with the error's code.

Every exit code of ``legato`` is here, those no error carries too (the README, docs/headless.md
and docs/configuration.md list them). ``legato --version`` imports none of Legato's packages, and
an installation whose packages are shadowed cannot import them: those two write their code out.
"""

from __future__ import annotations

import signal
from typing import ClassVar

EXIT_OK = 0
EXIT_FAILURE = 1  # the session failed at run time: the API, a crashed actor, --max-turns
EXIT_USAGE = 2  # a usage or configuration error: a bad flag, a malformed settings file
# A skill or pattern run changed nothing: every file change it tried was denied (headless, where
# nobody can approve one). The model's own words may still say "Wrote 2 files."
EXIT_DENIED = 3
EXIT_SIGINT = 130  # stopped by SIGINT (Ctrl-C)
EXIT_OUTPUT_CLOSED = 141  # stdout's reader stopped reading: what a shell reports for SIGPIPE
EXIT_SIGTERM = 143  # stopped by SIGTERM
# What a run that a signal stopped ends with, as a shell reports a signalled program.
SIGNAL_EXIT: dict[signal.Signals, int] = {signal.SIGINT: EXIT_SIGINT, signal.SIGTERM: EXIT_SIGTERM}

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


def exit_codes_summary() -> str:
    """``Exit codes: 0 ok, 1 run-time failure, ...``: the line ``--help`` ends with."""
    return "Exit codes: " + ", ".join(f"{code} {what}" for code, what in MEANINGS.items()) + "."


REMEDY_PERMISSION = (
    "Check the permission settings in .legato/settings.json (allowedPaths, allowedCommands, "
    "allowedTools), or answer 'always' to allow similar operations"
)
REMEDY_API_KEY = "Run 'echo $ASSISTANT_API_KEY' to check the key, then set it again"
REMEDY_NETWORK = "Test the connection to the API address; behind a proxy, set HTTPS_PROXY"
REMEDY_COMMAND = "Check that the executable is on your PATH; reinstall it if it is missing"


class LegatoError(Exception):
    """Root of every error Legato reports to a user."""

    exit_code: ClassVar[int] = EXIT_FAILURE
    default_remedy: ClassVar[str | None] = None

    def __init__(self, message: str, *, remedy: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.remedy = remedy if remedy is not None else self.default_remedy

    def describe(self) -> str:
        """The message and, on its own line, what to do about it."""
        if self.remedy:
            return f"{self.message}\n  → {self.remedy}"
        return self.message


class UsageError(LegatoError):
    exit_code = EXIT_USAGE
    default_remedy = "Run 'legato --help' for the flags and their values"


class ConfigError(LegatoError):
    exit_code = EXIT_USAGE

    def __init__(
        self,
        message: str,
        *,
        path: str,
        line: int | None = None,
        field: str | None = None,
        remedy: str | None = None,
    ) -> None:
        where = path if line is None else f"{path}:{line}"
        if field:
            where = f"{where}: field '{field}'"
        super().__init__(f"{where}: {message}", remedy=remedy)
        self.path = path
        self.line = line
        self.field = field


class ApiError(LegatoError):
    def __init__(
        self,
        message: str,
        *,
        status: int | None = None,
        request_id: str | None = None,
        remedy: str | None = None,
    ) -> None:
        if request_id:
            message = f"{message} (request-id {request_id})"
        super().__init__(message, remedy=remedy)
        self.status = status
        self.request_id = request_id


class AuthenticationError(ApiError):
    default_remedy = REMEDY_API_KEY


class ConnectionFailed(ApiError):
    default_remedy = REMEDY_NETWORK


class RateLimited(ApiError):
    default_remedy = "Wait a minute and try again, or use a smaller model with --model haiku"


class ServerError(ApiError):
    default_remedy = "The API is having trouble; try again shortly"


class RequestRejected(ApiError):
    pass


class StreamFailed(ApiError):
    default_remedy = "Try again; if it keeps happening, run with ASSISTANT_LOG=debug"
    # The API's own type for an ``event: error`` (``overloaded_error``, ``api_error``); None
    # for a stream cut short.
    error_type: str | None = None


class MissingExtra(LegatoError):
    """A provider's package is an optional extra, and it is not installed.

    Exit 1, like the provider's other set-up failures (a missing region, refused credentials):
    it is met when the first request is prepared, and a session reports a failed request so.
    """


class ToolFailure(LegatoError):
    pass


class PermissionDenied(ToolFailure):
    default_remedy = REMEDY_PERMISSION


class HookBlocked(ToolFailure):
    """A hook refused a call: its reason is for the model, which may try another way."""


class CommandNotFound(ToolFailure):
    default_remedy = REMEDY_COMMAND


class InvalidToolInput(ToolFailure):
    pass


class SessionError(LegatoError):
    pass


class McpServerFailed(ToolFailure):
    """An MCP server could not answer a call: it failed to start, crashed, or is still starting."""

    default_remedy = (
        "Check the server's command or URL in .mcp.json, and run the command by hand to see "
        "what it prints"
    )


class MediaUnreadable(ToolFailure):
    """An image or PDF that cannot be given to the model: not one of the kinds it takes, corrupt,
    truncated, too large or encrypted. The call fails; the session goes on."""


class FetchFailed(ToolFailure):
    """WebFetch could not get a page: the address, the connection, a cap it broke (size, time,
    redirects) or content it cannot show."""

    default_remedy = "Check the URL in a browser; a page behind a login cannot be fetched"
