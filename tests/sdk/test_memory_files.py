"""The Agent SDK's ``get_context_usage()`` lists the instruction files loaded, and an import
from outside the project is not loaded in an SDK run (nobody is there to approve it)."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from claude_agent_sdk import ClaudeSDKClient

from frontends.demo.scripted_api import ScriptedServer, text

if TYPE_CHECKING:
    from tests.sdk.conftest import Folder


async def test_context_usage_lists_the_instruction_files(folder: Folder) -> None:
    folder.write("CLAUDE.md", "c" * 40 + "\n@~/private.md\n")
    folder.write("LEGATO.md", "l\n")
    (folder.home / "private.md").write_text("PRIVATE-9b1\n")
    with ScriptedServer([text("ok")]) as server:
        async with ClaudeSDKClient(folder.options(server.url)) as client:
            await client.query("hi")
            _ = [message async for message in client.receive_response()]
            usage = await client.get_context_usage()
        sent = json.dumps([request.body for request in server.requests])
    assert usage["memoryFiles"] == [
        {"path": str(folder.root / "CLAUDE.md"), "type": "Project", "tokens": 14},
        {"path": str(folder.root / "LEGATO.md"), "type": "Project", "tokens": 1},
    ]
    assert "PRIVATE-9b1" not in sent
    # The window's parts as /context shows them; the files' share is theirs.
    parts = {category["name"]: category["tokens"] for category in usage["categories"]}
    assert parts["Memory files"] == 15
    assert {"System prompt", "Built-in tools", "Messages", "Free space"} <= parts.keys()
    assert sum(parts.values()) == usage["maxTokens"]
