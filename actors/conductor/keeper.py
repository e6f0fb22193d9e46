"""What the conductor keeps beyond the conversation: the session file, the task ledger and the
checkpoints ``/undo`` restores.

The conductor calls ``save`` after each change to the conversation; the keeper works out what
changed since the last save (messages added, or the list cut back by a merge or a compaction)
and sends just that to the session store, so the file grows by one line per event. The
conductor does not wait for those writes (``AppendEvents``): the store writes them in the order
they came. It waits for one thing only: a checkpoint of files, which must be on disk before
the calls it protects can change them (``SaveEvents``, answered once written).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import msgspec

from actors.conductor import checkpoints, ledger
from actors.protocol import (
    AppendEvents,
    CaptureCheckpoint,
    Checkpoint,
    CheckpointRestored,
    CheckpointTaken,
    LedgerChanged,
    LoadSession,
    MessageAdded,
    MessagesKept,
    ModelChosen,
    SaveEvents,
    TaskLedger,
    UsageCounted,
)

if TYPE_CHECKING:
    from actors.protocol import (
        Message,
        SessionEvent,
        SessionStoreMsg,
        ToolCall,
        ToolExecutorMsg,
        Usage,
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
        self._staged: list[SessionEvent] = []  # go out with the next events sent
        self.read_only: frozenset[str] = frozenset()  # tools whose calls need no checkpoint
        self.model = ""  # the resumed session's latest /model choice

    async def restore(self) -> list[Message]:
        """The resumed session's conversation (empty for a new session)."""
        if self._sessions is None:
            return []
        saved = await self._sessions.ask(LoadSession())
        self._saved = list(saved.messages)
        self.ledger = saved.ledger
        self.checkpoints = list(saved.checkpoints)
        self.prompt = saved.prompts
        self.model = saved.model
        return list(saved.messages)

    def start_prompt(self, text: str) -> None:
        """A prompt begins: number it; the first prompt of a conversation is its goal."""
        self.prompt += 1
        if not self.ledger.goal:
            # Sent with the prompt's first message, which the conductor saves next.
            self.ledger = msgspec.structs.replace(self.ledger, goal=ledger.start(text).goal)
            self._staged.append(LedgerChanged(self.ledger))

    def count(self, usage: Usage, model: str) -> None:
        """An answer's tokens: saved with the next events sent, so that a resumed session's
        /cost goes on from what this one spent."""
        self._staged.append(UsageCounted(usage, model))

    async def save(self, messages: list[Message]) -> None:
        """Record how ``messages`` differs from what was saved last."""
        events: list[SessionEvent] = []
        same = len(self._saved)
        # Nearly always the saved messages are still there, first: one comparison in C (it
        # takes each identical pair as equal without looking inside), not a loop in Python
        # over a history that grows with every turn.
        if messages[:same] != self._saved:
            same = 0
            for old, new in zip(self._saved, messages, strict=False):
                if old is not new:
                    break
                same += 1
        if same < len(self._saved):
            events.append(MessagesKept(same))
        events.extend(MessageAdded(message) for message in messages[same:])
        await self._send(events)
        # Only once sent: events a cancel kept from the store go with the next save.
        self._saved = list(messages)

    async def choose_model(self, model: str) -> None:
        """The person chose ``model``: a resumed session goes on with it."""
        self.model = model
        await self._send([ModelChosen(model)])

    async def save_ledger(self, changed: TaskLedger) -> None:
        if changed != self.ledger:
            self.ledger = changed
            await self._send([LedgerChanged(changed)])

    async def before_tools(self, calls: tuple[ToolCall, ...]) -> None:
        """Record what these calls are about to change, before any of them runs: on disk
        first when they write files (one request to the executor; none for calls that only
        read)."""
        if all(call.name in self.read_only for call in calls):
            return
        taken = tuple(f.path for c in self.checkpoints if c.prompt == self.prompt for f in c.files)
        changes = await self._tools.ask(CaptureCheckpoint(calls=calls, taken=taken))
        events: list[SessionEvent] = []
        if changes.files or changes.commands:
            checkpoint = Checkpoint(
                prompt=self.prompt, files=changes.files, commands=changes.commands
            )
            self.checkpoints.append(checkpoint)
            events.append(CheckpointTaken(checkpoint))
        touched = ledger.touch(self.ledger, list(changes.paths))
        if touched != self.ledger:
            self.ledger = touched
            events.append(LedgerChanged(touched))
        # A shell command's checkpoint only lists it (what it changes is not recorded), so
        # nothing waits for it; files to restore must be written before the calls run.
        await self._send(events, durable=bool(changes.files))

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

    async def _send(self, events: list[SessionEvent], *, durable: bool = False) -> None:
        """Have ``events`` appended; ``durable``: return once they are written."""
        events = [*self._staged, *events]
        if self._sessions is not None and events:
            if durable:
                await self._sessions.ask(SaveEvents(events=tuple(events)))
            else:
                await self._sessions.tell(AppendEvents(events=tuple(events)))
        # Kept until sent, as above (each is the whole ledger, so sending one twice is harmless).
        self._staged = []
