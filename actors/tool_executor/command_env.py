"""The environment a shell command runs with: the user's, without Legato's own credentials.

The model chooses the commands, so whatever a command can read, the model can print, and a
hostile repository can send elsewhere. Legato's keys are Legato's: the variables it reads
its credentials from are left out, and so is any other variable holding the same value as the
``apiKey`` of the global config (a key exported under a second name). Everything else of the
user's environment stays, so builds and tools behave as in the user's own shell.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

# The variables the model client takes credentials from (actors/model_client: endpoint.py,
# providers/openai.py, providers/bedrock.py).
LEGATO_CREDENTIALS = frozenset(
    {
        "ASSISTANT_API_KEY",
        "ANTHROPIC_API_KEY",
        "OPENAI_API_KEY",
        "CLOUD_ACCESS_KEY_ID",
        "CLOUD_SECRET_ACCESS_KEY",
        "CLOUD_SESSION_TOKEN",
    }
)


def command_environment(
    env: Mapping[str, str], *, secrets: Iterable[str | None] = (), passed: Iterable[str] = ()
) -> dict[str, str]:
    """``env`` without Legato's credentials: the named variables, and any variable whose value
    is one of ``secrets`` (the configured ``apiKey``). ``passed`` names variables the user
    lets through all the same."""
    keep = frozenset(passed)
    hidden = {secret.strip() for secret in secrets if secret and secret.strip()}
    return {
        name: value
        for name, value in env.items()
        if name in keep or (name not in LEGATO_CREDENTIALS and value.strip() not in hidden)
    }


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
