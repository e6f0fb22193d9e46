"""``/context`` in a real in-process session: the instruction files loaded, in order, with
their tokens, and the system prompt and memory totals."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from frontends.demo.scripted_api import text
from tests.interactive.test_session import run, system_text

if TYPE_CHECKING:
    from pathlib import Path

pytestmark = pytest.mark.anyio


async def test_context_lists_the_files_in_order_with_their_tokens(
    folders: tuple[Path, Path],
) -> None:
    root, home = folders
    (root / "CLAUDE.md").write_text("c" * 400 + "\n@docs/style.md\n")
    (root / "docs").mkdir()
    (root / "docs" / "style.md").write_text("s" * 40 + "\n")
    (root / "LEGATO.md").write_text("l" * 4000 + "\n")
    (home / ".claude").mkdir()
    (home / ".claude" / "CLAUDE.md").write_text("mine\n")
    async for live, server in run(folders, [text("ok")]):
        await live.submit("hi")
        await live.shown("ok")
        await live.idle()
        await live.submit("/context")
        await live.shown("Tokens are estimated")
        shown = live.text().split("/context", 1)[1]
        system = system_text(server.requests[0].body)
    rows = [line.split() for line in shown.splitlines() if line.startswith("  ")]
    assert rows[:4] == [
        ["~/.claude/CLAUDE.md", "2", "tokens", "user"],
        ["docs/style.md", "11", "tokens", "project,", "imported", "by", "CLAUDE.md:2"],
        ["CLAUDE.md", "104", "tokens", "project"],
        ["LEGATO.md", "1,001", "tokens", "project"],
    ]
    line = next(line for line in shown.splitlines() if "System prompt" in line)
    assert f"{-(-len(system) // 4):,} tokens" in line


async def test_context_says_when_no_file_is_loaded(folders: tuple[Path, Path]) -> None:
    async for live, _ in run(folders, [text("ok")]):
        await live.submit("/context")
        await live.shown("Tokens are estimated")
        assert "none (LEGATO.md, CLAUDE.md" in live.text()
