"""Which prompts are the session's own commands rather than a prompt for the model: told here,
on the start path, since a skill is told from them before the headless run is loaded
(``frontends/headless/session_commands.py`` runs them)."""

from __future__ import annotations

NAMES = ("/undo", "/compact", "/context", "/rewind", "/export")
# Only these take words after them (``/rewind N``, ``/export <file>``).
WITH_WORDS = ("/rewind", "/export")


def named(prompt: str) -> bool:
    """Whether ``prompt`` is one of the session's commands."""
    words = prompt.split(maxsplit=1)
    if not words or words[0] not in NAMES:
        return False
    return len(words) == 1 or words[0] in WITH_WORDS
