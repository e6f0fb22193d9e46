"""Stopping a prompt's running tools so that each still reports how far it got.

When the prompt is cancelled while its tools run, the conductor does not simply abandon a call's
``RunTools`` stream: it tells the executor ``InterruptTools`` and keeps reading that stream,
where every call's ``ToolFinished`` arrives, saying it was interrupted, after how long, with the
output captured so far. Collected before the prompt's ``finally`` closes the conversation,
those results reach the model instead of a bare "interrupted".
"""

from __future__ import annotations

import contextlib
from typing import TYPE_CHECKING

import anyio

from actors.protocol import InterruptTools

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Callable

    from actors.protocol import ToolEvent, ToolExecutorMsg
    from runtime import Address

# How long an interrupted prompt waits for its tools to report. Commands stop within the
# process groups' INTERRUPT_GRACE (0.1 s), so this is only reached by a wedged call.
INTERRUPT_WAIT = 2.0


async def collect_interrupted(
    tools: Address[ToolExecutorMsg],
    pending: tuple[str, ...],
    events: AsyncIterator[ToolEvent],
    record: Callable[[ToolEvent], None],
) -> None:
    """Interrupt the ``pending`` calls and ``record`` every event until their stream ends.

    Shielded, as the cancellation is already here, and bounded, so that a wedged executor
    cannot hold up the user's Ctrl-C (a call still running when time is up gets the
    conversation's generic notice, and ends as the stream is abandoned). ``record`` must not
    wait: it shows what it can without blocking (a stalled renderer must not hold this up).
    """
    # Whatever the executor says now, the cancellation in flight is what the caller must see:
    # a failure here only ends the wait for results.
    with (
        anyio.CancelScope(shield=True),
        anyio.move_on_after(INTERRUPT_WAIT),
        contextlib.suppress(Exception),
    ):
        if pending:
            await tools.tell(InterruptTools(ids=pending))
        async for event in events:
            record(event)
