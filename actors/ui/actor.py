from __future__ import annotations

from typing import TYPE_CHECKING

from actors.protocol import AskUser, Show, UiMsg
from runtime import Actor

if TYPE_CHECKING:
    from actors.protocol import PermissionAnswer, UiEvent
    from runtime import Reply


class Renderer:
    """How a frontend shows events and asks questions. The default shows nothing and says no."""

    async def show(self, event: UiEvent) -> None:
        return None

    async def ask(self, question: AskUser) -> str | PermissionAnswer:
        return "n"

    async def close(self) -> None:
        """Flush whatever is buffered; called once when the session ends."""


class UiActor(Actor[UiMsg]):
    name = "ui"
    # Deltas arrive in bursts of thousands per second; a roomy inbox lets the model stream on
    # while the terminal catches up, and still pushes back if the renderer stalls for good.
    inbox_size = 1024

    def __init__(self, renderer: Renderer) -> None:
        super().__init__()
        self.renderer = renderer

    async def handle(self, msg: UiMsg, reply: Reply) -> None:
        match msg:
            case Show(event=event):
                await self.renderer.show(event)
            case AskUser():
                await reply.answer(msg, await self.renderer.ask(msg))

    async def on_stop(self) -> None:
        await self.renderer.close()


class QuestionsActor(UiActor):
    """Puts the permission broker's questions to the person, beside the UI actor.

    A question waits for a person for seconds; if the UI actor itself asked, the events queued
    behind the question (the output of tools already approved and running) would wait too.
    With questions here, events keep flowing while one is open. It shares the
    frontend's renderer, which the UI actor closes.
    """

    name = "ui_questions"
    inbox_size = 64

    async def on_stop(self) -> None:
        return None
