"""``/context``: what fills the model's context, section by section, in tokens.

Each section is a function of the session's context and its fill (``SECTIONS``): a later
report (the tools, the MCP servers, the agents) adds its own function, and every frontend that
shows ``/context`` shows it. Tokens are estimates, about four characters a token (the model
alone can count them exactly); the conversation's total is the latest answer's own count when
there is one.
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


def totals(context: ProjectContext, fill: ContextFill) -> Section:
    """The system prompt (which holds the files above and memory), and the whole context."""
    from actors.instructions import estimate_tokens

    memory = estimate_tokens(context.memory) if context.memory else 0
    return Section(
        "Totals",
        (
            Row("System prompt (instructions, files, memory)", fill.system),
            Row("  of which memory (MEMORY.md)", memory),
            Row("Context in use, as the latest answer measured it", fill.tokens,
                f"of {fill.window:,} ({fill.percent} full; 0 before the first answer)"),
        ),
    )  # fmt: skip


SECTIONS: tuple[Callable[[ProjectContext, ContextFill], Section], ...] = (
    instruction_files,
    totals,
)


def context_text(context: ProjectContext, fill: ContextFill) -> str:
    """The report: each section's rows, tokens right-aligned."""
    sections = [section(context, fill) for section in SECTIONS]
    lines = section_lines(sections)
    lines.append("Tokens are estimated at about four characters each.")
    return "\n".join(lines)


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
