"""What the conductor keeps beyond the conversation (issue 7): the session file, the task
ledger and the checkpoints ``/undo`` restores.

The conductor calls ``save`` after each change to the conversation; the keeper works out what
changed since the last save (messages added, or the list cut back by a merge or a compaction)
and sends just that to the session store, so the file grows by one line per event.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from actors.conductor import checkpoints, ledger
from actors.protocol import (
    CaptureCheckpoint,
    Checkpoint,
    CheckpointRestored,
    CheckpointTaken,
    LedgerChanged,
    ListChanges,
    LoadSession,
    MessageAdded,
    MessagesKept,
    SaveEvents,
    TaskLedger,
)

if TYPE_CHECKING:
    from actors.protocol import (
        Message,
        SessionEvent,
        SessionStoreMsg,
        ToolCall,
        ToolExecutorMsg,
    )
    from runtime import Address

NOTHING_TO_UNDO = "Nothing to undo: no prompt in this session has changed files with its tools."


class SessionKeeper:
    def __init__(
        self, sessions: Address[SessionStoreMsg] | None, tools: Address[ToolExecutorMsg]
    ) -> None:
        self._sessions = sessions
        self._tools = tools  # reads and restores the checkpoints' files
        self._saved: list[Message] = []  # the messages the session file holds, in order
        self.ledger = TaskLedger()
        self.checkpoints: list[Checkpoint] = []
        self.prompt = 0  # the number of the prompt running or last run

    async def restore(self) -> list[Message]:
        """The resumed session's conversation (empty for a new session)."""
        if self._sessions is None:
            return []
        saved = await self._sessions.ask(LoadSession())
        self._saved = list(saved.messages)
        self.ledger = saved.ledger
        self.checkpoints = list(saved.checkpoints)
        self.prompt = saved.prompts
        return list(saved.messages)

    async def start_prompt(self, text: str) -> None:
        """A prompt begins: number it; the first prompt of a conversation is its goal."""
        self.prompt += 1
        if not self.ledger.goal:
            goal = ledger.start(text).goal
            await self.save_ledger(msgspec.structs.replace(self.ledger, goal=goal))

    async def save(self, messages: list[Message]) -> None:
        """Record how ``messages`` differs from what was saved last."""
        events: list[SessionEvent] = []
        same = 0
        for old, new in zip(self._saved, messages, strict=False):
            if old is not new:
                break
            same += 1
        if same < len(self._saved):
            events.append(MessagesKept(same))
        events.extend(MessageAdded(message) for message in messages[same:])
        self._saved = list(messages)
        await self._send(events)

    async def save_ledger(self, changed: TaskLedger) -> None:
        if changed != self.ledger:
            self.ledger = changed
            await self._send([LedgerChanged(changed)])

    async def before_tools(self, calls: tuple[ToolCall, ...]) -> None:
        """Record what these calls are about to change, before any of them runs."""
        taken = {f.path for c in self.checkpoints if c.prompt == self.prompt for f in c.files}
        changes = await self._tools.ask(ListChanges(calls=calls))
        fresh = tuple(path for path in changes.paths if path not in taken)
        files = await self._tools.ask(CaptureCheckpoint(paths=fresh)) if fresh else ()
        events: list[SessionEvent] = []
        if fresh or changes.commands:
            checkpoint = Checkpoint(prompt=self.prompt, files=files, commands=changes.commands)
            self.checkpoints.append(checkpoint)
            events.append(CheckpointTaken(checkpoint))
        touched = ledger.touch(self.ledger, list(changes.paths))
        if touched != self.ledger:
            self.ledger = touched
            events.append(LedgerChanged(touched))
        await self._send(events)

    async def undo(self) -> tuple[str, bool]:
        """Restore the latest prompt that changed files; (what was done, whether it did)."""
        with_files = [c for c in self.checkpoints if c.files]
        if not with_files:
            commands = [c for c in self.checkpoints if c.commands]
            if commands:
                return (
                    f"{NOTHING_TO_UNDO} Shell commands ran, and /undo does not cover what "
                    "they changed.",
                    False,
                )
            return NOTHING_TO_UNDO, False
        prompt = with_files[-1].prompt
        merged = checkpoints.merge([c for c in self.checkpoints if c.prompt == prompt])
        text = await checkpoints.restore(self._tools, merged)
        self.checkpoints = [c for c in self.checkpoints if c.prompt != prompt]
        await self._send([CheckpointRestored(prompt)])
        return text, True

    async def clear(self) -> None:
        """A fresh conversation: the ledger starts over; checkpoints stay undoable."""
        await self.save([])
        await self.save_ledger(TaskLedger())

    async def _send(self, events: list[SessionEvent]) -> None:
        if self._sessions is not None and events:
            await self._sessions.ask(SaveEvents(events=tuple(events)))
