"""Agent SDK callback hooks in the runner: asked through ``invoke`` with the input a command
gets on stdin, their answers read as a command's JSON stdout, their failures (an error, a
timeout, an answer that is not one) reported, or blocking where the matcher says
``onFailure: "block"``."""

from __future__ import annotations

import json
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

import pytest
import trio
import trio.testing

from actors.hooks import HookRunner
from actors.protocol import HookFinished, HookStarted
from runtime import supervise
from tests.hooks.harness import SESSION, TRANSCRIPT, Runner, group, script
from tests.hooks.sdk import FakeSdk, callbacks
from tests.tool_executor.test_progress import Screen

if TYPE_CHECKING:
    from collections.abc import AsyncIterator
    from pathlib import Path

    from actors.hooks import Invoke
    from actors.protocol import HookEvent, HookGroup

ROOT = "/nonexistent/project"  # callbacks run nowhere: the runner never needs the folder here


@asynccontextmanager
async def running(
    *groups: HookGroup, invoke: Invoke | None, **options: Any
) -> AsyncIterator[Runner]:
    actor = HookRunner(
        project_root=ROOT,
        session_id=SESSION,
        transcript_path=TRANSCRIPT,
        groups=groups,
        invoke=invoke,
        **options,
    )
    async with supervise([actor]):
        yield Runner(actor.address)


def pre(**specific: Any) -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", **specific}}


async def test_a_pre_tool_use_callback_gets_a_commands_input_and_can_deny() -> None:
    answer = pre(permissionDecision="deny", permissionDecisionReason="not on main")
    sdk = FakeSdk({"hook_0": answer})
    async with running(callbacks("PreToolUse", "hook_0", matcher="Bash"), invoke=sdk) as hooks:
        outcome = await hooks.run(
            "PreToolUse", "Bash", tool_input={"command": "git push"}, tool_use_id="toolu_1"
        )
        skipped = await hooks.run("PreToolUse", "Read", tool_input={}, tool_use_id="toolu_2")
    assert sdk.calls == [
        (
            "hook_0",
            {
                "session_id": SESSION,
                "transcript_path": TRANSCRIPT,
                "cwd": ROOT,
                "hook_event_name": "PreToolUse",
                "permission_mode": "default",
                "tool_name": "Bash",
                "tool_input": {"command": "git push"},
                "tool_use_id": "toolu_1",
            },
            "toolu_1",
        )
    ]  # and not for Read: the matcher chose
    assert (outcome.blocked, outcome.decision, outcome.reason) == (True, "deny", "not on main")
    (run,) = outcome.runs
    assert (run.command, run.exit_code, run.timed_out, run.callback) == (
        "Agent SDK callback hook_0",
        0,
        False,
        True,
    )
    assert json.loads(run.stdout) == answer  # what stream-json's hook_response shows
    assert skipped.runs == ()


async def test_updated_input_and_ask_are_read_as_from_a_command() -> None:
    sdk = FakeSdk(
        {
            "hook_0": pre(updatedInput={"command": "git push --dry-run"}),
            "hook_1": pre(permissionDecision="ask", permissionDecisionReason="a push"),
        }
    )
    async with running(callbacks("PreToolUse", "hook_0", "hook_1"), invoke=sdk) as hooks:
        outcome = await hooks.run("PreToolUse", "Bash", tool_input={"command": "git push"})
    assert outcome.updated_input == {"command": "git push --dry-run"}
    assert (outcome.decision, outcome.reason, outcome.blocked) == ("ask", "a push", False)
    assert [call[2] for call in sdk.calls] == [None, None]  # the payload had no tool_use_id


async def test_post_tool_use_context_and_user_prompt_and_stop_blocks() -> None:
    sdk = FakeSdk(
        {
            "post": {
                "hookSpecificOutput": {
                    "hookEventName": "PostToolUse",
                    "additionalContext": "lint: clean",
                }
            },
            "prompt": {"decision": "block", "reason": "no secrets in prompts"},
            "stop": {"decision": "block", "reason": "the tests still fail"},
        }
    )
    groups = (
        callbacks("PostToolUse", "post", matcher="Edit|Write"),
        callbacks("UserPromptSubmit", "prompt"),
        callbacks("Stop", "stop"),
    )
    async with running(*groups, invoke=sdk) as hooks:
        post = await hooks.run("PostToolUse", "Write", tool_input={}, tool_response={})
        prompt = await hooks.run("UserPromptSubmit", prompt="my key is sk-...")
        stop = await hooks.run("Stop", stop_hook_active=False)
    assert (post.context, post.blocked) == ("lint: clean", False)
    assert (prompt.blocked, prompt.reason) == (True, "no secrets in prompts")
    assert (stop.blocked, stop.reason) == (True, "the tests still fail")
    assert [(call[0], call[1]["hook_event_name"]) for call in sdk.calls] == [
        ("post", "PostToolUse"),
        ("prompt", "UserPromptSubmit"),
        ("stop", "Stop"),
    ]
    assert sdk.calls[1][1]["prompt"] == "my key is sk-..."


