"""A whole headless session against a loopback OpenAI-compatible server: the model's tool call
runs, its result goes back as a `tool` message, and the final answer is printed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.providers.loopback import Loopback, Request, Response

REPO = Path(__file__).resolve().parents[2]


def sse(*chunks: dict[str, Any]) -> bytes:
    return b"".join(b"data: " + json.dumps(c).encode() + b"\n\n" for c in chunks) + (
        b"data: [DONE]\n\n"
    )


def choice(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "c",
        "model": "m",
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def test_a_local_model_reads_a_file_and_answers(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    target = project / "notes.txt"
    target.write_text("the answer is 42\n")
    arguments = json.dumps({"file_path": str(target)})
    first = sse(
        choice({"role": "assistant", "content": "Let me read it."}),
        choice(
            {
                "tool_calls": [
                    {
                        "index": 0,
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "Read", "arguments": ""},
                    }
                ]
            }
        ),
        choice({"tool_calls": [{"index": 0, "function": {"arguments": arguments[:10]}}]}),
        choice({"tool_calls": [{"index": 0, "function": {"arguments": arguments[10:]}}]}),
        choice({}, "tool_calls"),
    )
    second = sse(choice({"content": "It says 42."}), choice({}, "stop"))
    answers = [first, second]

    def answer(request: Request) -> Response:
        return Response(200, {"content-type": "text/event-stream"}, [answers.pop(0)])

    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    env.update(HOME=str(tmp_path), OPENAI_BASE_URL="")
    with Loopback(answer) as server:
        env["OPENAI_BASE_URL"] = f"{server.url}/v1"
        done = subprocess.run(
            [
                sys.executable,
                "-c",
                "from frontends.cli import main; main()",
                str(project),
                *("--headless", "what is in notes.txt?", "--model", "openai:qwen2.5-coder"),
                *("--permission-mode", "auto"),
            ],
            capture_output=True,
            text=True,
            cwd=REPO,
            env=env,
            timeout=60,
        )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip().endswith("It says 42.")
    first_body, second_body = (json.loads(r.body) for r in server.requests)
    assert first_body["model"] == "qwen2.5-coder"
    assert any(tool["function"]["name"] == "Read" for tool in first_body["tools"])
    messages = second_body["messages"]
    assert messages[-2]["tool_calls"][0]["function"] == {
        "name": "Read",
        "arguments": arguments.replace(" ", ""),
    }
    assert messages[-1]["role"] == "tool"
    assert messages[-1]["tool_call_id"] == "call_1"
    assert "the answer is 42" in messages[-1]["content"]
