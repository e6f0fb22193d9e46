"""The Claude Code user's repository driven by the official Claude Agent SDK, with the options in
the reference's names (``allowed_tools``, ``disallowed_tools``, ``permission_mode``,
``setting_sources``), against a real ``legato`` (``cli_path``) and the scripted model."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from claude_agent_sdk import (
    PermissionResultDeny,
    ResultMessage,
    ToolPermissionContext,
    ToolResultBlock,
    UserMessage,
)

from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls
from tests.claude_code import claude_repo as cc
from tests.sdk.conftest import collect, folder
from tests.trusting import trust_project

if TYPE_CHECKING:
    from claude_agent_sdk import Message, PermissionResult

    from tests.sdk.conftest import Folder

__all__ = ["folder"]


def results(messages: list[Message]) -> dict[str, str]:
    return {
        block.tool_use_id: str(block.content)
        for message in messages
        if isinstance(message, UserMessage) and isinstance(message.content, list)
        for block in message.content
        if isinstance(block, ToolResultBlock)
    }


async def test_the_sdks_options_and_the_repositorys_rules_decide_together(
    folder: Folder,
) -> None:
    cc.write_repo(folder.root)
    trust_project(folder.root, folder.home)
    asked: list[tuple[str, dict[str, Any]]] = []

    async def decide(
        tool: str, tool_input: dict[str, Any], _: ToolPermissionContext
    ) -> PermissionResult:
        asked.append((tool, tool_input))
        return PermissionResultDeny(message="not today")

    secret, planted = str(folder.root / "secrets" / "api.txt"), folder.root / "src" / "x.py"
    steps = [
        tool_calls(
            [
                call("Bash", {"command": "echo sdk-ok"}, id="t_echo"),
                call("Bash", {"command": "git push origin main"}, id="t_push"),
                call("Read", {"file_path": secret}, id="t_secret"),
                call("Write", {"file_path": str(planted), "content": "x"}, id="t_write"),
            ]
        ),
        text("Done."),
    ]
    with ScriptedServer(steps) as server:
        options = folder.options(
            server.url,
            allowed_tools=["Bash(echo:*)", "Read(./secrets/**)"],
            disallowed_tools=["Write"],
            permission_mode="acceptEdits",
            setting_sources=["user", "project", "local"],
            system_prompt={
                "type": "preset",
                "preset": "claude_code",
                "append": "SDK-APPENDED-2e4b",
            },
            can_use_tool=decide,
        )
        messages = await collect("ship it", options)
        requests = server.requests
    result = messages[-1]
    assert isinstance(result, ResultMessage) and result.subtype == "success"
    said = results(messages)
    assert "sdk-ok" in said["t_echo"]  # allowed by the SDK's allowed_tools rule
    # The repository's ask rule goes to the program's callback; its deny rule wins over the
    # SDK's allow of the same path without asking anyone; the disallowed tool is neither
    # offered nor run.
    assert [tool_input.get("command") for _, tool_input in asked] == ["git push origin main"]
    assert "not today" in said["t_push"]
    assert said["t_secret"].startswith("Permission denied")
    assert "Write" not in [tool["name"] for tool in requests[0].body["tools"]]
    assert not planted.exists()
    sent = json.dumps([request.body for request in requests])
    assert cc.SECRET not in sent
    system = json.dumps(requests[0].body["system"])
    assert cc.CLAUDE_ROOT in system and cc.AGENTS in system
    assert "SDK-APPENDED-2e4b" in system


async def test_a_claude_command_runs_as_the_sdks_prompt(folder: Folder) -> None:
    cc.write_repo(folder.root)
    trust_project(folder.root, folder.home)
    with ScriptedServer([text("Reviewed.")]) as server:
        messages = await collect("/review 7 naming", folder.options(server.url))
        requests = server.requests
    result = messages[-1]
    assert isinstance(result, ResultMessage) and result.result == "Reviewed."
    sent = json.dumps(requests[0].body["messages"])
    assert cc.REVIEW in sent
    assert "Review pull request #7, looking hardest at naming." in sent