async def test_a_callback_past_its_timeout_is_a_non_blocking_error(
    autojump_clock: trio.testing.MockClock,
) -> None:
    sdk = FakeSdk({"hook_0": trio.sleep_forever})
    async with running(callbacks("PreToolUse", "hook_0", timeout=30), invoke=sdk) as hooks:
        start = trio.current_time()
        outcome = await hooks.run("PreToolUse", "Bash", tool_input={})
        assert trio.current_time() - start == 30.0
    assert not outcome.blocked
    assert outcome.errors == ("Agent SDK callback hook_0: timed out after 30.0s",)
    (run,) = outcome.runs
    assert (run.exit_code, run.timed_out, run.elapsed) == (None, True, 30.0)
    assert sdk.cancelled_at is not None  # the pending ask was given up, not left running


async def test_a_callback_that_raises_is_a_non_blocking_error() -> None:
    sdk = FakeSdk({"hook_0": RuntimeError("the callback raised KeyError: 'x'")})
    async with running(callbacks("PreToolUse", "hook_0"), invoke=sdk) as hooks:
        outcome = await hooks.run("PreToolUse", "Bash", tool_input={})
    assert (outcome.blocked, outcome.decision) == (False, None)
    assert outcome.errors == (
        "Agent SDK callback hook_0 failed: RuntimeError: the callback raised KeyError: 'x'",
    )
    (run,) = outcome.runs
    assert (run.exit_code, run.stderr) == (1, "RuntimeError: the callback raised KeyError: 'x'")


@pytest.mark.parametrize(
    ("answer", "error"),
    [
        (None, " failed: answered NoneType, not a JSON object"),
        ([1, 2], " failed: answered list, not a JSON object"),
        ("allow", " failed: answered str, not a JSON object"),
        ({"x": {1, 2}}, " failed: answered an object that is not JSON: "),
        ({"decision": 5}, ": decision 5 means nothing for PreToolUse"),
        ({"hookSpecificOutput": "deny"}, ": hookSpecificOutput is not for PreToolUse"),
        (pre(permissionDecision="Deny"), ": unknown permissionDecision 'Deny'"),
        (pre(updatedInput=["rm"]), ": updatedInput is not an object"),
    ],
)
async def test_hostile_answers_are_errors_not_crashes(answer: object, error: str) -> None:
    async with running(callbacks("PreToolUse", "hook_0"), invoke=FakeSdk({"hook_0": answer})) as h:
        outcome = await h.run("PreToolUse", "Bash", tool_input={})
    assert (outcome.blocked, outcome.updated_input) == (False, None)
    (shown,) = outcome.errors
    assert shown.startswith(f"Agent SDK callback hook_0{error}")


async def test_answers_of_the_wrong_types_are_ignored_where_commands_are() -> None:
    answer = {"continue": "no", "suppressOutput": 1, "systemMessage": 5, "reason": ["x"]}
    async with running(callbacks("Stop", "hook_0"), invoke=FakeSdk({"hook_0": answer})) as h:
        outcome = await h.run("Stop", stop_hook_active=False)
    assert (outcome.blocked, outcome.stop, outcome.suppress_output) == (False, False, False)
    assert (outcome.system_messages, outcome.errors) == ((), ())


@pytest.mark.parametrize(
    ("behaviour", "reason"),
    [
        (RuntimeError("boom"), "Agent SDK callback hook_0 failed: RuntimeError: boom"),
        (pre(permissionDecision="Deny"), "Agent SDK callback hook_0: unknown permissionDecision"),
        ([], "Agent SDK callback hook_0 failed: answered list, not a JSON object"),
    ],
)
async def test_on_failure_block_denies_the_call_with_the_failure(
    behaviour: object, reason: str
) -> None:
    group = callbacks("PreToolUse", "hook_0", block_on_failure=True)
    async with running(group, invoke=FakeSdk({"hook_0": behaviour})) as hooks:
        outcome = await hooks.run("PreToolUse", "Bash", tool_input={})
    assert (outcome.blocked, outcome.decision, outcome.errors) == (True, "deny", ())
    assert outcome.reason is not None
    assert outcome.reason.startswith(reason)
    assert outcome.reason.endswith('(its onFailure is "block")')


