"""The way to the UI for a turn's events, tool results held until their message is shown.

A call's ``ToolFinished`` is held until the message that carries its ``tool_use`` has been
shown (``release``), so every frontend shows a result after the call it answers, and a result
is never drawn in the middle of streaming text. A subagent's events are wrapped as its own,
and a background agent's go to its record instead of the UI.
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

import anyio

from actors.protocol import Show, ToolFinished
from runtime import KernelError

if TYPE_CHECKING:
    from collections.abc import Callable

    from actors.protocol import UiEvent, UiMsg
    from runtime import Address


class Display:
    """Events on their way to the UI, tool results held until their message is shown."""

    def __init__(
        self,
        ui: Address[UiMsg],
        wrap: Callable[[UiEvent], UiEvent] | None = None,
        *,
        sink: Callable[[UiEvent], None] | None = None,  # instead of the UI: a background agent
    ) -> None:
        self._ui = ui
        self._wrap = wrap  # a subagent's events are shown as its own (``AgentEvent``)
        self._sink = sink
        self._held: list[UiEvent] | None = []  # None once released

    @property
    def released(self) -> bool:
        return self._held is None

    async def show(self, event: UiEvent) -> None:
        if self._held is not None and isinstance(event, ToolFinished):
            self._held.append(event)
        elif self._sink is not None:
            self._sink(self._show(event).event)
        else:
            await self._ui.tell(self._show(event))

    def _show(self, event: UiEvent) -> Show:
        return Show(event if self._wrap is None else self._wrap(event))

    def show_nowait(self, event: UiEvent) -> None:
        """For an interrupt: a stalled renderer must not hold it up, so the UI gets what fits
        (what does not is dropped from the display, never from the conversation)."""
        if self._held is not None and isinstance(event, ToolFinished):
            self._held.append(event)
            return
        if self._sink is not None:
            self._sink(self._show(event).event)
            return
        with contextlib.suppress(anyio.WouldBlock, KernelError):
            self._ui.tell_nowait(self._show(event))

    async def release(self) -> None:
        """The message is shown: the results held so far go now, and later ones at once."""
        held, self._held = self._held or [], None
        for event in held:
            await self.show(event)

    def release_nowait(self) -> None:
        held, self._held = self._held or [], None
        for event in held:
            self.show_nowait(event)
