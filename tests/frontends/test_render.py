"""The headless renderers on their own: events in, exact output out."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

from actors.protocol import (
    BlockFinished,
    Message,
    MessageFinished,
    TextDelta,
    ToolFinished,
    ToolResult,
    ToolStarted,
    Usage,
)
from frontends.headless.render import TextRenderer

if TYPE_CHECKING:
    from actors.protocol import UiEvent


async def test_a_call_starting_mid_text_does_not_break_the_answers_line() -> None:
    stdout, stderr = io.StringIO(), io.StringIO()
    renderer = TextRenderer(stdout, stderr)
    text = {"type": "text", "text": "Let me check."}
    events: list[UiEvent] = [
        TextDelta(0, "Let me "),
        ToolStarted(id="t1", name="Bash", summary="ls"),  # a call already complete, starting
        TextDelta(0, "check."),
        BlockFinished(0, text),
        MessageFinished(Message("assistant", [text]), "tool_use", Usage()),
        ToolFinished(ToolResult(tool_use_id="t1", content="a.txt"), elapsed=0.25),
    ]
    for event in events:
        await renderer.show(event)
    await renderer.close()
    assert stdout.getvalue() == "Let me check.\n"
    assert stderr.getvalue() == "⏺ Bash(ls)\n  ⎿ ✓ Bash(ls) 0.2s: a.txt\n"
