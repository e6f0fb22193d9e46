"""What real hook scripts decide, read as Claude Code reads it: exit codes, JSON answers, plain
stdout, and the JSON each hook gets on stdin."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from tests.hooks.harness import (
    SESSION,
    TRANSCRIPT,
    group,
    python_hook,
    running,
    script,
)

if TYPE_CHECKING:
    from pathlib import Path

    from actors.protocol import HookEvent


def answer(tmp_path: Path, name: str, value: object) -> str:
    """A bash hook that prints ``value`` as JSON and exits 0."""
    text = json.dumps(value).replace("'", "'\\''")
    return script(tmp_path / "hooks", name, f"#!/bin/bash\necho '{text}'\n")


async def test_exit_0_with_nothing_to_say_allows_everything(tmp_path: Path) -> None:
    quiet = script(tmp_path / "hooks", "quiet.sh", "#!/bin/bash\ncat > /dev/null\n")
    async with running(tmp_path / "p", group("PreToolUse", quiet)) as hooks:
        outcome = await hooks.run("PreToolUse", "Bash", tool_input={"command": "ls"})
    (run,) = outcome.runs
    assert (run.command, run.source, run.exit_code, run.timed_out) == (
        quiet,
        "settings.json",
        0,
        False,
    )
    assert not outcome.blocked
    assert (outcome.decision, outcome.reason, outcome.errors) == (None, None, ())


@pytest.mark.parametrize("event", ["PreToolUse", "PostToolUse", "UserPromptSubmit", "Stop"])
async def test_exit_2_blocks_with_stderr_as_the_reason(tmp_path: Path, event: HookEvent) -> None:
    no = script(tmp_path / "hooks", "no.sh", "#!/bin/bash\necho 'not this' >&2\nexit 2\n")
    async with running(tmp_path / "p", group(event, no)) as hooks:
        outcome = await hooks.run(event, "Bash" if event.endswith("ToolUse") else None)
    assert outcome.blocked
    assert outcome.reason == "not this"
    assert outcome.errors == ()
    assert outcome.decision == ("deny" if event == "PreToolUse" else None)


async def test_exit_2_where_nothing_can_be_blocked_is_only_shown(tmp_path: Path) -> None:
    no = script(tmp_path / "hooks", "no.sh", "#!/bin/bash\necho 'too late' >&2\nexit 2\n")
    async with running(tmp_path / "p", group("SessionEnd", no)) as hooks:
        outcome = await hooks.run("SessionEnd", reason="exit")
    assert not outcome.blocked
    assert outcome.errors == (f"{no} exited with 2: too late",)


async def test_another_exit_code_is_an_error_that_blocks_nothing(tmp_path: Path) -> None:
    broken = python_hook(
        tmp_path / "hooks",
        "broken.py",
        "import sys\nprint('it broke', file=sys.stderr)\nsys.exit(1)\n",
    )
    async with running(tmp_path / "p", group("PreToolUse", broken)) as hooks:
        outcome = await hooks.run("PreToolUse", "Write", tool_input={})
    assert not outcome.blocked
    assert outcome.runs[0].exit_code == 1
    assert outcome.errors == (f"{broken} exited with 1: it broke",)


@pytest.mark.parametrize(
    ("said", "decision", "blocked"),
    [
        ("allow", "allow", False),
        ("ask", "ask", False),
        ("deny", "deny", True),
    ],
)
async def test_a_permission_decision_in_json(
    tmp_path: Path, said: str, decision: str, blocked: bool
) -> None:
    hook = answer(
        tmp_path,
        "decide.sh",
        {
            "hookSpecificOutput": {
                "hookEventName": "PreToolUse",
                "permissionDecision": said,
                "permissionDecisionReason": f"because {said}",
            }
        },
    )
    async with running(tmp_path / "p", group("PreToolUse", hook)) as hooks:
        outcome = await hooks.run("PreToolUse", "Bash", tool_input={"command": "ls"})
    assert (outcome.decision, outcome.blocked, outcome.reason) == (
        decision,
        blocked,
        f"because {said}",
    )


@pytest.mark.parametrize(("said", "decision"), [("approve", "allow"), ("block", "deny")])
async def test_the_older_pre_tool_use_decision(tmp_path: Path, said: str, decision: str) -> None:
    hook = answer(tmp_path, "old.sh", {"decision": said, "reason": "old style"})
    async with running(tmp_path / "p", group("PreToolUse", hook)) as hooks:
        outcome = await hooks.run("PreToolUse", "Bash", tool_input={})
    assert (outcome.decision, outcome.blocked, outcome.reason) == (
        decision,
        decision == "deny",
        "old style",
    )


@pytest.mark.parametrize("event", ["PostToolUse", "Stop", "UserPromptSubmit"])
async def test_a_block_decision_in_json(tmp_path: Path, event: HookEvent) -> None:
    hook = answer(tmp_path, "block.sh", {"decision": "block", "reason": "run the tests first"})
    async with running(tmp_path / "p", group(event, hook)) as hooks:
        outcome = await hooks.run(event, "Bash" if event == "PostToolUse" else None)
    assert (outcome.blocked, outcome.reason) == (True, "run the tests first")


async def test_deny_wins_ask_beats_allow_and_reasons_are_joined(tmp_path: Path) -> None:
    def decide(name: str, said: str) -> str:
        output = {"hookEventName": "PreToolUse", "permissionDecision": said}
        output["permissionDecisionReason"] = name
        return answer(tmp_path, f"{name}.sh", {"hookSpecificOutput": output})

    allow, ask, deny = decide("a", "allow"), decide("b", "ask"), decide("c", "deny")
    async with running(tmp_path / "p", group("PreToolUse", allow, ask)) as hooks:
        asked = await hooks.run("PreToolUse", "Bash", tool_input={})
    block = script(tmp_path / "hooks", "d.sh", "#!/bin/bash\necho exit-two >&2\nexit 2\n")
    async with running(tmp_path / "p", group("PreToolUse", allow, ask, deny, block)) as hooks:
        denied = await hooks.run("PreToolUse", "Bash", tool_input={})
    assert (asked.decision, asked.blocked, asked.reason) == ("ask", False, "b")
    assert (denied.decision, denied.blocked, denied.reason) == ("deny", True, "c\nexit-two")


async def test_updated_input_the_first_hook_gives_is_used(tmp_path: Path) -> None:
    def rewrite(name: str, command: str) -> str:
        output = {
            "hookEventName": "PreToolUse",
            "permissionDecision": "allow",
            "updatedInput": {"command": command},
        }
        return answer(tmp_path, name, {"hookSpecificOutput": output})

    first, second = rewrite("first.sh", "ls -la"), rewrite("second.sh", "ls -1")
    async with running(tmp_path / "p", group("PreToolUse", first, second)) as hooks:
        outcome = await hooks.run("PreToolUse", "Bash", tool_input={"command": "ls"})
    assert outcome.updated_input == {"command": "ls -la"}
    assert outcome.decision == "allow"
    assert outcome.errors == (f"{second}: its updatedInput is ignored, {first}'s is used",)


@pytest.mark.parametrize("event", ["UserPromptSubmit", "SessionStart"])
async def test_plain_stdout_is_context_where_claude_code_adds_it(
    tmp_path: Path, event: HookEvent
) -> None:
    one = script(tmp_path / "hooks", "one.sh", "#!/bin/bash\necho 'branch: main'\n")
    two = answer(
        tmp_path,
        "two.sh",
        {"hookSpecificOutput": {"hookEventName": event, "additionalContext": "tests: green"}},
    )
    async with running(tmp_path / "p", group(event, one, two)) as hooks:
        outcome = await hooks.run(event, prompt="hi", source="startup")
    assert outcome.context == "branch: main\ntests: green"
    assert not outcome.blocked


async def test_plain_stdout_of_a_tool_hook_is_not_context(tmp_path: Path) -> None:
    chatty = script(tmp_path / "hooks", "chatty.sh", "#!/bin/bash\necho formatted\n")
    async with running(tmp_path / "p", group("PostToolUse", chatty)) as hooks:
        outcome = await hooks.run("PostToolUse", "Edit", tool_input={}, tool_response={})
    assert outcome.context == ""
    assert outcome.runs[0].stdout == "formatted\n"


async def test_continue_false_stops_and_messages_are_kept(tmp_path: Path) -> None:
    hook = answer(
        tmp_path,
        "stop.sh",
        {
            "continue": False,
            "stopReason": "build broken",
            "systemMessage": "see build.log",
            "suppressOutput": True,
        },
    )
    async with running(tmp_path / "p", group("PostToolUse", hook)) as hooks:
        outcome = await hooks.run("PostToolUse", "Bash", tool_input={}, tool_response={})
    assert (outcome.stop, outcome.stop_reason) == (True, "build broken")
    assert outcome.system_messages == ("see build.log",)
    assert outcome.suppress_output


async def test_output_for_another_event_is_reported_and_ignored(tmp_path: Path) -> None:
    hook = answer(
        tmp_path,
        "wrong.sh",
        {"hookSpecificOutput": {"hookEventName": "PostToolUse", "permissionDecision": "deny"}},
    )
    async with running(tmp_path / "p", group("PreToolUse", hook)) as hooks:
        outcome = await hooks.run("PreToolUse", "Bash", tool_input={})
    assert (outcome.blocked, outcome.decision) == (False, None)
    assert outcome.errors == (f"{hook}: hookSpecificOutput is not for PreToolUse",)


async def test_the_hook_gets_the_event_as_json_on_stdin_and_the_project_in_env(
    tmp_path: Path,
) -> None:
    root = tmp_path / "p"
    seen = tmp_path / "seen"
    hook = python_hook(
        tmp_path / "hooks",
        "record.py",
        "import json, os, sys\n"
        f"seen = {str(seen)!r}\n"
        "json.dump(json.load(sys.stdin), open(seen + '.json', 'w'))\n"
        "names = ('CLAUDE_PROJECT_DIR', 'LEGATO_PROJECT_DIR', 'FROM_SESSION')\n"
        "json.dump([os.environ.get(n) for n in names] + [os.getcwd()], open(seen + '.env', 'w'))\n",
    )
    tool_input = {"command": "rm -rf build", "description": "clean"}
    async with running(root, group("PreToolUse", hook), env={"FROM_SESSION": "yes"}) as hooks:
        await hooks.run("PreToolUse", "Bash", tool_input=tool_input, tool_use_id="toolu_1")
    got = json.loads((tmp_path / "seen.json").read_text())
    assert got.pop("session_id") == SESSION
    assert got.pop("transcript_path") == TRANSCRIPT
    assert got.pop("cwd") == str(root)
    assert got.pop("hook_event_name") == "PreToolUse"
    assert got.pop("permission_mode") == "default"
    assert got.pop("tool_name") == "Bash"
    assert got.pop("tool_input") == tool_input
    assert got.pop("tool_use_id") == "toolu_1"
    assert got == {}
    assert json.loads((tmp_path / "seen.env").read_text()) == [
        str(root),
        str(root),
        "yes",
        str(root),
    ]


async def test_the_payload_can_tell_the_mode_of_the_moment(tmp_path: Path) -> None:
    seen = tmp_path / "seen.json"
    hook = script(tmp_path / "hooks", "record.sh", f"#!/bin/bash\ncat > {seen}\n")
    async with running(tmp_path / "p", group("Stop", hook)) as hooks:
        await hooks.run("Stop", stop_hook_active=False, permission_mode="plan")
    got = json.loads(seen.read_text())
    assert (got["permission_mode"], got["stop_hook_active"]) == ("plan", False)
