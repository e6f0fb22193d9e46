"""allowedTools and blockedTools in .legato/settings.json, through the real `legato` command: a
value that is not a list of tool names stops with file, line, field, value and remedy (exit 2),
and the entries show in `legato config` with their file."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

if TYPE_CHECKING:
    from tests.config.conftest import Setup

REMEDY = (
    "Write a built-in tool's name (Bash, Edit, Glob, Grep, NotebookEdit, Read, WebFetch, "
    "WebSearch, Write), 'mcp__<server>' or "
    "'mcp__<server>__<tool>', or remove that entry of"
)


@pytest.mark.parametrize("key", ["allowedTools", "blockedTools"])
def test_a_value_that_is_not_a_list_names_the_field_and_what_it_takes(
    setup: Setup, key: str
) -> None:
    path = setup.settings(f'{{\n  "model": "opus",\n  "{key}": "mcp__git"\n}}\n')
    done = setup.legato("config", str(setup.project))
    assert done.returncode == 2
    assert (
        f"{path}:3: field '{key}': must be a list of tool names such as "
        '["mcp__github", "mcp__git__status", "Bash"], not \'mcp__git\''
    ) in done.stderr
    assert "Traceback" not in done.stderr


def test_an_entry_that_is_not_a_string_names_its_index(setup: Setup) -> None:
    path = setup.settings('{\n  "blockedTools": [\n    "mcp__git",\n    7\n  ]\n}\n')
    done = setup.legato("config", str(setup.project))
    assert done.returncode == 2
    assert f"{path}:4: field 'blockedTools[1]': must be a tool name string, not 7" in done.stderr


@pytest.mark.parametrize(
    ("entry", "problem"),
    [
        ("bash", "'bash' is neither a built-in tool nor an MCP name (mcp__<server>[__<tool>]); "
         "did you mean 'Bash'? Names are case-sensitive"),
        ("MCP__git", "'MCP__git' is neither a built-in tool nor an MCP name "
         "(mcp__<server>[__<tool>]); did you mean 'mcp__git'? Names are case-sensitive"),
        ("github", "'github' is neither a built-in tool nor an MCP name (mcp__<server>[__<tool>]); "
         "the built-in tools are Bash, Edit, Glob, Grep, NotebookEdit, Read, WebFetch, "
         "WebSearch, Write"),
        ("mcp__", "'mcp__' is not an MCP tool name"),
        ("mcp__git/*", "'mcp__git/*' is not an MCP tool name"),
        ("mcp__git__", "'mcp__git__' ends with '__'"),
        ("Agent", "'Agent' asks no permission, so an entry for it would change nothing"),
        ("", "'' is neither a built-in tool nor an MCP name"),
    ],
)  # fmt: skip
def test_an_entry_that_names_no_tool_is_an_error_with_the_remedy(
    setup: Setup, entry: str, problem: str
) -> None:
    path = setup.settings(
        '{\n  "allowedTools": [\n    "mcp__docs",\n    ' + json.dumps(entry) + "\n  ]\n}\n"
    )
    done = setup.legato("config", str(setup.project))
    assert done.returncode == 2
    assert f"{path}:4: field 'allowedTools[1]': {problem}" in done.stderr
    assert f"{REMEDY} 'allowedTools'" in done.stderr


def test_a_bad_entry_stops_a_session_before_any_request(setup: Setup) -> None:
    setup.settings({"blockedTools": ["mcp__git", "write"]})
    done = setup.legato(
        str(setup.project),
        "--headless",
        "hi",
        ASSISTANT_API_KEY="k",
        ASSISTANT_BASE_URL="http://127.0.0.1:9",
    )
    assert done.returncode == 2
    assert "field 'blockedTools[1]'" in done.stderr
    assert "did you mean 'Write'?" in done.stderr


def test_the_entries_show_in_legato_config_with_their_file(setup: Setup) -> None:
    path = setup.settings(
        {"allowedTools": ["mcp__docs", "mcp__a__b__c", "Grep"], "blockedTools": ["mcp__a-b"]}
    )
    done = setup.legato("config", "--json", str(setup.project))
    assert done.returncode == 0, done.stderr
    settings = json.loads(done.stdout)["settings"]
    assert settings["allowedTools"] == {
        "value": ["mcp__docs", "mcp__a__b__c", "Grep"],
        "source": path,
    }
    assert settings["blockedTools"] == {"value": ["mcp__a-b"], "source": path}


def test_an_entry_that_differs_from_a_server_only_in_case_is_a_warning(setup: Setup) -> None:
    (setup.project / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"git": {"command": "git-mcp"}}})
    )
    path = setup.settings('{\n  "blockedTools": [\n    "mcp__Git__push",\n    "mcp__other"\n  ]\n}')
    done = setup.legato("config", str(setup.project))
    assert done.returncode == 0, done.stderr
    assert (
        f"{path}:3: blockedTools entry 'mcp__Git__push' covers no tool: names are case-sensitive "
        "and the MCP server is 'git'; did you mean 'mcp__git__push'?"
    ) in done.stderr
    assert "mcp__other" not in done.stderr  # a server only some users have
