"""The SDK's ``env`` carrying an OTLP endpoint and the program's own span: the session's prompt
is exported as a child of that span, under the service name the program chose."""

from __future__ import annotations

from typing import TYPE_CHECKING

from claude_agent_sdk import ResultMessage

from frontends.demo.scripted_api import ScriptedServer, text
from tests.otlp_sink import Sink
from tests.sdk.conftest import collect

if TYPE_CHECKING:
    from tests.sdk.conftest import Folder

TRACE = "0af7651916cd43dd8448eb211c80319c"
SPAN = "b7ad6b7169203331"


async def test_a_programs_span_is_the_parent_of_the_sessions_prompts(folder: Folder) -> None:
    with Sink() as sink, ScriptedServer([text("one")]) as server:
        env = {
            "OTEL_EXPORTER_OTLP_ENDPOINT": sink.url,
            "OTEL_SERVICE_NAME": "review-bot",
            "TRACEPARENT": f"00-{TRACE}-{SPAN}-01",
        }
        messages = await collect("hello", folder.options(server.url, env=env))
    assert isinstance(messages[-1], ResultMessage) and messages[-1].result == "one"
    spans = {span.name: span for span in sink.spans()}
    prompt, request = spans["legato.interaction"], spans["legato.llm_request"]
    assert prompt.trace_id.hex() == TRACE and prompt.parent_span_id.hex() == SPAN
    assert request.parent_span_id == prompt.span_id
    assert sink.resources()[0]["service.name"] == "review-bot"
