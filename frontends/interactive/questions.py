"""Questions put to the person at the prompt: a yes or no, or one of a few typed choices.

The session's commands ask through these (``/mcp approve``, ``/hooks approve``, a plan to carry
out, the session ``/resume`` switches to, ``/export`` and ``#``'s picks); each waits in a cancel
scope that Esc and Ctrl-C cancel, so letting a question go is an answer too.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import anyio
from rich.text import Text

if TYPE_CHECKING:
    from frontends.interactive.screen import Screen
    from frontends.interactive.view import TurnView


class Questions:
    """The session's ways to ask: part of ``InteractiveSession``, which sets the fields."""

    view: TurnView
    screen: Screen

    async def choose(self, choices: tuple[str, ...], *, label: str) -> str | None:
        """Wait for one of ``choices`` (a picker's digits), asked as ``label``; Esc or Ctrl-C:
        None."""
        answer = None
        with anyio.CancelScope() as scope:
            self.screen.busy = scope
            self.screen.changed()
            try:
                answer = await self.screen.ask(choices, label=label)
            finally:
                self.screen.busy = None
        return answer

    async def _pick(self, choices: tuple[str, ...], label: str) -> str | None:
        """``choose``, for an asker that gives the label in place (``/resume``'s picker)."""
        return await self.choose(choices, label=label)

    async def _yes(self, question: str) -> bool:
        """Ask ``question``; Esc or Ctrl-C is a no."""
        self.view.say(Text(question))
        return await self.choose(("y", "n"), label="Allow?") == "y"
