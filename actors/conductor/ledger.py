"""The task ledger: goal, decisions, files touched and open steps, kept beside the conversation.

A summary may drop what mattered; the ledger is not summarised. Its goal is the first prompt,
word for word; files come from the tool calls themselves; decisions and open steps come from
each compaction's summary (decisions accumulate, open steps are the latest). It is re-injected
verbatim, in this fixed shape, every time the conversation is compacted.
"""

from __future__ import annotations

import msgspec

from actors.protocol import LEDGER_START, TaskLedger

GOAL_CHARS = 2000  # a pasted log as the first prompt must not fill the window on its own
MAX_DECISIONS = 40  # the oldest decisions go first when there are more
MAX_FILES = 200


def start(goal: str) -> TaskLedger:
    text = goal.strip()
    if len(text) > GOAL_CHARS:
        text = text[:GOAL_CHARS] + " [...]"
    return TaskLedger(goal=text)


def touch(ledger: TaskLedger, paths: list[str]) -> TaskLedger:
    """The ledger with ``paths`` among the files touched (first touch first)."""
    new = [p for p in dict.fromkeys(paths) if p not in ledger.files_touched]
    if not new:
        return ledger
    files = (*ledger.files_touched, *new)[-MAX_FILES:]
    return msgspec.structs.replace(ledger, files_touched=files)


def merge(ledger: TaskLedger, decisions: list[str], open_steps: list[str]) -> TaskLedger:
    """A compaction's findings added: new decisions appended, open steps replaced."""
    kept = [d for d in dict.fromkeys(decisions) if d not in ledger.decisions]
    return msgspec.structs.replace(
        ledger,
        decisions=(*ledger.decisions, *kept)[-MAX_DECISIONS:],
        open_steps=tuple(open_steps),
    )


def render(ledger: TaskLedger) -> str:
    """The ledger as the model reads it; the same ledger always renders to the same text."""

    def bullets(items: tuple[str, ...]) -> str:
        return "\n".join(f"- {item}" for item in items) if items else "- (none)"

    return (
        f"{LEDGER_START}\n"
        f"Goal:\n{ledger.goal or '(not stated)'}\n"
        f"Decisions:\n{bullets(ledger.decisions)}\n"
        f"Files touched:\n{bullets(ledger.files_touched)}\n"
        f"Open steps:\n{bullets(ledger.open_steps)}\n"
        "</task-ledger>"
    )
