"""What the conductor keeps beyond the conversation: the session file, the task ledger, the
checkpoints ``/undo`` and ``/rewind`` restore, and where each prompt began (``PromptMark``).

The conductor calls ``save`` after each change to the conversation; the keeper works out what
changed since the last save (messages added, or the list cut back by a merge or a compaction)
and sends just that to the session store, so the file grows by one line per event. The
conductor does not wait for those writes (``AppendEvents``): the store writes them in the order
they came. It waits for one thing only: a checkpoint of files, which must be on disk before
the calls it protects can change them (``SaveEvents``, answered once written).
"""

from __future__ import annotations

import datetime
import hashlib
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
    PromptMark,
    PromptMarked,
    SaveEvents,
    SettleCheckpoint,
    TaskLedger,
    UsageCounted,
)

if TYPE_CHECKING:
    from actors.protocol import (
        Block,
        Message,
        RewindUndo,
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
        self._held = 0  # bytes of file content the session's checkpoints have saved
        # The commands of batches whose project is being watched, by watch: recorded once the
        # batch is done, without those the broker refused (they ran nothing).
        self._watched: dict[int, tuple[str, ...]] = {}
        self.prompt = 0  # the number of the prompt running or last run
        self.marks: list[PromptMark] = []  # where each prompt began, in order (/rewind's list)
        self.rewind: RewindUndo | None = None  # the latest rewind, undoable until a prompt
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
        self._held = sum(checkpoints.held(c) for c in self.checkpoints)
        self.prompt = saved.prompts
        self.marks = list(saved.marks)
        self.rewind = saved.rewind
        self.model = saved.model
        return list(saved.messages)

    def start_prompt(
        self,
        text: str,
        *,
        typed: str | None = None,
        before: list[Message] | None = None,
        after: list[Message] | None = None,
        message_id: str = "",
    ) -> None:
        """A prompt begins: number it, and mark where it begins in the conversation (``before``
        and ``after`` its message was added); the first prompt of a conversation is its goal.
        A rewind before it can no longer be undone."""
        self.prompt += 1
        messages = before or []
        merged = bool(messages) and messages[-1].role == "user"  # see Conversation._add_user
        head = len(messages[-1].content) if merged else None
        index = len(messages) - 1 if merged else len(messages)
        added = after[index].content[head or 0 :] if after and index < len(after) else []
        mark = PromptMark(
            prompt=self.prompt,
            text=text if typed is None else typed,
            at=datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
            kept=len(messages),
            head=head,
            digest=digest(added[0] if added else None),
            message_id=message_id,
        )
        self.marks.append(mark)
        self.rewind = None
        self._staged.append(PromptMarked(mark))
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

    async def before_tools(self, calls: tuple[ToolCall, ...]) -> int:
        """Record what these calls are about to change, before any of them runs: on disk
        first when they write files (one request to the executor; none for calls that only
        read). Returns the watch ``after_tools`` settles when the calls run shell commands
        (0: none)."""
        if all(call.name in self.read_only for call in calls):
            return 0
        taken = tuple(f.path for c in self._this_prompt() for f in c.files)
        changes = await self._tools.ask(
            CaptureCheckpoint(calls=calls, taken=taken, room=self._room())
        )
        events: list[SessionEvent] = []
        commands = changes.commands
        if changes.watch:
            self._watched[changes.watch], commands = commands, ()
        if changes.files or commands or changes.missed:
            checkpoint = Checkpoint(
                prompt=self.prompt,
                files=changes.files,
                commands=commands,
                missed=changes.missed,
                notes=changes.notes,
            )
            self._keep(checkpoint)
            events.append(CheckpointTaken(checkpoint))
        touched = ledger.touch(self.ledger, list(changes.paths))
        if touched != self.ledger:
            self.ledger = touched
            events.append(LedgerChanged(touched))
        # What a shell command changes is recorded after it ran (``after_tools``), so only
        # files to restore must be written before the calls run.
        await self._send(events, durable=bool(changes.files))
        return changes.watch

    async def after_tools(self, watch: int, refused: tuple[str, ...] = ()) -> None:
        """The batch ``before_tools`` answered with ``watch`` is done: record the commands it
        ran (not those in ``refused``, which the broker denied) and what they changed in the
        project, with the files as they were (on disk before this returns)."""
        commands = list(self._watched.pop(watch, ()))
        for command in refused:
            if command in commands:
                commands.remove(command)
        # Only entries read before the batch's are earlier: a later one of the same path
        # (a Write while the command ran) loses to the batch's own.
        taken = tuple(f.path for c in self._this_prompt() for f in c.files if 0 < f.order <= watch)
        settled = await self._tools.ask(
            SettleCheckpoint(watch=watch, taken=taken, room=self._room())
        )
        if settled.files or settled.missed or settled.notes or commands:
            checkpoint = Checkpoint(
                prompt=self.prompt,
                files=settled.files,
                commands=tuple(commands),
                missed=settled.missed,
                folders=settled.folders,
                notes=settled.notes,
            )
            self._keep(checkpoint)
            # A checkpoint that only names commands has nothing to restore: nobody waits on it.
            durable = bool(settled.files or settled.missed or settled.notes)
            await self._send([CheckpointTaken(checkpoint)], durable=durable)

    def _this_prompt(self) -> list[Checkpoint]:
        return [c for c in self.checkpoints if c.prompt == self.prompt]

    def _room(self) -> int:
        """The bytes of file content this prompt may still add to the session file."""
        held = sum(checkpoints.held(c) for c in self._this_prompt())
        return max(0, min(checkpoints.PROMPT_ROOM - held, checkpoints.SESSION_ROOM - self._held))

    def _keep(self, checkpoint: Checkpoint) -> None:
        self.checkpoints.append(checkpoint)
        self._held += checkpoints.held(checkpoint)

    async def undo(self) -> tuple[str, bool]:
        """Restore the latest prompt that changed files; (what was done, whether it did)."""
        with_files = [c for c in self.checkpoints if c.files or c.missed or c.folders or c.notes]
        if not with_files:
            commands = [c for c in self.checkpoints if c.commands]
            if commands:
                return (
                    f"{NOTHING_TO_UNDO} Shell commands ran, but changed none of the project's "
                    "files a checkpoint could see.",
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

    async def send(self, events: list[SessionEvent], *, durable: bool = False) -> None:
        """For the rewind (``rewind.py``): its own events, with what is staged."""
        await self._send(events, durable=durable)

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


def digest(block: Block | None) -> str:
    """A prompt's first block, in a few characters: tells whether the conversation still holds
    the prompt where it began."""
    if block is None:
        return ""
    return hashlib.sha256(msgspec.json.encode(block)).hexdigest()[:16]
