"""The SDK's ``effort`` and ``thinking`` options take effect: they reach the request, and the
thinking comes back to the program as the SDK's ThinkingBlock."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from claude_agent_sdk import (
    AssistantMessage,
    ProcessError,
    ResultMessage,
    SystemMessage,
    ThinkingBlock,
)

from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls
from tests.sdk.conftest import collect

if TYPE_CHECKING:
    from tests.sdk.conftest import Folder


async def test_effort_and_adaptive_thinking_reach_the_request(folder: Folder) -> None:
    steps = [
        tool_calls([call("Glob", {"pattern": "*"}, id="g1")], thinking="Look first."),
        text("Nothing here.", thinking="Empty."),
    ]
    with ScriptedServer(steps) as server:
        options = folder.options(
            server.url,
            model="sonnet",
            effort="max",
            thinking={"type": "adaptive", "display": "summarized"},
            allowed_tools=["Glob"],
        )
        messages = await collect("what is here?", options)
        requests = server.requests
    result = messages[-1]
    assert isinstance(result, ResultMessage) and result.subtype == "success", result
    for request in requests:
        assert request.body["output_config"] == {"effort": "max"}
        assert request.body["thinking"] == {"type": "adaptive", "display": "summarized"}
    init = next(m for m in messages if isinstance(m, SystemMessage) and m.subtype == "init")
    assert not {"--effort", "--thinking", "--thinking-display"} & set(
        init.data.get("unsupported_options", [])
    )
    thoughts = [
        block
        for message in messages
        if isinstance(message, AssistantMessage)
        for block in message.content
        if isinstance(block, ThinkingBlock)
    ]
    assert [t.thinking for t in thoughts] == ["Look first.", "Empty."]
    assert all(t.signature for t in thoughts)


async def test_a_budget_on_a_model_without_it_is_refused_before_any_request(
    folder: Folder,
) -> None:
    with ScriptedServer([text("never")]) as server:
        options = folder.options(server.url, model="openai:local", max_thinking_tokens=4096)
        with pytest.raises(ProcessError):
            await collect("hi", options)
        assert server.requests == []
