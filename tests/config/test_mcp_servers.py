"""The project's .mcp.json: servers in Claude Code's format, ``${VAR}`` expanded, a bad entry
naming the file, the line and the field (exit 2), and ``legato config`` listing them without
their env or header values."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import msgspec
import pytest

from actors.errors import ConfigError
from actors.memory_store.mcp_servers import parse_mcp_servers
from actors.protocol import McpServer, McpWritten

if TYPE_CHECKING:
    from tests.config.conftest import Setup


def _parse(servers: object, env: dict[str, str] | None = None) -> tuple[McpServer, ...]:
    """The servers, without their fingerprints (tests/config/test_mcp_approval.py has them) and
    their entries as written (tests/config/test_mcp_credentials.py has those)."""
    text = json.dumps({"mcpServers": servers})
    parsed = parse_mcp_servers("p/.mcp.json", text, env or {}, [])
    return tuple(
        msgspec.structs.replace(server, fingerprint="", written=McpWritten()) for server in parsed
    )


def test_stdio_and_http_servers_are_read_with_variables_expanded() -> None:
    servers = _parse(
        {
            "fs": {"command": "${BIN:-npx}", "args": ["-y", "${ROOT}/x"], "env": {"T": "${TOK}"}},
            "web": {"type": "http", "url": "https://h/${P:-mcp}", "headers": {"A": "B ${TOK}"}},
            "old": {"type": "sse", "url": "http://localhost:1/sse"},
        },
        {"ROOT": "/r", "TOK": "s3"},
    )
    assert servers == (
        McpServer(
            name="fs",
            transport="stdio",
            source="p/.mcp.json",
            command="npx",
            args=("-y", "/r/x"),
            env={"T": "s3"},
        ),
        McpServer(
            name="web",
            transport="http",
            source="p/.mcp.json",
            url="https://h/mcp",
            headers={"A": "B s3"},
        ),
        McpServer(name="old", transport="sse", source="p/.mcp.json", url="http://localhost:1/sse"),
    )


@pytest.mark.parametrize(
    ("entry", "field", "message"),
    [
        ({"args": []}, "mcpServers.s", "either command (stdio) or url"),
        ({"command": "a", "url": "http://h"}, "mcpServers.s", "either command (stdio) or url"),
        ({"command": "a", "args": "b"}, "mcpServers.s.args", "must be a list of strings"),
        ({"command": "a", "args": [1]}, "mcpServers.s.args", "must be a string"),
        ({"command": "a", "env": {"K": 1}}, "mcpServers.s.env.K", "must be a string"),
        ({"type": "ws", "url": "http://h"}, "mcpServers.s.type", "unknown type 'ws'"),
        ({"type": "http", "url": "ftp://h"}, "mcpServers.s.url", "not an http:// or https://"),
        ({"command": "${NOPE}"}, "mcpServers.s.command", "${NOPE} is not set"),
    ],
)
def test_a_bad_entry_names_its_field(entry: object, field: str, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        _parse({"s": entry})
    assert caught.value.field == field
    assert message in caught.value.message


def test_a_name_that_cannot_make_a_tool_name_is_refused() -> None:
    with pytest.raises(ConfigError, match=r"cannot be part of a tool name"):
        _parse({"my server": {"command": "a"}})


def test_an_unset_variable_stops_the_session_naming_file_line_and_field(setup: Setup) -> None:
    path = setup.project / ".mcp.json"
    path.write_text(
        '{"mcpServers": {\n "gh": {\n  "command": "gh",\n  "env": {\n   "T": "${GH_T}"}}}}'
    )
    done = setup.legato("config", str(setup.project))
    assert done.returncode == 2
    assert f"{path}:5: field 'mcpServers.gh.env.T': ${{GH_T}} is not set" in done.stderr
    assert "→ Set GH_T in the environment, or write ${GH_T:-default}" in done.stderr


def test_malformed_json_names_the_line(setup: Setup) -> None:
    path = setup.project / ".mcp.json"
    path.write_text('{"mcpServers": {\n "a": }')
    done = setup.legato("config", str(setup.project))
    assert done.returncode == 2
    assert f"{path}:2: malformed JSON" in done.stderr


def test_an_unknown_key_is_a_warning(setup: Setup) -> None:
    path = setup.project / ".mcp.json"
    path.write_text('{"mcpServers": {"a": {"command": "x",\n "cmd": "y"}}}')
    done = setup.legato("config", str(setup.project))
    assert done.returncode == 0
    assert f"{path}:2: unknown key 'mcpServers.a.cmd' is ignored" in done.stderr


def test_config_lists_servers_with_env_and_header_values_hidden(setup: Setup) -> None:
    path = setup.project / ".mcp.json"
    path.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "fs": {"command": "npx", "args": ["-y", "srv"], "env": {"TOKEN": "${T}"}},
                    "web": {"type": "http", "url": "https://h/mcp", "headers": {"Auth": "${T}"}},
                }
            }
        )
    )
    done = setup.legato("config", str(setup.project), T="secret-value")
    assert done.returncode == 0, done.stderr
    assert "secret-value" not in done.stdout
    tail = done.stdout.split(
        "MCP servers (not started here: 'legato doctor' starts the approved ones)\n"
    )
    assert tail[1].splitlines() == [
        f"  fs  stdio  npx -y srv  ({path})  not approved",
        "    env TOKEN=${T}",
        "    → approve it: 'legato mcp approve fs'",
        f"  web  http  https://h/mcp  ({path})  not approved",
        "    header Auth: ${T}",
        "    → approve it: 'legato mcp approve web'",
    ]


def test_the_project_entry_wins_over_the_global_one_of_the_same_name(setup: Setup) -> None:
    config = setup.config(
        {
            "mcpServers": {
                "shared": {"command": "global-cmd"},
                "mine": {"type": "sse", "url": "https://g/sse"},
            }
        }
    )
    path = setup.project / ".mcp.json"
    path.write_text(json.dumps({"mcpServers": {"shared": {"command": "project-cmd"}}}))
    done = setup.legato("config", str(setup.project))
    assert done.returncode == 0, done.stderr
    assert "unknown key" not in done.stderr
    tail = done.stdout.split(
        "MCP servers (not started here: 'legato doctor' starts the approved ones)\n"
    )
    assert tail[1].splitlines() == [
        f"  shared  stdio  project-cmd  ({path})  not approved",
        "    → approve it: 'legato mcp approve shared'",
        f"  mine  sse  https://g/sse  ({config})",
    ]


def test_a_bad_global_entry_names_the_global_file(setup: Setup) -> None:
    config = setup.config('{"mcpServers": {\n "x": {"command": ["a"]}}}')
    done = setup.legato("config", str(setup.project))
    assert done.returncode == 2
    assert f"{config}:2: field 'mcpServers.x.command': must be a string" in done.stderr


def test_servers_in_the_project_settings_are_pointed_to_mcp_json(setup: Setup) -> None:
    setup.settings({"mcpServers": {}})
    done = setup.legato("config", str(setup.project))
    assert "'mcpServers' is ignored here; it belongs in the project's .mcp.json" in done.stderr


def test_mcp_list_prints_the_servers_without_starting_them(setup: Setup) -> None:
    config = setup.config({"mcpServers": {"web": {"type": "http", "url": "https://g/mcp"}}})
    path = setup.project / ".mcp.json"
    path.write_text(json.dumps({"mcpServers": {"fs": {"command": "npx", "env": {"K": "v"}}}}))
    done = setup.legato("mcp", "list", str(setup.project))
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        f"MCP servers for {setup.project.resolve()} "
        "(not started here: 'legato doctor' starts the approved ones)",
        f"  fs  stdio  npx  ({path})  not approved",
        "    env K=(value hidden)",
        "    → approve it: 'legato mcp approve fs'",
        f"  web  http  https://g/mcp  ({config})",
    ]


def test_mcp_list_with_no_servers_says_so(setup: Setup) -> None:
    done = setup.legato("mcp", "list", str(setup.project))
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("No MCP servers for ")


def test_mcp_list_exits_2_on_a_bad_entry(setup: Setup) -> None:
    path = setup.project / ".mcp.json"
    path.write_text('{"mcpServers": {\n "bad name": {"command": "x"}}}')
    done = setup.legato("mcp", "list", str(setup.project))
    assert done.returncode == 2
    assert f"{path}:2: field 'mcpServers.bad name': the name 'bad name' cannot be part" in (
        done.stderr
    )


def test_the_repr_shows_env_and_header_names_not_values() -> None:
    servers = _parse(
        {
            "a": {"command": "x", "env": {"TOKEN": "s3cr3t"}},
            "b": {"type": "http", "url": "https://h", "headers": {"Auth": "s3cr3t"}},
        }
    )
    shown = repr(servers)
    assert "s3cr3t" not in shown
    assert "TOKEN" in shown
    assert "Auth" in shown


def test_a_bad_entry_stops_a_session_before_any_request(setup: Setup) -> None:
    path = setup.project / ".mcp.json"
    path.write_text('{"mcpServers": {\n "a": {"command": "x",\n  "url": "https://h"}}}')
    done = setup.legato(
        str(setup.project),
        "--headless",
        "hi",
        ASSISTANT_API_KEY="k",
        ASSISTANT_BASE_URL="http://127.0.0.1:9",
    )
    assert done.returncode == 2
    assert f"{path}:2: field 'mcpServers.a': a server has either command (stdio) or url" in (
        done.stderr
    )
    assert "Traceback" not in done.stderr


def test_config_json_lists_servers_with_names_only_for_env_and_headers(setup: Setup) -> None:
    path = setup.project / ".mcp.json"
    path.write_text(
        json.dumps(
            {
                "mcpServers": {
                    "fs": {"command": "npx", "args": ["s"], "env": {"TOKEN": "v1"}},
                    "web": {"type": "http", "url": "https://h", "headers": {"Auth": "v2"}},
                }
            }
        )
    )
    done = setup.legato("config", "--json", str(setup.project))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["mcpServers"] == [
        {
            "name": "fs",
            "transport": "stdio",
            "source": str(path),
            "command": "npx",
            "args": ["s"],
            "env": ["TOKEN"],
        },
        {
            "name": "web",
            "transport": "http",
            "source": str(path),
            "url": "https://h",
            "headers": ["Auth"],
        },
    ]
