"""A session's events, replayed into the state a resumed conductor starts from."""

from __future__ import annotations

from typing import TYPE_CHECKING

from actors.protocol import (
    CheckpointRestored,
    CheckpointTaken,
    LedgerChanged,
    MessageAdded,
    MessagesKept,
    ModelChosen,
    SavedSession,
    SessionStarted,
    TaskLedger,
    UsageCounted,
)

if TYPE_CHECKING:
    from collections.abc import Iterable

    from actors.protocol import Checkpoint, Message, SessionEvent


def replay(session_id: str, events: Iterable[SessionEvent]) -> SavedSession:
    messages: list[Message] = []
    ledger = TaskLedger()
    checkpoints: list[Checkpoint] = []
    prompts = 0
    started = ""
    added = 0
    spent: list[UsageCounted] = []
    model = ""
    for event in events:
        match event:
            case SessionStarted():
                started = event.started
            case MessagesKept(count=count):
                del messages[count:]
            case MessageAdded(message=message):
                messages.append(message)
                added += 1
            case UsageCounted():
                spent.append(event)
            case LedgerChanged(ledger=changed):
                ledger = changed
            case CheckpointTaken(checkpoint=checkpoint):
                checkpoints.append(checkpoint)
                prompts = max(prompts, checkpoint.prompt)
            case CheckpointRestored(prompt=prompt):
                checkpoints = [c for c in checkpoints if c.prompt != prompt]
            case ModelChosen():
                model = event.model
    return SavedSession(
        session_id=session_id,
        messages=messages,
        ledger=ledger,
        checkpoints=tuple(checkpoints),
        prompts=prompts,
        started=started,
        added=added,
        spent=tuple(spent),
        model=model,
    )
