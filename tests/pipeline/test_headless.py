"""Headless output while calls run beside the streaming answer: a real `legato` process."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from frontends.demo.scripted_api import Gate, ScriptedServer, call, text, tool_calls
from tests.pipeline.harness import events_before_block

if TYPE_CHECKING:
    from tests.frontends.conftest import Project


def overlapped(project: Project) -> list[Any]:
    flag = project.root / "started"
    return [
        tool_calls(
            [
                call("Bash", {"command": f"touch {flag}"}, id="toolu_bash"),
                call("Write", {"file_path": str(project.root / "out.txt"), "content": "x\n"}),
            ],
            text="Both at once, and more words after them.",
            gate=Gate(path=str(flag), before_block=2),
        ),
        text("All done now."),
    ]


def test_stream_json_shows_each_result_after_the_message_that_asked(project: Project) -> None:
    project.settings(permissionMode="custom", allowedPaths=["**"], allowedCommands=["touch"])
    with ScriptedServer(overlapped(project)) as server:
        done = project.legato(server.url, "--headless", "go", "--output-format", "stream-json")
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]  # every line is JSON
    first_answer = next(n for n, e in enumerate(lines) if e["type"] == "assistant")
    started = next(n for n, e in enumerate(lines) if e.get("subtype") == "tool_started")
    assert started < first_answer  # the command ran while the answer streamed
    asked_at: dict[str, int] = {}
    results = 0
    for number, event in enumerate(lines):
        if event["type"] == "assistant":
            for block in event["message"]["content"]:
                if block["type"] == "tool_use":
                    asked_at[block["id"]] = number
        if event["type"] == "user":
            results += 1
            (block,) = event["message"]["content"]
            assert block["tool_use_id"] in asked_at, f"result before its call: {event}"
    assert results == 2
    assert lines[-1]["type"] == "result" and lines[-1]["subtype"] == "success"


def test_text_output_keeps_the_answer_whole_while_calls_start(project: Project) -> None:
    project.settings(permissionMode="custom", allowedPaths=["**"], allowedCommands=["touch"])
    with ScriptedServer(overlapped(project)) as server:
        done = project.legato(server.url, "--headless", "go")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Both at once, and more words after them.\nAll done now.\n"
    assert "⏺ Bash(touch" in done.stderr


def test_a_failure_after_a_call_started_keeps_stream_json_in_order(project: Project) -> None:
    project.settings(permissionMode="custom", allowedPaths=["**"], allowedCommands=["touch"])
    flag = project.root / "started"
    calls = [
        call("Bash", {"command": f"touch {flag}"}, id="toolu_bash"),
        call("Write", {"file_path": str(project.root / "out.txt"), "content": "x\n"}),
    ]
    gate = Gate(path=str(flag), before_block=2)
    whole = tool_calls(calls, text="Two things.", gate=gate)
    step = tool_calls(
        calls,
        text="Two things.",
        gate=gate,
        stream_error=("overloaded_error", "Overloaded"),
        error_after=events_before_block(whole, 2, then=2),
    )
    with ScriptedServer([step]) as server:
        done = project.legato(server.url, "--headless", "go", "--output-format", "stream-json")
        assert len(server.requests) == 1  # reported, not retried
    assert done.returncode == 1
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    kinds = [(e["type"], e.get("subtype")) for e in lines if e["type"] != "stream_event"]
    assert kinds == [
        ("system", "init"),
        ("system", "tool_started"),
        ("assistant", None),  # the answer as far as it came, its started call in it
        ("user", None),  # that call's result
        ("result", "error_during_execution"),
    ], kinds
    cut = next(e for e in lines if e["type"] == "assistant")["message"]
    assert cut["stop_reason"] is None
    assert [b["type"] for b in cut["content"]] == ["text", "tool_use"]
    assert "overloaded_error: Overloaded" in lines[-1]["error"]
    assert not (project.root / "out.txt").exists()
