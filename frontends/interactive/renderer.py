"""The UI actor's renderer for the terminal: events go to the view, questions to the screen."""

from __future__ import annotations

from typing import TYPE_CHECKING

import anyio
from rich.text import Text

from actors.protocol import (
    AgentEvent,
    HookFinished,
    HookStarted,
    MessageFinished,
    Notice,
    TurnOutcome,
)
from actors.ui import Renderer

if TYPE_CHECKING:
    from actors.protocol import AskUser, UiEvent
    from frontends.interactive.screen import Screen
    from frontends.interactive.status import Status
    from frontends.interactive.view import TurnView


class TerminalRenderer(Renderer):
    def __init__(self, view: TurnView, status: Status, screen: Screen) -> None:
        self.view = view
        self.status = status
        self.screen = screen
        # Set when the UI actor has shown a TurnOutcome: everything the turn sent before it is
        # on screen, so the session may print after it in the right order.
        self.outcome_shown = anyio.Event()

    async def show(self, event: UiEvent) -> None:
        if isinstance(event, TurnOutcome):
            self.status.api_ms += event.duration_api_ms
        match event:
            case MessageFinished(usage=usage):
                self.status.count(usage)
            case AgentEvent(event=MessageFinished(usage=usage), model=model):
                # A subagent's answer: its cost counts, at its model's price; the context
                # window shown stays the main conversation's.
                self.status.count(usage, model=model)
                self.view.apply(event)
            case TurnOutcome(subtype="interrupted"):
                self.view.interrupted()
                self.outcome_shown.set()
            case TurnOutcome(is_error=True, error=error, subtype=subtype):
                self.view.note("error", f"Error: {error or subtype}")
                self.outcome_shown.set()
            case TurnOutcome():
                self.outcome_shown.set()
            case Notice(model=model) if model is not None:
                self.status.model = model  # the fallback answers from here on
                self.view.apply(event)
            case HookStarted(id=hook_id, name=name):
                self.status.hooks[hook_id] = name
            case HookFinished(id=hook_id):
                self.status.hooks.pop(hook_id, None)
            case _:
                self.view.apply(event)
        self.screen.changed()

    async def ask(self, question: AskUser) -> str:
        request = question.request
        self.view.question(request, question.warning, question.confinement)
        self.screen.changed()
        answer = await self.screen.ask(question.choices, self.view.summary(request))
        self.view.answered(request)
        style = "legato.good" if answer in ("y", "always") else "legato.bad"
        self.view.say(Text(f"  → {answer}{_covering(answer, question.covers)}", style=style))
        self.screen.changed()
        return answer


def _covering(answer: str, covers: str) -> str:
    """What an 'always' or 'never' now covers, said when it is given."""
    if answer not in ("always", "never") or not covers:
        return ""
    verb = "allows" if answer == "always" else "refuses"
    return (
        f": {verb} {covers} for the rest of this session, in every mode "
        "(/permissions forget undoes it)"
    )
