"""The environment a shell command runs with: the user's, without Legato's own credentials.

The model chooses the commands, so whatever a command can read, the model can print, and a
hostile repository can send elsewhere. Legato's keys are Legato's: the variables it reads
its credentials from are left out, and so is any other variable holding one of their values or
the ``apiKey`` of the global config (a key exported under a second name); ``sandbox.passEnv``
cannot let one through. Everything else of the user's environment stays, so builds and tools
behave as in the user's own shell (``OTEL_*`` and a malformed ``TRACEPARENT`` aside).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from actors.credentials import LEGATO_CREDENTIALS, without_credentials
from actors.telemetry import for_children

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

__all__ = ["LEGATO_CREDENTIALS", "command_environment"]


def command_environment(
    env: Mapping[str, str], *, secrets: Iterable[str | None] = (), passed: Iterable[str] = ()
) -> dict[str, str]:
    """``env`` without Legato's credentials (``actors/credentials.py``): the credential
    variables, and any variable whose value is one of theirs or one of ``secrets`` (the
    configured ``apiKey``). ``passed`` (``sandbox.passEnv``) names variables the user lets
    through of what Legato keeps back for other reasons; a credential is never one of them,
    whatever the settings say, since the model chooses the commands."""
    del passed  # nothing but the credentials is kept back
    # Nor Legato's telemetry settings, nor a caller's trace context that is not one
    # (actors/telemetry): a TRACEPARENT with a newline or an escape sequence in it is nobody's.
    return for_children(without_credentials(env, secrets=secrets))


# Where the terminal multiplexer the user runs Legato in listens: a confined command that finds
# the server could have it run anything outside the sandbox (``tmux run-shell``). The sockets
# themselves are hidden (a private /tmp); these name them, and say a confined command is not
# the user's shell in a pane.
TERMINAL_SESSIONS = frozenset(
    {"TMUX", "TMUX_PANE", "STY", "WINDOW", "ZELLIJ", "ZELLIJ_SESSION_NAME"}
)


def without_terminal_sessions(env: Mapping[str, str]) -> dict[str, str]:
    """``env`` for a confined command: without ``TERMINAL_SESSIONS``."""
    return {name: value for name, value in env.items() if name not in TERMINAL_SESSIONS}
