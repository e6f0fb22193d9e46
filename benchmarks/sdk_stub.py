"""A CLI that does the least the Agent SDK needs, for the floor of benchmarks/sdk.py.

It reads the SDK's stream-json from stdin, answers ``initialize`` (and any other control
request) with an empty success, and for each user message makes one streamed request to
``ASSISTANT_BASE_URL`` with ``http.client`` on a kept-alive connection, then writes the
assistant message and the result. Standard library only: benchmarks/sdk.py runs it as
``python -I -S`` so that it costs what an interpreter and one HTTP client cost.
"""

from __future__ import annotations

import http.client
import json
import os
import sys
import time
import urllib.parse
from typing import Any

SESSION = "stub-session"


def write(message: dict[str, Any]) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


def ask(connection: http.client.HTTPConnection, model: str, content: Any) -> str:
    """One streamed request; the text of its answer."""
    body = {
        "model": model,
        "max_tokens": 1024,
        "stream": True,
        "messages": [{"role": "user", "content": content}],
    }
    headers = {
        "content-type": "application/json",
        "x-api-key": os.environ.get("ASSISTANT_API_KEY", ""),
        "anthropic-version": "2023-06-01",
    }
    connection.request("POST", "/v1/messages", json.dumps(body), headers)
    response = connection.getresponse()
    pieces = []
    for line in response.read().splitlines():
        if line.startswith(b"data: "):
            event = json.loads(line[6:])
            if event.get("type") == "content_block_delta" and "text" in event["delta"]:
                pieces.append(event["delta"]["text"])
    return "".join(pieces)


def main() -> None:
    url = urllib.parse.urlsplit(os.environ["ASSISTANT_BASE_URL"])
    connection = http.client.HTTPConnection(url.hostname or "127.0.0.1", url.port)
    model = sys.argv[sys.argv.index("--model") + 1] if "--model" in sys.argv else "stub"
    for line in sys.stdin:
        message = json.loads(line)
        if message.get("type") == "control_request":
            response = {"subtype": "success", "request_id": message["request_id"], "response": {}}
            write({"type": "control_response", "response": response})
        elif message.get("type") == "user":
            started = time.perf_counter()
            reply = ask(connection, model, message["message"]["content"])
            took = int((time.perf_counter() - started) * 1000)
            assistant = {
                "role": "assistant",
                "model": model,
                "content": [{"type": "text", "text": reply}],
            }
            write(
                {
                    "type": "assistant",
                    "message": assistant,
                    "parent_tool_use_id": None,
                    "session_id": SESSION,
                }
            )
            write(
                {
                    "type": "result",
                    "subtype": "success",
                    "duration_ms": took,
                    "duration_api_ms": took,
                    "is_error": False,
                    "num_turns": 1,
                    "session_id": SESSION,
                    "result": reply,
                }
            )


if __name__ == "__main__":
    main()
