"""What a broken server sends, nested past any parser's stack: a real ``legato --headless``
against a model server that answers with a tool call whose input is 100,000 levels deep. The
session ends with the stream's error and its remedy, exit 1, and no traceback."""

from __future__ import annotations

import http.server
import json
import threading
from typing import TYPE_CHECKING, Any

import pytest

if TYPE_CHECKING:
    from collections.abc import Iterator

    from tests.frontends.conftest import Project

DEEP = '{"a":' * 100_000 + "1" + "}" * 100_000


def _event(payload: dict[str, Any]) -> bytes:
    return b"event: %s\ndata: %s\n\n" % (payload["type"].encode(), json.dumps(payload).encode())


def _answer() -> bytes:
    message: dict[str, Any] = {"id": "m", "type": "message", "role": "assistant", "model": "m"}
    message |= {
        "content": [],
        "stop_reason": None,
        "usage": {"input_tokens": 1, "output_tokens": 1},
    }
    block = {"type": "tool_use", "id": "t1", "name": "Read", "input": {}}
    piece = {"type": "input_json_delta", "partial_json": '{"file_path": "a", "x": ' + DEEP + "}"}
    return b"".join(
        [
            _event({"type": "message_start", "message": message}),
            _event({"type": "content_block_start", "index": 0, "content_block": block}),
            _event({"type": "content_block_delta", "index": 0, "delta": piece}),
            _event({"type": "content_block_stop", "index": 0}),
            _event({"type": "message_delta", "delta": {"stop_reason": "tool_use"}}),
            _event({"type": "message_stop"}),
        ]
    )


class _Handler(http.server.BaseHTTPRequestHandler):
    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["content-length"]))
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.end_headers()
        self.wfile.write(_answer())

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def deep_server() -> Iterator[str]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        thread.join()
        server.server_close()


def test_a_tool_input_nested_past_any_stack_ends_with_a_message(
    project: Project, deep_server: str
) -> None:
    done = project.legato(deep_server, "--headless", "hi")
    assert done.returncode == 1, done.stderr
    assert "Traceback" not in done.stderr
    assert "RecursionError" not in done.stderr
    assert (
        "The answer stream broke: the input of tool call 'Read' (block 0) nests deeper than "
        "64 levels" in done.stderr
    )


def test_bytes_are_measured_as_the_text_they_hold() -> None:
    from actors.nesting import MAX_DEPTH, too_deep

    deep = '{"a": "[[[[", "b": ' + "[" * (MAX_DEPTH + 1) + "]" * (MAX_DEPTH + 1) + "}"
    shallow = '{"a": "' + "[" * (MAX_DEPTH + 1) + '"}'
    assert too_deep(deep.encode()) == too_deep(deep) is not None
    assert too_deep(shallow.encode()) is None
    assert too_deep(shallow) is None
