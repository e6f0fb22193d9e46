"""``/context`` in a real in-process session: the instruction files loaded, in order, with
their tokens, and the system prompt and memory totals."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from frontends.demo.scripted_api import text
from tests.interactive.test_session import run, system_text

if TYPE_CHECKING:
    from pathlib import Path

pytestmark = pytest.mark.anyio


async def test_context_shares_out_the_window_and_lists_the_files_in_order(
    folders: tuple[Path, Path],
) -> None:
    root, home = folders
    (root / "CLAUDE.md").write_text("c" * 400 + "\n@docs/style.md\n")
    (root / "docs").mkdir()
    (root / "docs" / "style.md").write_text("s" * 40 + "\n")
    (root / "LEGATO.md").write_text("l" * 4000 + "\n")
    (home / ".claude").mkdir()
    (home / ".claude" / "CLAUDE.md").write_text("mine\n")
    # The answer's own count of the context: the messages' share is it less the other parts.
    measured = {"input_tokens": 30_000, "cache_creation_input_tokens": 0, "output_tokens": 10}
    async for live, server in run(folders, [text("ok", usage=measured)]):
        await live.submit("/context")
        await live.shown("no answer has measured")
        before = live.text().split("/context", 1)[1]
        await live.submit("hi")
        await live.shown("ok")
        await live.idle()
        await live.submit("/context")
        await live.shown("the latest answer's own count")
        shown = live.text().split("/context", 2)[2]
        system = system_text(server.requests[0].body)
        tools = server.requests[0].body["tools"]
    rows = {
        " ".join(words[1 : words.index("tokens") - 1]): words[words.index("tokens") - 1]
        for line in shown.splitlines()
        if (words := line.split()) and words[0] in ("█", "·", "░")
    }
    files = 2 + 11 + 104 + 1_001
    assert rows["Memory files"] == f"{files:,}"
    assert rows["System prompt"] == f"{-(-len(system) // 4) - files:,}"
    tool_tokens = int(rows["Built-in tools"].replace(",", ""))
    # The request's own definitions (less the prompt cache's marks), four characters a token.
    plain = [{k: v for k, v in tool.items() if k != "cache_control"} for tool in tools]
    sent = json.dumps(plain, separators=(",", ":"), ensure_ascii=False)
    assert tool_tokens == -(-len(sent) // 4)
    used = 30_010
    assert rows["Messages"] == f"{used - (-(-len(system) // 4)) - tool_tokens:,}"
    assert rows["Auto-compact reserve"] == f"{1_000_000 // 5:,}"
    assert rows["Free space"] == f"{1_000_000 - used - 200_000:,}"
    assert f"Context: {used:,} of 1,000,000 tokens (3.0%)" in shown
    # Before any answer: the same fixed parts, the empty conversation estimated.
    assert "Messages" in before and "no answer has measured this conversation yet" in before
    listed = [line.split() for line in shown.splitlines() if line.startswith("  ")][-4:]
    assert listed == [
        ["~/.claude/CLAUDE.md", "2", "tokens", "user"],
        ["docs/style.md", "11", "tokens", "project,", "imported", "by", "CLAUDE.md:2"],
        ["CLAUDE.md", "104", "tokens", "project"],
        ["LEGATO.md", "1,001", "tokens", "project"],
    ]


async def test_context_says_when_no_file_is_loaded(folders: tuple[Path, Path]) -> None:
    async for live, _ in run(folders, [text("ok")]):
        await live.submit("/context")
        await live.shown("Tokens are estimated")
        assert "none (LEGATO.md, CLAUDE.md" in live.text()