async def test_on_failure_block_blocks_a_prompt_after_a_timeout(
    autojump_clock: trio.testing.MockClock,
) -> None:
    group = callbacks("UserPromptSubmit", "hook_0", timeout=5, block_on_failure=True)
    async with running(group, invoke=FakeSdk({"hook_0": trio.sleep_forever})) as hooks:
        start = trio.current_time()
        outcome = await hooks.run("UserPromptSubmit", prompt="hi")
        assert trio.current_time() - start == 5.0
    assert (outcome.blocked, outcome.reason) == (
        True,
        'Agent SDK callback hook_0: timed out after 5.0s (its onFailure is "block")',
    )


@pytest.mark.parametrize("event", ["Stop", "SubagentStop", "SessionStart"])
async def test_on_failure_block_does_not_block_where_the_sdk_ignores_it(event: HookEvent) -> None:
    group = callbacks(event, "hook_0", block_on_failure=True)
    async with running(group, invoke=FakeSdk({"hook_0": RuntimeError("boom")})) as hooks:
        outcome = await hooks.run(event, source="startup", stop_hook_active=False)
    assert not outcome.blocked
    assert outcome.errors == ("Agent SDK callback hook_0 failed: RuntimeError: boom",)


async def test_without_invoke_a_callback_is_a_hook_error() -> None:
    async with running(callbacks("PreToolUse", "hook_0"), invoke=None) as hooks:
        outcome = await hooks.run("PreToolUse", "Bash", tool_input={})
    assert not outcome.blocked
    assert outcome.errors == (
        "Agent SDK callback hook_0 failed: this session's frontend cannot run Agent SDK callbacks",
    )


async def test_cancelling_the_ask_cancels_the_pending_callback_at_once(
    autojump_clock: trio.testing.MockClock,
) -> None:
    sdk = FakeSdk({"hook_0": trio.sleep_forever})
    async with running(callbacks("PreToolUse", "hook_0", timeout=60), invoke=sdk) as hooks:
        start = trio.current_time()
        with trio.move_on_after(2):  # the user pressed Esc two seconds in
            await hooks.run("PreToolUse", "Bash", tool_input={})
        await trio.testing.wait_all_tasks_blocked()
    assert sdk.cancelled_at is not None
    assert sdk.cancelled_at - start == 2.0


async def test_callbacks_and_commands_of_one_event_run_together(tmp_path: Path) -> None:
    (tmp_path / "p").mkdir()
    command = script(tmp_path / "hooks", "ctx.sh", "#!/bin/bash\necho 'from the command'\n")
    sdk = FakeSdk(
        {
            "hook_0": {
                "hookSpecificOutput": {
                    "hookEventName": "UserPromptSubmit",
                    "additionalContext": "from the SDK",
                }
            }
        }
    )
    ui = Screen()  # the UI actor's double: the runner is tested alone
    groups = (group("UserPromptSubmit", command), callbacks("UserPromptSubmit", "hook_0"))
    actor = HookRunner(
        project_root=str(tmp_path / "p"),
        session_id=SESSION,
        groups=groups,
        invoke=sdk,
        ui=ui.address,
    )
    async with supervise([ui, actor]):
        outcome = await Runner(actor.address).run("UserPromptSubmit", prompt="hi")
        await trio.testing.wait_all_tasks_blocked()
    assert outcome.context == "from the command\nfrom the SDK"  # in configured order
    started = [e.command for e in ui.shown if isinstance(e, HookStarted)]
    assert sorted(started) == sorted([command, "Agent SDK callback hook_0"])
    (finished,) = [
        e for e in ui.shown if isinstance(e, HookFinished) and e.command.startswith("Agent")
    ]
    assert (finished.outcome, finished.exit_code) == ("success", 0)
    assert json.loads(finished.stdout) == sdk.answers["hook_0"]


async def test_a_shell_command_named_like_a_callback_is_not_merged_with_it(tmp_path: Path) -> None:
    (tmp_path / "p").mkdir()
    sdk = FakeSdk()
    groups = (
        group("Stop", "Agent SDK callback hook_0"),  # a command that happens to read so
        callbacks("Stop", "hook_0"),
    )
    actor = HookRunner(
        project_root=str(tmp_path / "p"), session_id=SESSION, groups=groups, invoke=sdk
    )
    async with supervise([actor]):
        outcome = await Runner(actor.address).run("Stop", stop_hook_active=False)
    assert len(outcome.runs) == 2
    assert [call[0] for call in sdk.calls] == ["hook_0"]
