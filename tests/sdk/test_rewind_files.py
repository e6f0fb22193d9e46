"""``ClaudeSDKClient.rewind_files`` as the SDK's file-checkpointing guide uses it: the user
messages' uuids echoed with ``replay-user-messages``, then the files put back to one of them."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from claude_agent_sdk import ClaudeSDKClient, ResultMessage, UserMessage

from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls

if TYPE_CHECKING:
    from tests.sdk.conftest import Folder


async def test_rewind_files_puts_the_files_back_to_a_user_message(folder: Folder) -> None:
    target = folder.root / "notes.txt"
    edit = {"file_path": str(target), "old_string": "one", "new_string": "two"}
    steps = [
        tool_calls([call("Write", {"file_path": str(target), "content": "one\n"})]),
        text("Wrote it."),
        tool_calls([call("Read", {"file_path": str(target)})]),
        tool_calls([call("Edit", edit)]),
        text("Changed it."),
    ]
    with ScriptedServer(steps) as server:
        options = folder.options(
            server.url,
            enable_file_checkpointing=True,
            permission_mode="acceptEdits",
            extra_args={"replay-user-messages": None},
        )
        async with ClaudeSDKClient(options) as client:
            checkpoints: dict[str, str] = {}  # each prompt's uuid, as echoed
            for prompt in ("write notes", "change them"):
                await client.query(prompt)
                async for message in client.receive_response():
                    if isinstance(message, UserMessage) and message.content == prompt:
                        assert message.uuid is not None
                        checkpoints[prompt] = message.uuid
                    if isinstance(message, ResultMessage):
                        assert not message.is_error, message
            assert target.read_text() == "two\n"
            await client.rewind_files(checkpoints["change them"])
            assert target.read_text() == "one\n"
            with pytest.raises(Exception, match="no user message 'nobody'"):
                await client.rewind_files("nobody")
