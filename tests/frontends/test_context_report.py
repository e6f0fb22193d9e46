"""``/context``'s report below the session: the window's parts, each with its share, and the
bar of cells that draws them (frontends/context_report.py, frontends/interactive/
context_view.py)."""

from __future__ import annotations

import io

from rich.console import Console

from actors.protocol import ContextFill, GlobalConfig, GuideFile, ProjectContext, ProjectSettings
from frontends.context_report import bar, context_text, window_parts
from frontends.interactive.context_view import context_view


def _context(*tokens: int, memory: str | None = None) -> ProjectContext:
    guides = tuple(
        GuideFile(path=f"/p/G{n}.md", level="project", text="", tokens=count)
        for n, count in enumerate(tokens)
    )
    return ProjectContext(
        project_root="/p",
        home="/h",
        config=GlobalConfig(),
        settings=ProjectSettings(),
        model="m",
        permission_mode="ask",
        guides=guides,
        memory=memory,
    )


FILL = ContextFill(
    30_000, 100_000, system=5_000, tools=10_000, skills=1_000, mcp_tools=2_000,
    messages=12_000, reserve=20_000, measured=True,
)  # fmt: skip


def test_the_parts_share_out_the_window_with_the_files_apart_from_the_system_prompt() -> None:
    section = window_parts(_context(1_000, 500, memory="m" * 400), FILL)
    assert [(row.label, row.tokens, row.note) for row in section.rows] == [
        ("System prompt", 3_400, "3.4%"),
        ("Built-in tools", 10_000, "10%"),
        ("Memory files", 1_600, "1.6%"),
        ("Skills", 1_000, "1.0%"),
        ("MCP tools", 2_000, "2.0%"),
        ("Messages", 12_000, "12%"),
        ("Free space", 50_000, "50%"),
        ("Auto-compact reserve", 20_000, "20%"),
    ]
    assert section.title == "Context: 30,000 of 100,000 tokens (30%)"


def test_a_tiny_share_is_not_shown_as_none() -> None:
    fill = ContextFill(0, 1_000_000, system=300, reserve=200_000)
    rows = {row.label: row.note for row in window_parts(_context(), fill).rows}
    assert (rows["System prompt"], rows["Messages"]) == ("<0.1%", "0.0%")


def test_the_bar_gives_each_part_its_cells_and_every_part_with_tokens_shows() -> None:
    assert bar(_context(1_000), FILL) == [
        ("System prompt", 2),
        ("Built-in tools", 5),
        ("Memory files", 1),  # 0.5 of a cell, still shown
        ("Skills", 1),
        ("MCP tools", 1),
        ("Messages", 6),
        ("Free space", 24),
        ("Auto-compact reserve", 10),
    ]
    full = ContextFill(0, 1_000, system=10, tools=10, skills=10, mcp_tools=10, messages=790,
                       reserve=200)  # fmt: skip
    cells = dict(bar(_context(), full, width=10))
    assert sum(cells.values()) == 10 and "Free space" not in cells
    assert cells["Skills"] == cells["MCP tools"] == 1


def test_the_text_says_how_the_tokens_were_counted() -> None:
    assert "the latest answer's own count" in context_text(_context(), FILL)
    unmeasured = ContextFill(0, 100_000, system=5_000)
    assert "no answer has measured" in context_text(_context(), unmeasured)


def test_the_terminal_draws_the_bar_in_the_parts_colours() -> None:
    out = io.StringIO()
    console = Console(file=out, width=80, force_terminal=True, color_system="truecolor")
    console.print(context_view(_context(1_000), FILL))
    lines = out.getvalue().splitlines()
    first = lines[0]
    assert first.count("█") == 2 + 5 + 1 + 1 + 1 + 6 and first.count("·") == 24
    # Each part's cells in its own colour: the colours change between the parts.
    assert first.count("\x1b[") >= 8
    legend = next(line for line in lines if "Messages" in line)
    assert "█" in legend
