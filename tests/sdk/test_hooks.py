"""The SDK's ``hooks=`` callbacks, called by Legato over the control protocol for the events
docs/hooks.md defines, and obeyed."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Literal

from claude_agent_sdk import HookContext, HookMatcher, ResultMessage, ToolResultBlock, UserMessage

from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls
from tests.sdk.conftest import collect

if TYPE_CHECKING:
    from claude_agent_sdk import HookInput, HookJSONOutput

    from tests.sdk.conftest import Folder


async def test_hook_callbacks_see_the_events_and_can_block_a_call(folder: Folder) -> None:
    seen: list[dict[str, Any]] = []

    async def guard(data: HookInput, tool_use_id: str | None, _: HookContext) -> HookJSONOutput:
        seen.append({"event": data["hook_event_name"], "tool_use_id": tool_use_id, **data})
        command = str(data.get("tool_input", {}).get("command", ""))  # type: ignore[attr-defined]
        if "forbidden" in command:
            return {
                "hookSpecificOutput": {
                    "hookEventName": "PreToolUse",
                    "permissionDecision": "deny",
                    "permissionDecisionReason": "the guard refuses forbidden things",
                }
            }
        return {}

    async def context(data: HookInput, _id: str | None, _: HookContext) -> HookJSONOutput:
        seen.append({"event": data["hook_event_name"]})
        return {
            "hookSpecificOutput": {
                "hookEventName": "UserPromptSubmit",
                "additionalContext": "The release is called Tuba.",
            }
        }

    steps = [
        tool_calls(
            [
                call("Bash", {"command": "echo allowed"}),
                call("Bash", {"command": "echo forbidden"}),
            ]
        ),
        text("One ran, one was refused."),
    ]
    hooks: dict[Any, list[HookMatcher]] = {
        "PreToolUse": [HookMatcher(matcher="Bash", hooks=[guard])],
        "PostToolUse": [HookMatcher(matcher=None, hooks=[guard])],
        "UserPromptSubmit": [HookMatcher(hooks=[context])],
    }
    with ScriptedServer(steps) as server:
        options = folder.options(server.url, allowed_tools=["Bash(echo:*)"], hooks=hooks)
        messages = await collect("run both", options)
        requests = server.requests
    result = messages[-1]
    assert isinstance(result, ResultMessage) and result.subtype == "success"
    events = [entry["event"] for entry in seen]
    assert events[0] == "UserPromptSubmit"
    assert sorted(events[1:]) == ["PostToolUse", "PreToolUse", "PreToolUse"]
    pre = [entry for entry in seen if entry["event"] == "PreToolUse"]
    assert {entry["tool_input"]["command"] for entry in pre} == {"echo allowed", "echo forbidden"}
    assert all(entry["tool_use_id"] and entry["session_id"] == result.session_id for entry in pre)
    blocks = {
        block.tool_use_id: block
        for message in messages
        if isinstance(message, UserMessage)
        for block in message.content
        if isinstance(block, ToolResultBlock)
    }
    said = {str(block.content).strip() for block in blocks.values()}
    assert said == {
        "allowed",
        "A PreToolUse hook blocked this call: the guard refuses forbidden things",
    }
    # The prompt hook's context reached the model with the prompt.
    assert "The release is called Tuba." in str(requests[0].body["messages"])


async def test_a_failing_callback_set_to_block_blocks_and_one_set_to_continue_does_not(
    folder: Folder,
) -> None:
    async def broken(data: HookInput, _id: str | None, _: HookContext) -> HookJSONOutput:
        raise RuntimeError("the guard's database is down")

    target = folder.root / "out.txt"
    steps = [
        tool_calls([call("Write", {"file_path": str(target), "content": "x"})]),
        text("done"),
    ]
    cases: list[tuple[Literal["block", "continue"], bool]] = [("block", False), ("continue", True)]
    for on_failure, written in cases:
        hooks: dict[Any, list[HookMatcher]] = {
            "PreToolUse": [HookMatcher(matcher="Write", hooks=[broken], on_failure=on_failure)]
        }
        with ScriptedServer(steps) as server:
            options = folder.options(server.url, permission_mode="acceptEdits", hooks=hooks)
            await collect("write it", options)
        assert target.exists() is written, on_failure
