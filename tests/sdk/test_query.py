"""``query()`` of the official SDK with ``cli_path`` at Legato: the messages its types describe."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest
from claude_agent_sdk import (
    AssistantMessage,
    Message,
    ResultError,
    ResultMessage,
    StreamEvent,
    SystemMessage,
    TextBlock,
    ToolResultBlock,
    ToolUseBlock,
    UserMessage,
    query,
)

from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls
from tests.sdk.conftest import collect

if TYPE_CHECKING:
    from tests.sdk.conftest import Folder


async def test_a_query_edits_a_file_and_ends_with_a_result(folder: Folder) -> None:
    target = folder.write("notes.txt", "old line\n")
    steps = [
        tool_calls([call("Read", {"file_path": str(target)})], text="Reading."),
        tool_calls(
            [call("Edit", {"file_path": str(target), "old_string": "old", "new_string": "new"})],
            text="Editing.",
        ),
        text("Changed old to new."),
    ]
    with ScriptedServer(steps) as server:
        options = folder.options(server.url, permission_mode="acceptEdits")
        messages = await collect("change old to new in notes.txt", options)
        requests = server.requests
    assert target.read_text() == "new line\n"
    kinds = [type(m).__name__ for m in messages if not _tool_started(m)]
    assert kinds == [
        "SystemMessage", "AssistantMessage", "UserMessage", "AssistantMessage", "UserMessage",
        "AssistantMessage", "ResultMessage",
    ]  # fmt: skip
    init = messages[0]
    assert isinstance(init, SystemMessage) and init.subtype == "init"
    assert init.data["cwd"] == str(folder.root)
    assert init.data["permissionMode"] == "acceptEdits"
    assert {"Read", "Edit", "Bash"} <= set(init.data["tools"])
    assert init.data["model"] == "claude-sonnet-4-6"
    said = [m for m in messages if isinstance(m, AssistantMessage)]
    assert {m.model for m in said} == {"claude-sonnet-4-6"}
    assert len({m.message_id for m in said}) == 3
    assert isinstance(said[1].content[1], ToolUseBlock) and said[1].content[1].name == "Edit"
    results = [m for m in messages if isinstance(m, UserMessage)]
    block = results[1].content[0]
    assert isinstance(block, ToolResultBlock) and not block.is_error
    result = messages[-1]
    assert isinstance(result, ResultMessage)
    assert (result.subtype, result.is_error, result.num_turns) == ("success", False, 3)
    assert result.result == "Changed old to new."
    assert result.stop_reason == "end_turn"
    assert result.usage is not None and result.usage["output_tokens"] > 0
    assert result.total_cost_usd is not None and result.total_cost_usd > 0
    assert result.model_usage is not None
    assert result.model_usage["claude-sonnet-4-6"]["outputTokens"] == result.usage["output_tokens"]
    assert result.session_id == init.data["session_id"]
    assert len(requests) == 3


async def test_the_default_mode_denies_what_it_would_ask_and_the_result_lists_it(
    folder: Folder,
) -> None:
    target = folder.root / "new.txt"
    steps = [
        tool_calls([call("Write", {"file_path": str(target), "content": "x"})]),
        text("I could not write it."),
    ]
    with ScriptedServer(steps) as server:
        messages = await collect("write new.txt", folder.options(server.url))
    assert not target.exists()
    result = messages[-1]
    assert isinstance(result, ResultMessage) and result.subtype == "success"
    assert result.permission_denials is not None
    assert [d["tool_name"] for d in result.permission_denials] == ["Write"]


async def test_max_turns_ends_with_error_max_turns(folder: Folder) -> None:
    steps = [tool_calls([call("Glob", {"pattern": "*"})]), text("never")]
    messages: list[Message] = []
    # The run failed, so Legato exits 1 once input ends, as Claude Code does: the SDK gives
    # the result, then raises an error that names it.
    with (
        ScriptedServer(steps) as server,
        pytest.raises(ResultError, match=r"stopped after 1 turn \(--max-turns\)"),
    ):
        options = folder.options(server.url, max_turns=1)
        async for message in query(prompt="look", options=options):
            messages.append(message)
    result = messages[-1]
    assert isinstance(result, ResultMessage)
    assert (result.subtype, result.is_error) == ("error_max_turns", True)


async def test_partial_messages_come_only_when_asked_for(folder: Folder) -> None:
    with ScriptedServer([text("one two three"), text("four five")]) as server:
        quiet = await collect("hi", folder.options(server.url))
        loud = await collect("hi", folder.options(server.url, include_partial_messages=True))
    assert not [m for m in quiet if isinstance(m, StreamEvent)]
    events = [m for m in loud if isinstance(m, StreamEvent)]
    deltas = [
        e.event["delta"]["text"] for e in events if e.event.get("type") == "content_block_delta"
    ]
    assert "".join(deltas) == "four five"
    assert len({e.uuid for e in events}) == len(events)


async def test_system_prompt_replaces_legatos_and_append_adds_to_it(folder: Folder) -> None:
    prompt_file = folder.root.parent / "prompt.md"
    prompt_file.write_text("You are a file's parrot.")
    with ScriptedServer([text(letter) for letter in "abcde"]) as server:
        await collect("hi", folder.options(server.url, system_prompt="You are a terse pirate."))
        await collect(
            "hi",
            folder.options(
                server.url,
                system_prompt={"type": "preset", "preset": "claude_code", "append": "Say arr."},
            ),
        )
        await collect("hi", folder.options(server.url))  # the SDK's default: an empty prompt
        # The SDK's other two forms (there is no append_system_prompt option in the SDK).
        custom = {"type": "custom", "prompt": "You are a custom owl."}
        await collect("hi", folder.options(server.url, system_prompt=custom))
        from_file = {"type": "file", "path": str(prompt_file)}
        await collect("hi", folder.options(server.url, system_prompt=from_file))
        systems = [_system(r.body) for r in server.requests]
    assert systems[0].startswith("You are a terse pirate.")
    assert "You are Legato" not in systems[0]
    assert str(folder.root) in systems[0]  # where the work happens is always said
    assert systems[1].startswith("You are Legato") and systems[1].endswith("Say arr.")
    assert "You are Legato" not in systems[2] and str(folder.root) in systems[2]
    assert systems[3].startswith("You are a custom owl.") and "You are Legato" not in systems[3]
    assert systems[4].startswith("You are a file's parrot.") and "You are Legato" not in systems[4]


async def test_allowed_and_disallowed_tools_are_rules_and_offers(folder: Folder) -> None:
    steps = [
        tool_calls([call("Bash", {"command": "echo allowed-by-sdk"})]),
        text("done"),
        tool_calls([call("Write", {"file_path": str(folder.root / "x"), "content": "x"})]),
        text("done"),
    ]
    with ScriptedServer(steps) as server:
        ran = await collect(
            "echo", folder.options(server.url, allowed_tools=["Bash(echo:*)", "Read"])
        )
        refused = await collect(
            "write", folder.options(server.url, disallowed_tools=["Write", "Agent"])
        )
        requests = server.requests
    echoed = next(m for m in ran if isinstance(m, UserMessage)).content[0]
    assert isinstance(echoed, ToolResultBlock) and "allowed-by-sdk" in str(echoed.content)
    offered = [tool["name"] for tool in requests[2].body["tools"]]
    assert "Write" not in offered and "Agent" not in offered and "Edit" in offered
    answer = next(m for m in refused if isinstance(m, UserMessage)).content[0]
    assert isinstance(answer, ToolResultBlock) and answer.is_error
    assert not (folder.root / "x").exists()
    init = refused[0]
    assert isinstance(init, SystemMessage) and "Write" not in init.data["tools"]


async def test_resume_and_continue_go_on_with_the_saved_conversation(folder: Folder) -> None:
    with ScriptedServer([text("first answer"), text("second"), text("third")]) as server:
        first = await collect("remember 42", folder.options(server.url))
        session = first[-1]
        assert isinstance(session, ResultMessage)
        await collect("what number?", folder.options(server.url, resume=session.session_id))
        await collect("and again?", folder.options(server.url, continue_conversation=True))
        requests = server.requests
    second = requests[1].body["messages"]
    assert [m["role"] for m in second] == ["user", "assistant", "user"]
    assert "remember 42" in str(second[0]["content"])
    third = requests[2].body["messages"]
    assert len(third) == 5


async def test_env_reaches_the_commands_and_unsupported_options_are_named(folder: Folder) -> None:
    steps = [tool_calls([call("Bash", {"command": "echo $SDK_SAYS"})]), text("ok")]
    with ScriptedServer(steps) as server:
        options = folder.options(
            server.url,
            allowed_tools=["Bash(echo:*)"],
            env={"SDK_SAYS": "hello-from-env"},
            betas=["context-1m-2025-08-07"],
            extra_args={"some-future-flag": "x"},
        )
        messages = await collect("echo", options)
    init = messages[0]
    assert isinstance(init, SystemMessage)
    unsupported = init.data["unsupported_options"]
    assert "--betas" in unsupported
    assert "--some-future-flag" in unsupported
    said = next(m for m in messages if isinstance(m, UserMessage)).content[0]
    assert isinstance(said, ToolResultBlock) and "hello-from-env" in str(said.content)


def _system(body: dict[str, object]) -> str:
    system = body.get("system")
    if isinstance(system, list):
        return "\n\n".join(
            str(block.get("text", "")) for block in system if isinstance(block, dict)
        )
    return str(system or "")


def _tool_started(message: object) -> bool:
    return isinstance(message, SystemMessage) and message.subtype == "tool_started"


__all__ = ["TextBlock"]


async def test_add_dirs_are_worked_in_as_the_project_is(folder: Folder) -> None:
    other = folder.root.parent / "shared-lib"
    other.mkdir()
    source = other / "util.py"
    source.write_text("def helper(): ...\n")
    steps = [
        tool_calls([call("Read", {"file_path": str(source)}, id="t1")]),
        text("Read it."),
        tool_calls([call("Read", {"file_path": str(source)}, id="t2")]),
        text("Could not."),
    ]
    with ScriptedServer(steps) as server:
        given = await collect(
            "read", folder.options(server.url, permission_mode="acceptEdits", add_dirs=[other])
        )
        without = await collect("read", folder.options(server.url, permission_mode="acceptEdits"))
        requests = server.requests
    read = next(m for m in given if isinstance(m, UserMessage)).content[0]
    assert isinstance(read, ToolResultBlock) and "def helper" in str(read.content)
    assert str(other) in _system(requests[0].body)  # the model is told where else it works
    refused = next(m for m in without if isinstance(m, UserMessage)).content[0]
    assert isinstance(refused, ToolResultBlock) and refused.is_error
