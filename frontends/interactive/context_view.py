"""``/context`` on the terminal: the window's parts as a row of coloured cells above the
report, each part's label in its cells' colour (frontends/context_report.py)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text

from frontends.context_report import PARTS, bar, context_text

if TYPE_CHECKING:
    from actors.protocol import ContextFill, ProjectContext


def context_view(context: ProjectContext, fill: ContextFill) -> Text:
    shown = Text()
    for part, cells in bar(context, fill):
        colour, cell = PARTS[part]
        shown.append(cell * cells, style=colour)
    shown.append("\n")
    for line in context_text(context, fill).splitlines():
        label = line.strip().split("  ")[0] if line.startswith("  ") else ""
        if label in PARTS:
            start = line.index(label)
            shown.append(line[:start])
            shown.append(PARTS[label][1] + " ", style=PARTS[label][0])
            shown.append(line[start:] + "\n")
        else:
            shown.append(line + "\n")
    shown.rstrip()
    return shown
