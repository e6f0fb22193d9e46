"""Which prompts are the session's own commands rather than a prompt for the model: told here,
on the start path, since a skill is told from them before the headless run is loaded
(``frontends/headless/session_commands.py`` runs them)."""

from __future__ import annotations

from actors.errors import UsageError

NAMES = ("/undo", "/compact", "/context", "/rewind", "/export")
# Only these take words after them (``/rewind N``, ``/export <file>``).
WITH_WORDS = ("/rewind", "/export")


def named(prompt: str) -> bool:
    """Whether ``prompt`` names one of the session's commands (not a skill of that name)."""
    words = prompt.split(maxsplit=1)
    return bool(words) and words[0] in NAMES


def check(prompt: str) -> None:
    """A UsageError for words after a command that takes none (``/undo now``)."""
    words = prompt.split(maxsplit=1)
    if len(words) > 1 and words[0] in NAMES and words[0] not in WITH_WORDS:
        raise UsageError(
            f"{words[0]} takes nothing after it, not {words[1][:40]!r}",
            remedy=f'Run legato --continue --headless "{words[0]}"',
        )
