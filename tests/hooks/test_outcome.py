"""Reading a run's end and output, without processes: the cases the scripts do not show."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from actors.hooks.outcome import combine, read_run
from actors.protocol import HookOutcome, HookRun

if TYPE_CHECKING:
    from actors.protocol import HookEvent


def ran(stdout: str = "", *, code: int | None = 0, stderr: str = "", name: str = "h") -> HookRun:
    return HookRun(command=name, source="s", exit_code=code, stdout=stdout, stderr=stderr)


def outcome(event: HookEvent, *runs: HookRun) -> HookOutcome:
    return combine(runs, [read_run(event, run) for run in runs], ())


def said(value: object) -> HookRun:
    return ran(json.dumps(value))


def test_stdout_that_is_not_one_json_object_is_plain_text() -> None:
    for stdout in ("[1, 2]", "{not json", '"text"', "hello {}"):
        result = outcome("UserPromptSubmit", ran(stdout))
        assert (result.context, result.errors) == (stdout, ())


def test_post_tool_use_adds_context_and_can_block() -> None:
    specific = {"hookEventName": "PostToolUse", "additionalContext": "lint: 2 warnings"}
    result = outcome(
        "PostToolUse",
        said({"hookSpecificOutput": specific}),
        said({"decision": "block", "reason": "fix the lint"}),
    )
    assert (result.context, result.blocked, result.reason) == (
        "lint: 2 warnings",
        True,
        "fix the lint",
    )


def test_a_stop_hook_can_block_by_exit_2() -> None:
    result = outcome("SubagentStop", ran(code=2, stderr="tests fail\n"))
    assert (result.blocked, result.reason) == (True, "tests fail")


@pytest.mark.parametrize(
    ("answer", "error"),
    [
        (
            {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "maybe"}},
            "h: unknown permissionDecision 'maybe'",
        ),
        (
            {"hookSpecificOutput": {"hookEventName": "PreToolUse", "updatedInput": "ls"}},
            "h: updatedInput is not an object",
        ),
        ({"hookSpecificOutput": "allow"}, "h: hookSpecificOutput is not for PreToolUse"),
        ({"decision": "continue"}, "h: decision 'continue' means nothing for PreToolUse"),
    ],
)
def test_answers_that_make_no_sense_are_reported(answer: object, error: str) -> None:
    result = outcome("PreToolUse", said(answer))
    assert (result.blocked, result.decision, result.errors) == (False, None, (error,))


def test_a_signal_is_an_error_and_long_stderr_keeps_its_end() -> None:
    result = outcome("Notification", ran(code=-9), ran(code=3, stderr="x" * 1000 + "the end"))
    assert result.errors[0] == "h exited with -9: "
    assert result.errors[1].endswith("xthe end")
    assert len(result.errors[1]) < 500


def test_errors_of_the_matchers_come_first() -> None:
    result = combine(
        [ran(code=1, stderr="no")], [read_run("Stop", ran(code=1, stderr="no"))], ["m"]
    )
    assert result.errors == ("m", "h exited with 1: no")


def test_output_nested_past_the_parser_is_plain_text_not_a_crash() -> None:
    deep = '{"a": ' + "[" * 100_000
    verdict = read_run("UserPromptSubmit", ran(stdout=deep))
    assert verdict.errors == [] and not verdict.blocked
