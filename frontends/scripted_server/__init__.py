"""A scripted stand-in for the Messages API, for tests, benchmarks and ``legato --demo``.

    from frontends.scripted_server import ScriptedServer, text, tool_calls, call, error

    with ScriptedServer([tool_calls([call("Read", {"file_path": "/x"})]), text("Done.")]) as server:
        ...  # point the client at server.url; read server.requests afterwards

The contract is in the notes (scripted_server_api.md); JSON scripts use the Step field names.
"""

from __future__ import annotations

from frontends.scripted_server.server import ScriptedServer
from frontends.scripted_server.steps import (
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
]
