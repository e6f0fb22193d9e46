"""``/context``: what fills the model's context, section by section, in tokens.

First the window's parts (``PARTS``: the system prompt, the built-in tools, the memory files,
the skills' listing, the MCP tools, the messages, the free space and the auto-compaction
reserve) as a bar of cells and a table, then each section of ``SECTIONS`` (a function of the
session's context and its fill): a later report adds its own function, and every frontend that
shows ``/context`` shows it. Tokens are estimates, about four characters a token (the model
alone can count them exactly); the messages' share is the latest answer's own count, less the
other parts, when there is one.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

from actors.visible import escape_controls

if TYPE_CHECKING:
    from collections.abc import Callable

    from actors.protocol import ContextFill, GuideFile, ProjectContext


@dataclass(frozen=True, slots=True)
class Row:
    label: str
    tokens: int
    note: str = ""
    part: str = ""  # one of ``PARTS``: the colour of its cells in the bar


# The window's parts, in the bar's order, each with its colour and its cell: what is used
# first, then what is left, then what auto-compaction keeps free.
PARTS: dict[str, tuple[str, str]] = {
    "System prompt": ("grey62", "█"),
    "Built-in tools": ("cyan", "█"),
    "Memory files": ("yellow", "█"),
    "Skills": ("green", "█"),
    "MCP tools": ("blue", "█"),
    "Messages": ("magenta", "█"),
    "Free space": ("grey35", "·"),
    "Auto-compact reserve": ("grey50", "░"),
}
BAR_CELLS = 50  # 2% of the window a cell: the bar fits an 80-column terminal


@dataclass(frozen=True, slots=True)
class Section:
    title: str
    rows: tuple[Row, ...]
    empty: str = ""  # said when there is no row


_LEVELS = {"user": "user", "project": "project", "local": "local", "nested": "sub-folder"}


def instruction_files(context: ProjectContext, fill: ContextFill) -> Section:
    """The instruction files loaded at start, in the order the model reads them."""
    rows = tuple(Row(_shown(context, guide.path), guide.tokens, _note(context, guide))
                 for guide in context.guides)  # fmt: skip
    waiting = len(context.import_requests)
    empty = "none (LEGATO.md, CLAUDE.md, CLAUDE.local.md, AGENTS.md, ~/.claude/CLAUDE.md)"
    title = "Instruction files (in order of precedence, lowest first: the later one wins)"
    if waiting:
        title += f"; {waiting} import(s) from outside the project wait for 'legato trust'"
    return Section(title, rows, empty)


def memory_tokens(context: ProjectContext) -> int:
    """The instruction files and MEMORY.md, as the system prompt holds them."""
    from actors.instructions import estimate_tokens

    memory = estimate_tokens(context.memory) if context.memory else 0
    return sum(guide.tokens for guide in context.guides) + memory


def window_parts(context: ProjectContext, fill: ContextFill) -> Section:
    """The window shared out: each part's tokens and its share of the window."""
    memory = memory_tokens(context)
    tokens = {
        # The memory files are sent inside the system prompt: counted apart from it.
        "System prompt": max(fill.system - memory, 0),
        "Built-in tools": fill.tools,
        "Memory files": min(memory, fill.system),
        "Skills": fill.skills,
        "MCP tools": fill.mcp_tools,
        "Messages": fill.messages,
        "Free space": fill.free,
        "Auto-compact reserve": fill.reserve,
    }
    rows = tuple(Row(label, count, _share(count, fill.window), label)
                 for label, count in tokens.items())  # fmt: skip
    used = fill.used
    title = f"Context: {used:,} of {fill.window:,} tokens ({_share(used, fill.window)})"
    return Section(title, rows)


SECTIONS: tuple[Callable[[ProjectContext, ContextFill], Section], ...] = (
    window_parts,
    instruction_files,
)


def context_text(context: ProjectContext, fill: ContextFill) -> str:
    """The report: each section's rows, tokens right-aligned, and how they were counted."""
    sections = [section(context, fill) for section in SECTIONS]
    lines = section_lines(sections)
    lines.append(how_counted(fill))
    return "\n".join(lines)


