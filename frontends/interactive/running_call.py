"""A tool call while it runs: its name and target, its clock, and the tail of its output.

The view keeps one ``Running`` per call in progress and draws it in the live part; its time
leaves out the waits for the person's answers, so it is the call's own.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

TAIL_LINES = 4  # output lines shown under a running tool


@dataclass
class Running:
    name: str
    summary: str
    started: float
    tail: deque[str] = field(default_factory=lambda: deque(maxlen=TAIL_LINES))
    partial: str = ""
    # While its question waits for the person, and how long earlier ones did: the time shown
    # is the call's own, as its ✓ line's is.
    asked_since: float | None = None
    waited: float = 0.0

    def elapsed(self, now: float) -> float:
        asking = 0.0 if self.asked_since is None else now - self.asked_since
        return now - self.started - self.waited - asking

    def add(self, text: str) -> None:
        head, *rest = (self.partial + text).split("\n")
        if rest:
            self.tail.append(head)
            self.tail.extend(rest[:-1])
            self.partial = rest[-1]
        else:
            self.partial = head

    def lines(self) -> list[str]:
        lines = [*self.tail, self.partial] if self.partial else list(self.tail)
        return lines[-TAIL_LINES:]


def call_text(name: str, target: str) -> str:
    """``Edit(src/x.py)``, or the name alone when nothing in the call's input names a target."""
    return f"{name}({target})" if target else name
