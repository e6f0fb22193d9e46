"""Where a prompt began, and the conversation cut back to just before it: also a prompt merged
into the results of an interrupted turn, and one whose conversation was compacted away."""

from __future__ import annotations

from typing import TYPE_CHECKING, cast

import pytest

from actors.conductor.compaction import compacted
from actors.conductor.conversation import Conversation
from actors.conductor.keeper import SessionKeeper
from actors.conductor.rewind import Rewinder
from actors.errors import UsageError
from actors.protocol import (
    COMPACTED_HEADER,
    Checkpoint,
    CheckpointTaken,
    FileBefore,
    Message,
    PromptMark,
    PromptMarked,
    Rewind,
    RewindSettled,
    RewindUndo,
    RewindUndone,
    Rewound,
    TaskLedger,
)
from actors.session_store import replay
from tests.conductor.test_conversation import tool_use

if TYPE_CHECKING:
    from actors.protocol import SessionEvent, ToolExecutorMsg
    from runtime import Address

pytestmark = pytest.mark.anyio

# A conversation-only rewind never reaches the files: no executor is needed.
NO_TOOLS = cast("Address[ToolExecutorMsg]", None)


@pytest.fixture
def anyio_backend() -> str:
    return "trio"


def prompt(keeper: SessionKeeper, conversation: Conversation, text: str) -> None:
    before = list(conversation.messages)
    conversation.add_prompt(text)
    keeper.start_prompt(text, before=before, after=conversation.messages)


async def test_a_prompt_merged_into_an_interrupted_turn_is_cut_and_the_results_stay() -> None:
    keeper, conversation = SessionKeeper(None, NO_TOOLS), Conversation()
    rewinder = Rewinder(keeper, NO_TOOLS)
    prompt(keeper, conversation, "one")
    conversation.add_assistant(Message("assistant", [tool_use("a")]))
    conversation.close_interrupted([], {})  # Esc: the call is answered as interrupted
    results = conversation.messages[-1]
    prompt(keeper, conversation, "two")  # merged into the results' message
    conversation.add_assistant(Message("assistant", [{"type": "text", "text": "ok"}]))
    assert [p.conversation for p in rewinder.points(conversation.messages).points] == [True, True]

    after, report = await rewinder.rewind(
        Rewind(back=1, restore="conversation"), conversation.messages
    )
    assert after == [*conversation.messages[:2], results]
    assert report.prompt_text == "two" and report.conversation
    # Its undo puts the conversation back as it was.
    back, _ = await rewinder.undo(after or [])
    assert back == conversation.messages


async def test_a_compacted_conversation_offers_only_the_code_and_says_why() -> None:
    keeper, conversation = SessionKeeper(None, NO_TOOLS), Conversation()
    rewinder = Rewinder(keeper, NO_TOOLS)
    prompt(keeper, conversation, "one")
    conversation.add_assistant(Message("assistant", [{"type": "text", "text": "ok"}]))
    keeper.checkpoints = [Checkpoint(prompt=1, files=(FileBefore("/p/a.txt", None),))]
    compacted = [Message("user", [{"type": "text", "text": f"{COMPACTED_HEADER}\nsummary"}])]
    (point,) = rewinder.points(compacted).points
    assert (point.conversation, point.files) == (False, ("/p/a.txt",))
    assert point.gone == "compacted since"
    with pytest.raises(UsageError) as refused:
        await rewinder.rewind(Rewind(back=1), compacted)
    assert refused.value.describe().splitlines() == [
        "the conversation cannot go back to before prompt 1: it was compacted since",
        "  → Rewind its files only: /rewind 1 code",
    ]
    # Nothing left to restore at all: the prompt is not listed.
    keeper.checkpoints = []
    assert rewinder.points(compacted).points == ()


async def test_a_prompt_a_compaction_kept_goes_back_to_just_after_the_summary() -> None:
    keeper, conversation = SessionKeeper(None, NO_TOOLS), Conversation()
    rewinder = Rewinder(keeper, NO_TOOLS)
    for said in ("one", "two"):
        prompt(keeper, conversation, said)
        conversation.add_assistant(Message("assistant", [{"type": "text", "text": "ok"}]))
    # The summary goes in front of the kept prompt's own message (compaction.compacted).
    summary = compacted("one was done", TaskLedger(goal="one"), conversation.messages[2:])
    listing = rewinder.points(summary)
    assert [(p.prompt, p.conversation, p.gone) for p in listing.points] == [(2, True, "")]
    after, report = await rewinder.rewind(Rewind(back=1), summary)
    assert report.prompt_text == "two"
    assert after == [Message("user", summary[0].content[:2])]  # the summary and the ledger


def test_a_session_saved_before_prompts_were_marked_says_why_nothing_is_listed() -> None:
    keeper = SessionKeeper(None, NO_TOOLS)
    rewinder = Rewinder(keeper, NO_TOOLS)
    assert rewinder.points([]).nothing.startswith("Nothing to rewind to yet")
    keeper.checkpoints = [Checkpoint(prompt=1, files=(FileBefore("/p/a.txt", b"a"),))]
    listing = rewinder.points([])
    assert listing.points == () and listing.nothing.endswith(
        "/undo still restores the latest prompt's files."
    )


def test_replay_keeps_a_rewind_undoable_until_a_prompt_clear_or_compact() -> None:
    mark = PromptMark(prompt=1, text="one", at="t", kept=0, digest="d")
    used = Checkpoint(prompt=1, files=(FileBefore("/p/a.txt", None),))
    undo = RewindUndo(prompt=1, restore="both", checkpoints=(used,), marks=(mark,))
    start: list[SessionEvent] = [PromptMarked(mark), CheckpointTaken(used), Rewound(undo)]
    saved = replay("s", start)
    assert (saved.rewind, saved.marks, saved.checkpoints, saved.prompts) == (undo, (), (), 1)
    undone = replay("s", [*start, RewindUndone()])
    assert (undone.rewind, undone.marks, undone.checkpoints) == (None, (mark,), (used,))
    assert replay("s", [*start, RewindSettled()]).rewind is None
    later = PromptMark(prompt=2, text="two", at="t", kept=0)
    assert replay("s", [*start, PromptMarked(later)]).rewind is None
