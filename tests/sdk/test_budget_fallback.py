"""The SDK's ``max_budget_usd`` and ``fallback_model``: passed as the reference's flags, they
take effect instead of being named unsupported."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from claude_agent_sdk import Message, ResultError, ResultMessage, SystemMessage, query

from actors.models import resolve_model
from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls
from frontends.demo.scripted_api.steps import error
from tests.sdk.conftest import collect

if TYPE_CHECKING:
    from tests.sdk.conftest import Folder


async def test_fallback_model_answers_once_the_model_is_overloaded(folder: Folder) -> None:
    steps = [error(529, should_retry=False), text("from the fallback")]
    with ScriptedServer(steps) as server:
        options = folder.options(server.url, model="sonnet", fallback_model="haiku")
        messages = await collect("hi", options)
        models = [r.body["model"] for r in server.requests]
    init = messages[0]
    assert isinstance(init, SystemMessage)
    assert "--fallback-model" not in init.data.get("unsupported_options", [])
    assert models == [resolve_model("sonnet").id, resolve_model("haiku").id]
    result = messages[-1]
    assert isinstance(result, ResultMessage)
    assert result.subtype == "success" and result.result == "from the fallback"


async def test_max_budget_usd_stops_the_run_with_its_subtype(folder: Folder) -> None:
    # 20K tokens in at sonnet's $3 a million: $0.06 spent, over a $0.05 budget.
    spent = {"input_tokens": 20_000, "output_tokens": 10}
    steps = [tool_calls([call("Glob", {"pattern": "*"}, id="g1")], usage=spent), text("unsent")]
    messages: list[Message] = []
    with ScriptedServer(steps) as server, pytest.raises(ResultError) as raised:
        options = folder.options(server.url, model="sonnet", max_budget_usd=0.05)
        async for message in query(prompt="list the files", options=options):
            messages.append(message)
    assert len(server.requests) == 1
    assert raised.value.subtype == "error_max_budget_usd"
    init = messages[0]
    assert isinstance(init, SystemMessage)
    assert "--max-budget-usd" not in init.data.get("unsupported_options", [])
    result = messages[-1]
    assert isinstance(result, ResultMessage)
    assert result.subtype == "error_max_budget_usd" and result.is_error
    assert result.total_cost_usd is not None and result.total_cost_usd > 0.05
