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
    PromptMarked,
    RewindSettled,
    RewindUndone,
    Rewound,
    SavedSession,
    SessionStarted,
    TaskLedger,
    UsageCounted,
)

if TYPE_CHECKING:
    from collections.abc import Iterable

    from actors.protocol import Checkpoint, Message, PromptMark, RewindUndo, SessionEvent


def replay(session_id: str, events: Iterable[SessionEvent]) -> SavedSession:
    messages: list[Message] = []
    ledger = TaskLedger()
    checkpoints: list[Checkpoint] = []
    prompts = 0
    marks: list[PromptMark] = []
    rewind: RewindUndo | None = None  # undoable until the next prompt
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
            case PromptMarked(mark=mark):
                marks.append(mark)
                prompts = max(prompts, mark.prompt)
                rewind = None
            case Rewound(undo=undo):
                # Its cut of the conversation comes as MessagesKept; the rest is here.
                if undo.restore != "conversation":
                    checkpoints = [c for c in checkpoints if c.prompt < undo.prompt]
                if undo.restore != "code":
                    marks = [m for m in marks if m.prompt < undo.prompt]
                rewind = undo
            case RewindSettled():
                rewind = None
            case RewindUndone() if rewind is not None:
                checkpoints = sorted([*checkpoints, *rewind.checkpoints], key=_prompt)
                marks = sorted([*marks, *rewind.marks], key=_prompt)
                rewind = None
            case ModelChosen():
                model = event.model
    return SavedSession(
        session_id=session_id,
        messages=messages,
        ledger=ledger,
        checkpoints=tuple(checkpoints),
        prompts=prompts,
        marks=tuple(marks),
        rewind=rewind,
        started=started,
        added=added,
        spent=tuple(spent),
        model=model,
    )


def _prompt(item: Checkpoint | PromptMark) -> int:
    return item.prompt
