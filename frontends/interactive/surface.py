"""What a command typed at the prompt reaches of the interactive session (``SessionSurface``).

``!cmd``, ``#text`` and ``/export`` run on the session's screen, view and actors and ask their
questions through it; they name it by this protocol, not by the session's class, so that the
session imports them and they do not import it back.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Protocol

if TYPE_CHECKING:
    from frontends.interactive.screen import Screen
    from frontends.interactive.view import TurnView
    from frontends.session import Session


class SessionSurface(Protocol):
    """The session as a prompt line's command sees it."""

    view: TurnView
    screen: Screen
    session: Session  # the actors of the session on the screen (/resume swaps them)
    root: str  # the project's root
    home: str
    person_commands: int  # ``!cmd`` lines run, for their calls' ids

    async def choose(self, choices: tuple[str, ...], *, label: str) -> str | None:
        """Wait for one of ``choices``, asked as ``label``; Esc or Ctrl-C: None."""
        ...
