"""Breakpoints go on the tools, the system prompt and the two latest user messages."""

from __future__ import annotations

from typing import Any, cast

import msgspec

from actors.conductor.caching import with_breakpoints
from actors.protocol import Message, ModelRequest


def marked(value: Any) -> int:
    if isinstance(value, list):
        return sum(marked(item) for item in value)
    if isinstance(value, dict):
        return ("cache_control" in value) + sum(marked(v) for v in value.values())
    return 0


def test_four_breakpoints_and_the_conversation_itself_untouched() -> None:
    messages = [
        Message("user", [{"type": "text", "text": "go"}]),
        Message("assistant", [{"type": "tool_use", "id": "a", "name": "Read", "input": {}}]),
        Message("user", [{"type": "tool_result", "tool_use_id": "a", "content": "x"}]),
    ]
    tools = [{"name": "Read"}, {"name": "Bash"}]
    request = ModelRequest(model="m", max_tokens=10, messages=messages, system="sys", tools=tools)
    cached = with_breakpoints(request)
    body = msgspec.to_builtins(cached)
    assert marked(body) == 4
    assert "cache_control" in body["tools"][-1] and "cache_control" not in body["tools"][0]
    assert body["system"] == [
        {"type": "text", "text": "sys", "cache_control": {"type": "ephemeral"}}
    ]
    assert "cache_control" in body["messages"][0]["content"][-1]
    assert "cache_control" in body["messages"][2]["content"][-1]
    assert marked(msgspec.to_builtins(request)) == 0  # what the conductor keeps is unchanged


def test_thinking_blocks_are_never_marked() -> None:
    thinking = {"type": "thinking", "thinking": "hm", "signature": "s"}
    request = ModelRequest(model="m", max_tokens=10, messages=[Message("user", [thinking])])
    assert with_breakpoints(request).messages[0].content == [thinking]


class _Untouchable:
    """A message early in a long conversation: finding the breakpoints must not look at it."""

    @property
    def role(self) -> str:
        raise AssertionError("with_breakpoints scanned the whole conversation")


def test_finding_the_last_two_user_messages_does_not_scan_the_history() -> None:
    # The cost per request must not grow with the session: only the last messages are read.
    turns = [
        Message(role, [{"type": "text", "text": role}])
        for _ in range(500)
        for role in ("assistant", "user")
    ]
    history = [Message("user", [{"type": "text", "text": "go"}]), *turns]
    messages = [cast("Message", _Untouchable()), *history]
    cached = with_breakpoints(ModelRequest(model="m", max_tokens=10, messages=messages))
    assert [i for i, m in enumerate(cached.messages) if m is not messages[i]] == [999, 1001]
