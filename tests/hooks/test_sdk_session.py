"""Agent SDK callback hooks in a real session: given as the initialize request sends them, read
by ``read_sdk_hooks`` into ``Overrides.hooks``, and run through ``invoke`` by the real runner
around the real conductor's prompt and the real executor's command, against the scripted
Messages API over loopback."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import anyio

from actors.protocol import Overrides, RunPrompt
from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls
from frontends.session import assemble, read_sdk_hooks
from frontends.session_options import SessionOptions
from runtime import supervise
from tests.compaction.test_long_session import Quiet
from tests.hooks.sdk import FakeSdk

if TYPE_CHECKING:
    from pathlib import Path

    from actors.protocol import TurnOutcome
    from frontends.demo.scripted_api import RecordedRequest, Step

INITIALIZE_HOOKS = {
    "UserPromptSubmit": [{"matcher": None, "hookCallbackIds": ["hook_0"]}],
    "PreToolUse": [{"matcher": "Bash", "hookCallbackIds": ["hook_1"], "timeout": 30}],
    "PostToolUse": [{"matcher": "Bash", "hookCallbackIds": ["hook_2"]}],
}


def specific(event: str, **fields: Any) -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": event, **fields}}


async def prompt(
    tmp_path: Path, hooks: dict[str, Any], sdk: FakeSdk, steps: list[Step]
) -> tuple[TurnOutcome, list[RecordedRequest]]:
    """One headless prompt, "go", in a session given ``hooks`` as the SDK's initialize sends
    them; echo is allowed to run."""
    root, home = tmp_path / "project", tmp_path / "home"
    (root / ".legato").mkdir(parents=True)
    (root / ".legato" / "settings.json").write_text('{"allowedCommands": ["echo"]}')
    home.mkdir()
    groups, problems = read_sdk_hooks(hooks)
    assert problems == []
    with ScriptedServer(steps) as server:
        env = {"ASSISTANT_BASE_URL": server.url, "ASSISTANT_API_KEY": "k", "HOME": str(home)}
        options = SessionOptions(
            project_root=str(root), headless=True, env=env, home=str(home), session_id="sdk",
            overrides=Overrides(permission_mode="auto", hooks=groups), hook_callbacks=sdk,
        )  # fmt: skip
        session = assemble(options, renderer=Quiet())
        async with supervise(session.actors):
            with anyio.fail_after(30):
                outcome = await session.conductor.address.ask(RunPrompt(text="go"))
        return outcome, server.requests


def tool_result(request: RecordedRequest) -> dict[str, Any]:
    (result,) = [
        block
        for block in request.body["messages"][-1]["content"]
        if block.get("type") == "tool_result"
    ]
    return result  # type: ignore[no-any-return]


async def test_callbacks_shape_a_prompt_and_a_command_in_a_real_session(tmp_path: Path) -> None:
    sdk = FakeSdk(
        {
            "hook_0": specific("UserPromptSubmit", additionalContext="Ticket: APP-7"),
            "hook_1": specific("PreToolUse", updatedInput={"command": "echo changed"}),
            "hook_2": specific("PostToolUse", additionalContext="the SDK looked at it"),
        }
    )
    steps = [tool_calls([call("Bash", {"command": "echo original"})]), text("Done.")]
    outcome, requests = await prompt(tmp_path, INITIALIZE_HOOKS, sdk, steps)
    assert outcome.subtype == "success"
    assert [(callback, payload["hook_event_name"]) for callback, payload, _ in sdk.calls] == [
        ("hook_0", "UserPromptSubmit"),
        ("hook_1", "PreToolUse"),
        ("hook_2", "PostToolUse"),
    ]
    tool_use_id = sdk.calls[1][2]
    assert tool_use_id is not None and tool_use_id.startswith("toolu_")
    assert sdk.calls[2][2] == tool_use_id
    assert sdk.calls[1][1]["tool_input"] == {"command": "echo original"}
    assert sdk.calls[2][1]["tool_input"] == {"command": "echo changed"}
    assert "Ticket: APP-7" in str(requests[0].body["messages"])
    content = str(tool_result(requests[1])["content"])
    assert "changed" in content and "original" not in content
    assert "the SDK looked at it" in content


async def test_a_failing_guard_set_to_block_keeps_the_command_from_running(
    tmp_path: Path,
) -> None:
    marker = tmp_path / "project" / "ran"  # where auto mode lets the command write
    hooks = {"PreToolUse": [{"hookCallbackIds": ["guard"], "onFailure": "block"}]}
    sdk = FakeSdk({"guard": ConnectionError("the SDK process is gone")})
    steps = [tool_calls([call("Bash", {"command": f"echo > {marker}"})]), text("Done.")]
    outcome, requests = await prompt(tmp_path, hooks, sdk, steps)
    assert outcome.subtype == "success"
    result = tool_result(requests[1])
    assert result["is_error"] is True
    assert "ConnectionError: the SDK process is gone" in str(result["content"])
    assert not marker.exists()
