"""The tool list the model sees, and what happens to input that does not fit it."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from actors.protocol import ListTools
from tests.tool_executor.harness import call, session

if TYPE_CHECKING:
    from pathlib import Path


async def test_the_tool_list_is_claude_codes_shapes_and_lean(tmp_path: Path) -> None:
    async with session(tmp_path) as s:
        listed = await s.executor.address.ask(ListTools())
    tools = listed.definitions
    # TaskStop ends a process but changes no file: no checkpoint before it.
    assert listed.read_only == {"Read", "Glob", "Grep", "TaskOutput", "TaskStop", "WebFetch"}
    assert [tool["name"] for tool in tools] == [
        "Read", "Write", "Edit", "NotebookEdit", "Bash", "Glob", "Grep", "TaskOutput", "TaskStop",
        "WebFetch",
    ]  # fmt: skip
    fields = {tool["name"]: set(tool["input_schema"]["properties"]) for tool in tools}
    assert fields["Edit"] == {"file_path", "old_string", "new_string", "replace_all"}
    assert fields["Read"] == {"file_path", "offset", "limit", "pages"}
    assert fields["NotebookEdit"] == {
        "notebook_path", "new_source", "cell_id", "cell_type", "edit_mode"
    }  # fmt: skip
    assert fields["Bash"] == {
        "command", "timeout", "description", "run_in_background", "dangerouslyDisableSandbox"
    }  # fmt: skip
    assert fields["Grep"] == {
        "pattern", "path", "glob", "type", "output_mode",
        "-i", "-n", "-A", "-B", "-C", "head_limit", "multiline",
    }  # fmt: skip
    assert {tool["name"]: tool["input_schema"]["required"] for tool in tools} == {
        "Read": ["file_path"],
        "Write": ["file_path", "content"],
        "Edit": ["file_path", "old_string", "new_string"],
        "NotebookEdit": ["notebook_path"],
        "Bash": ["command"],
        "Glob": ["pattern"],
        "Grep": ["pattern"],
        "TaskOutput": ["task_id"],
        "TaskStop": ["task_id"],
        "WebFetch": ["url", "prompt"],
    }
    assert fields["TaskOutput"] == {"task_id", "block", "timeout", "filter"}
    wire = json.dumps(tools, separators=(",", ":"))
    # Sent with every request: no titles, no null options, and small.
    assert '"title"' not in wire and '"null"' not in wire
    assert len(wire) < 5300  # ten tools


async def test_a_missing_field_is_named_with_its_type(tmp_path: Path) -> None:
    async with session(tmp_path) as s:
        done = await s.one("Edit", file_path=str(tmp_path / "a"), old_string="x")
    assert done.result.is_error
    assert (
        "Invalid input for Edit: Object missing required field `new_string`" in done.result.content
    )
    assert "new_string (string, required)" in done.result.content
    assert s.broker.requests == []  # nothing was asked, nothing was done


async def test_a_mistyped_field_is_named_with_the_expected_type(tmp_path: Path) -> None:
    async with session(tmp_path) as s:
        done = await s.one("Read", file_path=42)
        limit = await s.one("Read", file_path="x", limit="ten")
        timeout = await s.one("Bash", command="true", timeout=700_000)
    assert done.result.is_error
    assert "Expected `str`, got `int` - at `$.file_path`" in done.result.content
    assert "Expected `int`, got `str` - at `$.limit`" in limit.result.content
    assert "Expected `int` <= 600000 - at `$.timeout`" in timeout.result.content


async def test_null_means_not_given(tmp_path: Path) -> None:
    (tmp_path / "f.txt").write_text("one\n")
    async with session(tmp_path) as s:
        done = await s.one("Read", file_path=str(tmp_path / "f.txt"), offset=None, limit=None)
    assert done.result.content == "     1\tone"


async def test_an_unknown_tool_lists_the_available_ones(tmp_path: Path) -> None:
    async with session(tmp_path) as s:
        unknown = call("Delete", file_path="/")
        finished = await s.finished(unknown)
    result = finished[unknown.id].result
    assert result.is_error
    assert result.content == (
        "Unknown tool 'Delete'. The available tools are: Read, Write, Edit, NotebookEdit, Bash, "
        "Glob, Grep, TaskOutput, TaskStop, WebFetch."
    )


async def test_a_path_with_a_nul_byte_is_refused_before_anything_runs(tmp_path: Path) -> None:
    async with session(tmp_path) as s:
        done = await s.one("Read", file_path="a\x00b")
    assert done.result.is_error
    named = str(tmp_path / "a\x00b")
    assert done.result.content == (
        f"Invalid path {named!r}: it contains a NUL byte, which no name can."
    )
    assert s.broker.requests == []