def how_counted(fill: ContextFill) -> str:
    said = "Tokens are estimated at about four characters each"
    if fill.measured:
        return said + "; the messages are the latest answer's own count less the other parts."
    return said + "; no answer has measured this conversation yet."


def bar(
    context: ProjectContext, fill: ContextFill, width: int = BAR_CELLS
) -> list[tuple[str, int]]:
    """The bar's cells: each part with how many cells it takes, ``width`` in all. A part with
    any tokens takes a cell at least, so that it shows; the free space gives way."""
    parts = window_parts(context, fill).rows
    cells = {row.part: (max(round(row.tokens * width / fill.window), 1) if row.tokens else 0)
             for row in parts}  # fmt: skip
    taken = sum(count for part, count in cells.items() if part != "Free space")
    cells["Free space"] = max(width - taken, 0)
    while sum(cells.values()) > width:  # the at-least-one cells overran: the largest gives one
        largest = max(cells, key=lambda part: cells[part])
        cells[largest] -= 1
    return [(part, count) for part, count in cells.items() if count]


def _share(tokens: int, window: int) -> str:
    """``1.5%``; under 10% with a decimal, as the status line shows the fill."""
    share = tokens / window if window else 0.0
    if 0 < share < 0.001:
        return "<0.1%"  # there, but too little to show at this precision
    return f"{share:.1%}" if share < 0.1 else f"{share:.0%}"


def section_lines(sections: list[Section]) -> list[str]:
    """Each section's title, then its rows in aligned columns, then a blank line."""
    labels = [row.label for s in sections for row in s.rows]
    width = min(max(map(len, labels), default=0), 60)
    lines: list[str] = []
    for section in sections:
        lines.append(section.title + ":")
        if not section.rows:
            lines.append(f"  {section.empty}")
        for row in section.rows:
            note = f"  {row.note}" if row.note else ""
            lines.append(f"  {row.label:<{width}}  {row.tokens:>7,} tokens{note}")
        lines.append("")
    return lines


def guide_lines(context: ProjectContext) -> list[str]:
    """The instruction files as ``legato config`` lists them (no session: no fill)."""
    from actors.protocol import ContextFill

    lines = section_lines([instruction_files(context, ContextFill(0, 0))])[:-1]
    # The title counts them; each is named, as 'legato trust' will show it for approval.
    lines += [
        f"  not loaded until approved: {_shown(context, request.importer)}:{request.line} "
        f"imports {_shown(context, request.path)}"
        for request in context.import_requests
    ]
    return lines


def guides_json(context: ProjectContext) -> dict[str, list[dict[str, object]]]:
    """The instruction files for ``legato config --json``, in order of precedence, and the
    imports from outside the project that wait for the user's approval."""
    loaded: list[dict[str, object]] = [
        {
            "path": guide.path,
            "level": guide.level,
            "tokens": guide.tokens,
            **({"importedBy": guide.imported_by, "line": guide.line} if guide.imported_by else {}),
        }
        for guide in context.guides
    ]
    waiting: list[dict[str, object]] = [
        {"importer": request.importer, "line": request.line, "path": request.path}
        for request in context.import_requests
    ]
    return {"loaded": loaded, "awaitingApproval": waiting}


def _shown(context: ProjectContext, path: str) -> str:
    """A path from the project root, or from ~ for the home folder's."""
    home = context.home or os.path.expanduser("~")
    for top, prefix in ((context.project_root, ""), (home, "~/")):
        if path.startswith(top.rstrip(os.sep) + os.sep):
            path = prefix + path[len(top.rstrip(os.sep)) + 1 :]
            break
    return escape_controls(path, newlines=True)


def _note(context: ProjectContext, guide: GuideFile) -> str:
    note = _LEVELS[guide.level]
    if guide.imported_by:
        note += f", imported by {_shown(context, guide.imported_by)}:{guide.line}"
    return note
