"""Rewind: the files, the conversation or both, back to just before one of the session's prompts;
and the undo of a rewind, until the next prompt.

Each prompt leaves a mark where it began (``PromptMark``: the conversation's length before it,
and a digest of its first block); the files come from the checkpoints of that prompt and every
later one, each file's earliest content, restored through the executor as ``/undo`` restores
one prompt's. Before anything changes, the files as they are now, the checkpoints and marks
used up and the messages cut are written to the session (``Rewound``): so a rewind can be
undone after a crash or a ``--resume`` too, until the next prompt settles it.

A conversation that was compacted or cleared since a prompt no longer holds where it began: its
files can still be restored, its conversation cannot, and the list says so.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import anyio

from actors import tool_routes
from actors.conductor import checkpoints
from actors.conductor.keeper import SessionKeeper, digest
from actors.errors import UsageError
from actors.protocol import (
    COMPACTED_HEADER,
    CaptureFiles,
    LedgerChanged,
    ListBackground,
    Message,
    RestoreCheckpoint,
    RewindPoint,
    RewindPoints,
    RewindReport,
    RewindSettled,
    RewindUndo,
    RewindUndone,
    Rewound,
    TaskLedger,
)
from actors.visible import one_line

if TYPE_CHECKING:
    from actors.protocol import (
        BackgroundAgent,
        Checkpoint,
        FileBefore,
        PromptMark,
        Rewind,
        RewindRestore,
        SessionEvent,
        ToolExecutorMsg,
    )
    from runtime import Address

NOTHING_YET = "Nothing to rewind to yet: no prompt of this session is left to go back to."
# A session saved before each prompt's beginning was recorded: its files can still go back.
UNMARKED = (
    "Nothing to rewind to: this session's prompts were saved before Legato recorded where each "
    "began. /undo still restores the latest prompt's files."
)


class Rewinder:
    def __init__(self, keeper: SessionKeeper, tools: Address[ToolExecutorMsg]) -> None:
        self._keeper = keeper
        self._tools = tools  # reads and writes the files: the one door to them

    # ── the list ─────────────────────────────────────────────────────────────────────────

    def points(self, messages: list[Message]) -> RewindPoints:
        listed: list[RewindPoint] = []
        for mark in reversed(self._keeper.marks):
            merged = self._files_since(mark.prompt)
            gone = _gone(mark, messages)
            if gone and merged is None:
                continue  # nothing of it left to restore
            listed.append(
                RewindPoint(
                    prompt=mark.prompt,
                    text=mark.text,
                    at=mark.at,
                    conversation=not gone,
                    gone=gone,
                    files=() if merged is None else tuple(f.path for f in merged.files),
                    commands=0 if merged is None else len(merged.commands),
                )
            )
        undo = self._keeper.rewind
        said = None if undo is None else f"undo the rewind to before prompt {undo.prompt}"
        nothing = "" if listed else self._nothing()
        return RewindPoints(points=tuple(listed), undo=said, nothing=nothing)

    def _nothing(self) -> str:
        if self._keeper.checkpoints and not self._keeper.marks:
            return UNMARKED
        return NOTHING_YET

    def _files_since(self, prompt: int) -> Checkpoint | None:
        """Every checkpoint of ``prompt`` and later, as one; None when there is none."""
        used = sorted((c for c in self._keeper.checkpoints if c.prompt >= prompt), key=_number)
        return checkpoints.merge(used) if used else None

    def _chosen(self, ask: Rewind, messages: list[Message]) -> PromptMark:
        points = self.points(messages).points
        if not points:
            raise UsageError(self._nothing(), remedy="Rewind goes back to a prompt sent before it")
        if ask.prompt or ask.message_id:
            listed = {point.prompt for point in points}
            for mark in self._keeper.marks:
                by_id = bool(ask.message_id) and mark.message_id == ask.message_id
                if (mark.prompt == ask.prompt or by_id) and mark.prompt in listed:
                    return mark
            which = f"prompt {ask.prompt}" if ask.prompt else f"user message {ask.message_id!r}"
            raise UsageError(
                f"no {which} to rewind to in this session (or nothing of it left to restore)",
                remedy="Name a prompt the session's list holds (/rewind lists them)",
            )
        if not 1 <= ask.back <= len(points):
            most = "1" if len(points) == 1 else f"1 to {len(points)}"
            raise UsageError(
                f"cannot rewind {ask.back} prompts back: this session has {len(points)} "
                f"prompt{'s' if len(points) > 1 else ''} to go back to",
                remedy=f"Give a number from {most} (/rewind 1 goes back to before the latest "
                "prompt), or type /rewind to pick from the list",
            )
        wanted = points[ask.back - 1].prompt
        return next(m for m in self._keeper.marks if m.prompt == wanted)

    # ── rewind and its undo ──────────────────────────────────────────────────────────────

    async def rewind(
        self, ask: Rewind, messages: list[Message]
    ) -> tuple[list[Message] | None, RewindReport]:
        """The conversation after the rewind (None: left as it is) and what was done."""
        mark = self._chosen(ask, messages)
        restore: RewindRestore = ask.restore
        gone = _gone(mark, messages)
        if gone and restore != "code":
            raise UsageError(
                f"the conversation cannot go back to before prompt {mark.prompt}: it was {gone}",
                remedy=f"Rewind its files only: /rewind {ask.back} code"
                if ask.back
                else "Restore its code only",
            )
        merged = self._files_since(mark.prompt) if restore != "conversation" else None
        if restore == "code" and (merged is None or not merged.files):
            commands = "; shell commands ran, and what they changed is not kept" if merged else ""
            text = (
                f"Nothing to restore: no prompt since prompt {mark.prompt} began has "
                f"changed files with its tools{commands}."
            )
            # Why nothing came back (a project past the walk's cap, a file too large to copy).
            shown = [text, *checkpoints.unrestored(merged)] if merged else [text]
            return None, RewindReport(text="\n".join(shown))
        keeper = self._keeper
        paths = _paths(merged)
        taken = () if merged is None else merged.files
        files = await self._tools.ask(CaptureFiles(files=taken)) if taken else ()
        since = mark.prompt if merged is not None else keeper.prompt + 1
        used = tuple(c for c in keeper.checkpoints if c.prompt >= since)
        cut, kept = len(messages), list(messages)
        dropped: tuple[PromptMark, ...] = ()
        ledger = None
        if restore != "code":
            cut, place = _found(mark, messages) or (0, 0)  # found: ``_gone`` said so above
            kept = messages[:cut]
            if place:
                # Merged into a user message (an interrupted turn's results, a compaction's
                # summary): that part stays.
                kept.append(Message("user", list(messages[cut].content[:place])))
            dropped = tuple(m for m in keeper.marks if m.prompt >= mark.prompt)
            if not kept and keeper.ledger != TaskLedger():
                ledger = keeper.ledger  # back before the first prompt: the goal is the next one
        undo = RewindUndo(
            prompt=mark.prompt,
            restore=restore,
            files=files,
            checkpoints=used,
            marks=dropped,
            cut=cut,
            tail=tuple(messages[cut:]) if restore != "code" else (),
            ledger=ledger,
        )
        # Once started, done whole: the files are local and quick to write, and a rewind half
        # done (files back, the conversation not) is worse than one that finishes after Esc.
        with anyio.CancelScope(shield=True):
            events: list[SessionEvent] = [Rewound(undo)]
            if ledger is not None:
                keeper.ledger = TaskLedger()
                events.append(LedgerChanged(keeper.ledger))
            await keeper.send(events, durable=True)
            keeper.rewind = undo
            keeper.checkpoints = [c for c in keeper.checkpoints if c not in used]
            keeper.marks = [m for m in keeper.marks if m not in dropped]
            lines = []
            if merged is not None and merged.files:
                lines.append(await checkpoints.restore(self._tools, merged))
                lines.append(_not_undoable(taken, files))
            elif restore == "both":
                ran = " (shell commands ran: what they changed stays)" if merged else ""
                lines.append(f"No files to restore: no prompt since changed files with tools{ran}.")
                lines.extend(checkpoints.unrestored(merged) if merged else ())
        said = {
            "both": "the code and the conversation",
            "code": "the code",
            "conversation": "the conversation",
        }[restore]
        head = f"Rewound {said} to just before prompt {mark.prompt} ({_short(mark.text)})."
        text = "\n".join([head, *(line for line in lines if line)])
        report = RewindReport(
            text=text, prompt_text=mark.text, conversation=restore != "code", files=paths
        )
        return (kept if restore != "code" else None), report

    async def undo(self, messages: list[Message]) -> tuple[list[Message] | None, RewindReport]:
        """Put the latest rewind back; the conversation after (None: left as it is)."""
        undo = self._keeper.rewind
        if undo is None:
            raise UsageError(
                "no rewind to undo: a prompt since the latest one settles it",
                remedy="Type /rewind to go back to an earlier prompt",
            )
        keeper = self._keeper
        with anyio.CancelScope(shield=True):  # as the rewind itself: done whole
            events: list[SessionEvent] = [RewindUndone()]
            if undo.ledger is not None:
                keeper.ledger = undo.ledger
                events.append(LedgerChanged(undo.ledger))
            await keeper.send(events, durable=True)
            keeper.rewind = None
            keeper.checkpoints = sorted([*keeper.checkpoints, *undo.checkpoints], key=_number)
            keeper.marks = sorted([*keeper.marks, *undo.marks], key=_number)
            lines: tuple[str, ...] = ()
            if undo.files:
                lines = await self._tools.ask(RestoreCheckpoint(files=undo.files))
                # The files were recorded just before the rewind, not before a prompt.
                lines = tuple(
                    line.replace("(the prompt created it)", "(the rewind brought it back)")
                    for line in lines
                )
        after = None if undo.restore == "code" else [*messages[: undo.cut], *undo.tail]
        put_back = {"both": "code and conversation", "code": "code", "conversation": "conversation"}
        text = "\n".join(
            [
                f"Undid the rewind to before prompt {undo.prompt}: its {put_back[undo.restore]} "
                "are as they were before it.",
                *lines,
            ]
        )
        return after, RewindReport(text=text, conversation=after is not None)

    async def settle(self) -> None:
        """``/clear`` or ``/compact``: the latest rewind can no longer be undone."""
        if self._keeper.rewind is not None:
            self._keeper.rewind = None
            await self._keeper.send([RewindSettled()])


async def still_running(
    tools: Address[ToolExecutorMsg], agents: tuple[BackgroundAgent, ...]
) -> str:
    """The background commands and agents a rewind leaves running, in words ("" if none)."""
    commands = await tools.ask(ListBackground())
    running = tool_routes.still_running(commands, agents)
    if not running:
        return ""
    return (
        f"Still running in the background, untouched by the rewind: {', '.join(running)} "
        "(/tasks stop <id> stops one)."
    )


def _found(mark: PromptMark, messages: list[Message]) -> tuple[int, int] | None:
    """Where ``mark``'s prompt begins: its message and its first block's place in it; None when
    the conversation no longer holds it. Where it began, else (a compaction kept it, behind
    the summary) the one place that holds its first block."""
    index = mark.kept if mark.head is None else mark.kept - 1
    start = mark.head or 0
    if 0 <= index < len(messages) and _holds(messages[index], start, mark.digest):
        return index, start
    found = [
        (i, place)
        for i, message in enumerate(messages)
        for place in range(len(message.content))
        if _holds(message, place, mark.digest)
    ]
    return found[0] if len(found) == 1 else None


def _holds(message: Message, place: int, wanted: str) -> bool:
    return (
        message.role == "user"
        and len(message.content) > place
        and bool(wanted)
        and digest(message.content[place]) == wanted
    )


def _gone(mark: PromptMark, messages: list[Message]) -> str:
    """Why the conversation no longer holds where ``mark``'s prompt began; "" if it does."""
    if _found(mark, messages) is not None:
        return ""
    if not messages:
        return "cleared since"
    head = messages[0].content[0] if messages[0].content else {}
    if str(head.get("text", "")).startswith(COMPACTED_HEADER):
        return "compacted since"
    return "changed since"


def _not_undoable(taken: tuple[FileBefore, ...], kept: tuple[FileBefore, ...]) -> str:
    """The files the rewind restores whose state just before it no copy holds (a symlink, a
    folder, a file too large to copy): undoing the rewind leaves them as the rewind made them,
    and the person is told before relying on it. "" when there is none."""
    held = {before.path for before in kept}
    lost = [one_line(before.path) for before in taken if before.path not in held]
    if not lost:
        return ""
    return (
        f"Undoing this rewind will not bring back {', '.join(lost)} as just before it (a "
        "symlink, a folder or a file too large to copy then)."
    )


def _paths(merged: Checkpoint | None) -> tuple[str, ...]:
    return () if merged is None else tuple(f.path for f in merged.files)


def _number(item: Checkpoint | PromptMark) -> int:
    return item.prompt


def _short(text: str) -> str:
    line = " ".join(text.split())
    return f"“{line}”" if len(line) <= 50 else f"“{line[:49]}…”"
