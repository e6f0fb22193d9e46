"""``/rewind N [code|conversation|both]``: the words of the terminal's and the headless run's
``/rewind``, read the same way by both, and the lines that say what a rewind did."""

from __future__ import annotations

from typing import TYPE_CHECKING

from actors.errors import UsageError
from actors.protocol import Rewind

if TYPE_CHECKING:
    from actors.protocol import RewindReport, RewindRestore

# What each word restores; the reference's menu says "code" and "conversation".
RESTORES: dict[str, RewindRestore] = {
    "both": "both",
    "code": "code",
    "files": "code",
    "conversation": "conversation",
    "chat": "conversation",
}
USAGE = "/rewind N [code|conversation|both], N prompts back (1: the latest)"
# Typed as it stands, to a run with no list to pick from.
HEADLESS_USAGE = (
    'legato --continue --headless "/rewind 1" to go back to before the latest prompt ("/rewind '
    'N code" or "/rewind N conversation" restores only one)'
)


def parse_rewind(argument: str, *, pick: bool = True) -> Rewind | None:
    """The rewind ``argument`` asks for; None when it names no prompt (the list to pick from).
    A UsageError names a word that is neither; ``pick``: whether its remedy may offer the
    list (not headless, where nobody can pick)."""
    words = argument.split()
    if not words:
        return None
    count, *rest = words
    if not count.isdecimal() or int(count) < 1:
        raise UsageError(
            f"/rewind takes how many prompts back, a whole number from 1, not {count[:40]!r}",
            remedy=f"Type {USAGE}" + (", or /rewind alone to pick from the list" if pick else ""),
        )
    restore: RewindRestore = "both"
    if rest:
        chosen = RESTORES.get(rest[0].lower())
        if chosen is None or len(rest) > 1:
            raise UsageError(
                f"/rewind {count} takes code, conversation or both, not {' '.join(rest)[:40]!r}",
                remedy=f"Type {USAGE}",
            )
        restore = chosen
    return Rewind(back=int(count), restore=restore)


def prompt_back(report: RewindReport) -> str:
    """The rewound prompt, for a frontend that cannot put it in the input: to send again."""
    if not report.prompt_text:
        return ""
    lines = report.prompt_text.splitlines() or [""]
    return "The rewound prompt, to send again or edit:\n" + "\n".join(f"  {line}" for line in lines)
