"""The headless renderers on their own: events in, exact output out."""

from __future__ import annotations

import io
import json
from typing import TYPE_CHECKING

from actors.protocol import (
    AgentEvent,
    BlockFinished,
    Message,
    MessageFinished,
    TextDelta,
    ToolFinished,
    ToolResult,
    ToolStarted,
    Usage,
)
from frontends.headless.render_stream_json import StreamJsonRenderer
from frontends.headless.render_text import TextRenderer

if TYPE_CHECKING:
    from actors.protocol import ToolEvent, UiEvent


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


async def test_an_mcp_call_names_its_server_and_tool_once() -> None:
    stdout, stderr = io.StringIO(), io.StringIO()
    renderer = TextRenderer(stdout, stderr)
    await renderer.show(ToolStarted(id="m", name="mcp__toy__shout", summary='toy: shout {"a": 1}'))
    await renderer.show(ToolFinished(ToolResult(tool_use_id="m", content="AA"), elapsed=0.25))
    await renderer.close()
    assert stderr.getvalue() == ('⏺ toy: shout {"a": 1}\n  ⎿ ✓ toy: shout {"a": 1} 0.2s: AA\n')


def subagent(event: ToolEvent | TextDelta) -> AgentEvent:
    return AgentEvent(parent_tool_use_id="toolu_a", agent="reviewer", event=event)


async def test_stream_json_gives_a_subagents_lines_the_agent_calls_id() -> None:
    stdout, stderr = io.StringIO(), io.StringIO()
    renderer = StreamJsonRenderer(stdout, stderr, "s1", partial=True)
    await renderer.show(ToolStarted(id="toolu_a", name="Agent", summary="reviewer: look"))
    await renderer.show(subagent(TextDelta(0, "Hm")))
    await renderer.show(subagent(ToolFinished(ToolResult(tool_use_id="t1", content="x"), 0.5)))
    await renderer.show(ToolFinished(ToolResult(tool_use_id="toolu_a", content="ok"), 1.0))
    lines = [json.loads(line) for line in stdout.getvalue().splitlines()]
    parents = [None, "toolu_a", "toolu_a", "toolu_a", None]
    assert [line["parent_tool_use_id"] for line in lines] == parents
    # Every line has an id of its own, as the Agent SDK requires of stream events.
    assert len({line.pop("uuid") for line in lines}) == 5
    assert lines[1]["event"] == {  # the block opens first, as the API streams it
        "type": "content_block_start",
        "index": 0,
        "content_block": {"type": "text", "text": ""},
    }
    assert lines[2] == {
        "type": "stream_event",
        "event": {"type": "content_block_delta", "index": 0,
                  "delta": {"type": "text_delta", "text": "Hm"}},
        "parent_tool_use_id": "toolu_a",
        "session_id": "s1",
    }  # fmt: skip
    assert lines[3]["message"]["content"][0]["tool_use_id"] == "t1"


async def test_text_output_shows_an_agent_as_one_line_at_its_start_and_one_at_its_end() -> None:
    stdout, stderr = io.StringIO(), io.StringIO()
    renderer = TextRenderer(stdout, stderr)
    await renderer.show(ToolStarted(id="toolu_a", name="Agent", summary="reviewer: look"))
    await renderer.show(subagent(TextDelta(0, "Thinking aloud")))
    await renderer.show(subagent(ToolStarted(id="t1", name="Read", summary="a.py")))
    await renderer.show(subagent(ToolFinished(ToolResult(tool_use_id="t1", content="x"), 0.5)))
    await renderer.show(ToolFinished(ToolResult(tool_use_id="toolu_a", content="Fine."), 1.0))
    await renderer.close()
    assert stdout.getvalue() == ""
    assert stderr.getvalue() == (
        "⏺ Agent(reviewer: look)\n  ⎿ ✓ Agent(reviewer: look) 1.0s: Fine.\n"
    )
