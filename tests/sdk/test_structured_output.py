"""The SDK's ``output_format``: a JSON Schema the answer must be a value of, given back in the
result message's ``structured_output``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from claude_agent_sdk import ResultMessage

from frontends.demo.scripted_api import ScriptedServer, call, tool_calls
from tests.sdk.conftest import collect

if TYPE_CHECKING:
    from tests.sdk.conftest import Folder

SCHEMA = {"type": "array", "items": {"type": "string"}, "minItems": 1}


async def test_output_format_gives_the_value_in_the_result(folder: Folder) -> None:
    # Not an object: offered wrapped as ``value``, given back as the array itself.
    steps = [
        tool_calls([call("StructuredOutput", {"value": []}, id="s1")]),
        tool_calls([call("StructuredOutput", {"value": ["a.py", "b.py"]}, id="s2")]),
    ]
    with ScriptedServer(steps) as server:
        options = folder.options(
            server.url, output_format={"type": "json_schema", "schema": SCHEMA}
        )
        messages = await collect("list the files", options)
        requests = server.requests
    result = messages[-1]
    assert isinstance(result, ResultMessage)
    assert result.subtype == "success" and not result.is_error
    assert result.structured_output == ["a.py", "b.py"]
    (offered,) = [t for t in requests[0].body["tools"] if t["name"] == "StructuredOutput"]
    assert offered["input_schema"]["properties"]["value"] == SCHEMA
    (told,) = requests[1].body["messages"][-1]["content"]
    assert "$.value" not in told["content"] and "should be non-empty" in told["content"]
