"""The offline demo: its files, its tool calls against them, and a full play through the SDK."""

from __future__ import annotations

import runpy
from pathlib import Path

import anthropic

from frontends.demo.script import DEMO_PROMPT, demo_files, demo_steps
from frontends.demo.scripted_api import ScriptedServer
from tests.demo.scripted_api.helpers import MODEL


def make_project(root: Path) -> None:
    for relative, content in demo_files().items():
        root.joinpath(relative).write_text(content)


def test_the_tool_calls_fit_the_demo_project(tmp_path: Path) -> None:
    make_project(tmp_path)
    first, edit, summary = demo_steps(str(tmp_path))

    assert first.text is not None and "demo" in first.text
    assert [c.name for c in first.tool_calls] == ["Read", "Read", "Bash"]
    for read in first.tool_calls[:2]:
        path = Path(read.input["file_path"])
        assert path.is_absolute() and path.parent == tmp_path and path.is_file()
    assert first.tool_calls[2].input["command"] == "ls"

    [change] = edit.tool_calls
    assert change.name == "Edit"
    target = Path(change.input["file_path"])
    before = target.read_text()
    assert before.count(change.input["old_string"]) == 1
    target.write_text(before.replace(change.input["old_string"], change.input["new_string"]))
    greet = runpy.run_path(str(target))["greet"]
    assert greet("Ada") == "Hello, Ada!"  # what test_greet.py in the project expects

    assert summary.text is not None and "demo" in summary.text and not summary.tool_calls


def test_the_demo_plays_as_a_valid_conversation(tmp_path: Path) -> None:
    messages: list[anthropic.types.MessageParam] = [{"role": "user", "content": DEMO_PROMPT}]
    with (
        ScriptedServer(demo_steps(str(tmp_path))) as server,
        anthropic.Anthropic(base_url=server.url, api_key="demo", max_retries=0) as client,
    ):
        while True:
            with client.messages.stream(model=MODEL, max_tokens=1024, messages=messages) as stream:
                reply = stream.get_final_message()
            messages.append({"role": "assistant", "content": reply.content})
            uses = [block for block in reply.content if block.type == "tool_use"]
            if not uses:
                break
            messages.append(
                {
                    "role": "user",
                    "content": [
                        {"type": "tool_result", "tool_use_id": u.id, "content": "ok"} for u in uses
                    ],
                }
            )
        assert server.remaining == []
    assert len(server.requests) == 3
    assert reply.stop_reason == "end_turn"
