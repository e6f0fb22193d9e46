"""--effort and the thinking flags reach the request as the Messages API takes them, for the
models that take them; signed thinking goes back unchanged through a tool turn and a resume."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest

from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls

if TYPE_CHECKING:
    from tests.frontends.conftest import Project


def _lines(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines() if line.strip()]


def test_a_thinking_tool_turn_is_sent_back_signed_and_resumed(project: Project) -> None:
    flags = ("--model", "opus", "--effort", "xhigh", "--max-thinking-tokens", "20000",
             "--thinking-display", "summarized")  # fmt: skip
    steps = [
        tool_calls([call("Bash", {"command": "echo hi"}, id="t1")], thinking="I should look."),
        tool_calls([call("Bash", {"command": "echo again"}, id="t2")], thinking="Once more."),
        text("Done.", thinking="That is all."),
    ]
    with ScriptedServer(steps) as server:
        first = project.legato(
            server.url, "-p", "look", "--output-format", "stream-json", "--verbose",
            "--allowedTools", "Bash(echo:*)", "--max-turns", "2", *flags,
        )  # fmt: skip
        resumed = project.legato(server.url, "-p", "go on", "--continue", *flags)
        requests = server.requests
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stdout.strip() == "Done."
    assert len(requests) == 3  # none refused: every one was answered with a step
    sent = requests[0].body
    assert sent["output_config"] == {"effort": "high"}  # opus 4.6 has no xhigh
    assert sent["thinking"] == {"type": "enabled", "budget_tokens": 20000, "display": "summarized"}
    assert sent["max_tokens"] > 20000
    # The tool turn goes back with its thinking first, signature and all, also once resumed.
    for request, thought in ((requests[1], "I should look."), (requests[2], "Once more.")):
        turn = [m for m in request.body["messages"] if m["role"] == "assistant"][-1]
        assert turn["content"][0]["type"] == "thinking"
        assert turn["content"][0]["thinking"] == thought
        assert turn["content"][0]["signature"]
    # stream-json shows the thinking as the SDK reads it (ThinkingBlock: thinking, signature).
    blocks = [
        block
        for line in _lines(first.stdout)
        if line["type"] == "assistant"
        for block in line["message"]["content"]
    ]
    (thinking, *_) = [b for b in blocks if b["type"] == "thinking"]
    assert thinking["thinking"] == "I should look." and thinking["signature"]


def test_the_settings_model_is_checked_before_any_request(project: Project) -> None:
    project.settings(model="haiku")
    with ScriptedServer([text("never")]) as server:
        done = project.legato(server.url, "-p", "hi", "--effort", "low")
        requests = server.requests
    assert done.returncode == 2, done.stderr
    assert "haiku does not take an effort level (--effort low)" in done.stderr
    assert "Traceback" not in done.stderr
    assert requests == []


def test_the_reference_variables_set_effort_and_turn_thinking_off(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("CLAUDE_CODE_EFFORT_LEVEL", "low")
    monkeypatch.setenv("MAX_THINKING_TOKENS", "0")
    with ScriptedServer([text("ok")]) as server:
        done = project.legato(server.url, "-p", "hi", "--effort", "max")
        (request,) = server.requests
    assert done.returncode == 0, done.stderr
    assert request.body["output_config"] == {"effort": "low"}  # the variable wins, as there
    assert request.body["thinking"] == {"type": "disabled"}


@pytest.mark.parametrize(("tokens", "sent"), [("500", 1024), ("200000", 63_999)])
def test_the_reference_budget_variable_is_capped_as_there_not_refused(
    project: Project, monkeypatch: pytest.MonkeyPatch, tokens: str, sent: int
) -> None:
    # Set for the reference, which raises it to 1024 and keeps it below the model's output.
    monkeypatch.setenv("MAX_THINKING_TOKENS", tokens)
    with ScriptedServer([text("ok")]) as server:
        done = project.legato(server.url, "-p", "hi", "--model", "sonnet")
        (request,) = server.requests
    assert done.returncode == 0, done.stderr
    assert request.body["thinking"] == {"type": "enabled", "budget_tokens": sent}
    assert sent < request.body["max_tokens"] <= 64_000


def test_nothing_asked_sends_nothing(project: Project) -> None:
    with ScriptedServer([text("ok")]) as server:
        done = project.legato(server.url, "-p", "hi")
        (request,) = server.requests
    assert done.returncode == 0, done.stderr
    assert "thinking" not in request.body and "output_config" not in request.body


def test_a_variable_the_model_cannot_use_is_a_warning_not_a_stop(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Set for the reference's sake, on a model that takes no effort level.
    monkeypatch.setenv("CLAUDE_CODE_EFFORT_LEVEL", "high")
    with ScriptedServer([text("ok")]) as server:
        done = project.legato(server.url, "-p", "hi", "--model", "haiku")
        (request,) = server.requests
    assert done.returncode == 0, done.stderr
    assert "output_config" not in request.body
    assert "haiku does not take an effort level (CLAUDE_CODE_EFFORT_LEVEL high)" in done.stderr


def test_effort_level_in_a_settings_file_is_the_default_and_the_flag_wins(
    project: Project,
) -> None:
    project.write(".claude/settings.json", json.dumps({"effortLevel": "medium"}))
    with ScriptedServer([text("ok"), text("ok"), text("ok")]) as server:
        plain = project.legato(server.url, "-p", "hi")
        flagged = project.legato(server.url, "-p", "hi", "--effort", "low")
        on_haiku = project.legato(server.url, "-p", "hi", "--model", "haiku")
        bodies = [request.body for request in server.requests]
    assert plain.returncode == flagged.returncode == on_haiku.returncode == 0, on_haiku.stderr
    assert [body.get("output_config") for body in bodies] == [
        {"effort": "medium"},
        {"effort": "low"},
        None,  # a file's default: haiku goes without it, told so
    ]
    assert "haiku does not take an effort level (effortLevel in" in on_haiku.stderr
    explained = project.cli("config")
    assert "effortLevel" in explained.stdout and "medium" in explained.stdout


def test_a_bad_effort_level_in_a_settings_file_names_the_file_and_key(project: Project) -> None:
    project.settings(effortLevel="max")
    done = project.legato("http://127.0.0.1:9", "-p", "hi")
    assert done.returncode == 2
    assert "effortLevel" in done.stderr and "Traceback" not in done.stderr


def test_thinking_given_mid_tool_turn_waits_for_the_next_prompt(project: Project) -> None:
    # A turn stopped after its tool ran (--max-turns), then continued with a thinking budget:
    # the API refuses thinking for results that answer a turn begun without it, until the
    # turn ends.
    steps = [
        tool_calls([call("Bash", {"command": "echo hi"}, id="t1")]),
        tool_calls([call("Bash", {"command": "echo again"}, id="t2")]),
        text("Done."),
        text("Thought.", thinking="Now I think."),
    ]
    with ScriptedServer(steps) as server:
        project.legato(
            server.url, "-p", "look", "--allowedTools", "Bash(echo:*)", "--max-turns", "1"
        )
        flags = ("--allowedTools", "Bash(echo:*)", "--max-thinking-tokens", "2048")
        went_on = project.legato(server.url, "-p", "go on", "--continue", *flags)
        after = project.legato(server.url, "-p", "and now?", "--continue", *flags)
        requests = server.requests
    assert went_on.returncode == 0, went_on.stderr
    assert (went_on.stdout.strip(), after.stdout.strip()) == ("Done.", "Thought.")
    budget = {"type": "enabled", "budget_tokens": 2048}
    off = {"type": "disabled"}  # the results answer a turn that did not think
    assert [r.body.get("thinking") for r in requests] == [None, off, off, budget]


def test_partial_messages_stream_thinking_as_the_api_does(project: Project) -> None:
    # A program that follows content_block_start to know a block's kind, and takes the
    # signature from its signature_delta, as the Messages API streams them.
    with ScriptedServer([text("Yes.", thinking="Let me see.")]) as server:
        done = project.legato(
            server.url, "-p", "think", "--output-format", "stream-json", "--verbose",
            "--include-partial-messages", "--max-thinking-tokens", "2048",
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    events = [line["event"] for line in _lines(done.stdout) if line["type"] == "stream_event"]

    def shape(event: dict[str, Any]) -> str:
        inner = event.get("content_block") or event.get("delta") or {}
        return f"{event['type']} {event.get('index', '')} {inner.get('type', '')}".strip()

    assert [shape(event) for event in events] == [
        "message_start",
        "content_block_start 0 thinking",
        "content_block_delta 0 thinking_delta",
        "content_block_delta 0 signature_delta",
        "content_block_stop 0",
        "content_block_start 1 text",
        "content_block_delta 1 text_delta",
        "content_block_stop 1",
        "message_delta",
        "message_stop",
    ]
    (said,) = [line for line in _lines(done.stdout) if line["type"] == "assistant"]
    assert events[3]["delta"]["signature"] == said["message"]["content"][0]["signature"]
    assert events[-2]["delta"]["stop_reason"] == "end_turn"
