"""A list to pick one row from, drawn in the live part above the input (``Screen.choose``):
Up and Down move, Enter or a row's number picks, Esc or Ctrl-C cancels."""

from __future__ import annotations

from dataclasses import dataclass, field

import anyio

from actors.visible import escape_controls

SHOWN = 10  # rows in sight at once; the list scrolls to keep the chosen one in view


@dataclass
class Picker:
    title: str
    rows: tuple[str, ...]
    index: int = 0
    picked: int | None = None  # None: cancelled
    done: anyio.Event = field(default_factory=anyio.Event)

    def move(self, step: int) -> None:
        self.index = (self.index + step) % len(self.rows)

    def pick(self, index: int | None) -> None:
        if index is not None and not 0 <= index < len(self.rows):
            return  # a number past the list: nothing to pick
        self.picked = index
        self.done.set()

    def text(self, width: int) -> str:
        """The title, the rows in sight (the chosen one marked) and the keys, as ANSI text."""
        first = max(0, min(self.index - SHOWN // 2, len(self.rows) - SHOWN))
        lines = [f"\x1b[1m{escape_controls(self.title)}\x1b[0m"]
        if first:
            lines.append(f"\x1b[2m  ↑ {first} more\x1b[0m")
        for number, row in enumerate(self.rows[first : first + SHOWN], start=first):
            shown = _fit(f"{number + 1}. {escape_controls(row)}", width - 4)
            if number == self.index:
                lines.append(f"\x1b[1;36m❯ {shown}\x1b[0m")
            else:
                lines.append(f"  {shown}")
        rest = len(self.rows) - first - SHOWN
        if rest > 0:
            lines.append(f"\x1b[2m  ↓ {rest} more\x1b[0m")
        lines.append("\x1b[2m↑↓ to choose · Enter or a number to pick · Esc to cancel\x1b[0m")
        return "\n".join(lines)


def _fit(line: str, width: int) -> str:
    line = " ".join(line.split())
    return line if len(line) <= max(width, 10) else line[: max(width, 10) - 1] + "…"
