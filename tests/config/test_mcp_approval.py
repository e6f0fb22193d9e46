"""Approvals of a project's MCP servers: kept in the user's folder, tied to the entry as written
(before ``${VAR}`` expansion), lost when the entry changes."""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING, Any

import pytest

from actors.errors import UsageError
from actors.memory_store import load_context
from actors.memory_store.mcp_approvals import approve, revoke
from actors.places import mcp_approvals_path, project_dir

if TYPE_CHECKING:
    from actors.protocol import McpServer
    from tests.config.conftest import Setup


def _servers(setup: Setup, entries: dict[str, Any], **env: str) -> dict[str, McpServer]:
    (setup.project / ".mcp.json").write_text(json.dumps({"mcpServers": entries}))
    context = load_context(str(setup.project), home=str(setup.home), env=env)
    return {server.name: server for server in context.mcp_servers}


def _approve(setup: Setup, *names: str, **env: str) -> None:
    context = load_context(str(setup.project), home=str(setup.home), env=env)
    approve(mcp_approvals_path(context.project_root, str(setup.home)), context.mcp_servers, names)


BASE = {"command": "${BIN:-srv}", "args": ["--root", "${ROOT}"], "env": {"T": "${TOKEN}"}}


def test_the_approval_is_kept_in_the_users_folder_not_the_project(setup: Setup) -> None:
    assert not _servers(setup, {"s": BASE}, ROOT="/r", TOKEN="a")["s"].approved
    _approve(setup, "s", ROOT="/r", TOKEN="a")
    assert _servers(setup, {"s": BASE}, ROOT="/r", TOKEN="a")["s"].approved
    path = mcp_approvals_path(str(setup.project), str(setup.home))
    assert os.path.dirname(path) == project_dir(str(setup.project), str(setup.home))
    assert str(setup.home) in path
    assert os.stat(path).st_mode & 0o777 == 0o600
    assert sorted(os.listdir(setup.project)) == [".mcp.json"]


def test_a_changed_variable_keeps_the_approval(setup: Setup) -> None:
    _servers(setup, {"s": BASE}, ROOT="/r", TOKEN="a")
    _approve(setup, "s", ROOT="/r", TOKEN="a")
    again = _servers(setup, {"s": BASE}, ROOT="/elsewhere", TOKEN="rotated", BIN="other")
    assert again["s"].approved
    assert again["s"].command == "other"


@pytest.mark.parametrize(
    "change",
    [
        {"command": "evil"},
        {"args": ["--root", "${ROOT}", "--more"]},
        {"env": {"T": "${TOKEN}", "LD_PRELOAD": "/x.so"}},
        {"env": {"T": "literal"}},
        {"type": "stdio"},  # the same transport written out: still the same entry
    ],
)
def test_a_changed_entry_is_unapproved_again(setup: Setup, change: dict[str, Any]) -> None:
    _servers(setup, {"s": BASE}, ROOT="/r", TOKEN="a")
    _approve(setup, "s", ROOT="/r", TOKEN="a")
    changed = _servers(setup, {"s": {**BASE, **change}}, ROOT="/r", TOKEN="a")
    assert changed["s"].approved is (change == {"type": "stdio"})


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ({"type": "http", "url": "https://a/mcp"}, {"type": "http", "url": "https://b/mcp"}),
        ({"type": "http", "url": "https://a/mcp"}, {"type": "sse", "url": "https://a/mcp"}),
        (
            {"type": "http", "url": "https://a/mcp"},
            {"type": "http", "url": "https://a/mcp", "headers": {"X": "y"}},
        ),
    ],
)
def test_a_changed_remote_entry_is_unapproved_again(
    setup: Setup, before: dict[str, Any], after: dict[str, Any]
) -> None:
    _servers(setup, {"w": before})
    _approve(setup, "w")
    assert _servers(setup, {"w": before})["w"].approved
    assert not _servers(setup, {"w": after})["w"].approved


def test_one_approval_does_not_approve_another_server(setup: Setup) -> None:
    _servers(setup, {"a": {"command": "x"}, "b": {"command": "x"}})
    _approve(setup, "a")
    servers = _servers(setup, {"a": {"command": "x"}, "b": {"command": "x"}})
    assert servers["a"].approved
    assert not servers["b"].approved


def test_the_global_configs_servers_need_no_approval(setup: Setup) -> None:
    setup.config({"mcpServers": {"g": {"command": "mine"}}})
    assert _servers(setup, {})["g"].approved


def test_a_broken_approvals_file_approves_nothing_and_says_so(setup: Setup) -> None:
    _servers(setup, {"s": {"command": "x"}})
    _approve(setup, "s")
    path = mcp_approvals_path(str(setup.project), str(setup.home))
    with open(path, "w") as file:
        file.write("{not json")
    context = load_context(str(setup.project), home=str(setup.home), env={})
    assert not context.mcp_servers[0].approved
    assert any(path in w and "not an approvals file" in w for w in context.warnings)


def test_unknown_names_are_refused_naming_the_known_ones(setup: Setup) -> None:
    servers = tuple(_servers(setup, {"a": {"command": "x"}}).values())
    path = mcp_approvals_path(str(setup.project), str(setup.home))
    with pytest.raises(UsageError, match=r"no MCP server named 'b' \(the known ones: a\)"):
        approve(path, servers, ["a", "b"])
    assert not os.path.exists(path)
    with pytest.raises(UsageError, match=r"no MCP server named 'b'"):
        revoke(path, servers, ["b"])
    assert revoke(path, servers, ["a"]) == ()
    approve(path, servers, ["a"])
    assert revoke(path, servers, ["a"]) == ("a",)
