"""A scripted stand-in for the Messages API, for tests, benchmarks and ``legato --demo``.

    from frontends.demo.scripted_api import ScriptedServer, text, tool_calls, call, error

    with ScriptedServer([tool_calls([call("Read", {"file_path": "/x"})]), text("Done.")]) as server:
        ...  # point the client at server.url; read server.requests afterwards

JSON scripts (``python -m frontends.demo.scripted_api --script FILE``) use the Step field names.
``web_search(...)`` plays the API's server-side web search (``web_search.py``): its blocks go in
a step's ``blocks``, and a request that sends them back changed is refused with a 400.
"""

from __future__ import annotations

from frontends.demo.scripted_api.server import ScriptedServer
from frontends.demo.scripted_api.steps import (
    Gate,
    HttpError,
    RecordedRequest,
    Script,
    ScriptError,
    Step,
    ToolCall,
    call,
    error,
    text,
    tool_calls,
)
from frontends.demo.scripted_api.web_search import web_search

__all__ = [
    "Gate",
    "HttpError",
    "RecordedRequest",
    "Script",
    "ScriptError",
    "ScriptedServer",
    "Step",
    "ToolCall",
    "call",
    "error",
    "text",
    "tool_calls",
    "web_search",
]
