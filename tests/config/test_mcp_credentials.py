"""An MCP server's entry cannot hand the server Legato's own credentials: a ``${...}`` of a
credential variable in any field (nested in a default too), or a value that is the key (written
out, a default, or a variable of the user's holding a copy), keeps the server from starting,
with a warning that names the file, the server, the field and the variable. The approvals show
each value's variables by name and hide what is written out."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from actors.memory_store.mcp_servers import parse_mcp_servers, without_credential_servers
from frontends.commands.listings import mcp_server_lines

if TYPE_CHECKING:
    from tests.config.conftest import Setup

KEY = "sk-env-key-7f3a9c"
CONFIG_KEY = "sk-config-key-51d2e8"
ENV = {"ASSISTANT_API_KEY": KEY, "MY_COPY": KEY, "GH_TOKEN": "gh-own", "HOST": "h"}


def _kept(entry: dict[str, object]) -> tuple[list[str], list[str]]:
    """The names of the servers kept, and the warnings, for one entry named ``srv``."""
    text = json.dumps({"mcpServers": {"srv": entry, "fine": {"command": "ok"}}})
    servers = parse_mcp_servers("p/.mcp.json", text, ENV, [])
    warnings: list[str] = []
    kept = without_credential_servers(servers, ENV, [CONFIG_KEY], warnings)
    return [server.name for server in kept], warnings


@pytest.mark.parametrize(
    ("entry", "field", "why"),
    [
        (
            {"command": "srv", "env": {"TOKEN": "${ASSISTANT_API_KEY}"}},
            "env.TOKEN",
            "${ASSISTANT_API_KEY} is one of Legato's own credential variables",
        ),
        (
            {"type": "http", "url": "https://h/", "headers": {"A": "Bearer ${OPENAI_API_KEY}"}},
            "headers.A",
            "${OPENAI_API_KEY} is one of Legato's own credential variables",
        ),
        (
            {"command": "srv", "args": ["--key", "${ANTHROPIC_API_KEY:-none}"]},
            "args[1]",
            "${ANTHROPIC_API_KEY} is one of Legato's own credential variables",
        ),
        (
            {"type": "sse", "url": "https://${HOST}/?k=${CLOUD_SESSION_TOKEN:-x}"},
            "url",
            "${CLOUD_SESSION_TOKEN} is one of Legato's own credential variables",
        ),
        (  # the whole url: refused for the key, not for a missing scheme
            {"type": "http", "url": "${ASSISTANT_API_KEY}"},
            "url",
            "${ASSISTANT_API_KEY} is one of Legato's own credential variables",
        ),
        (
            {"command": "${ASSISTANT_API_KEY:-srv}"},
            "command",
            "${ASSISTANT_API_KEY} is one of Legato's own credential variables",
        ),
        (  # nested in another variable's default
            {"command": "srv", "env": {"T": "${UNSET:-${ASSISTANT_API_KEY}}"}},
            "env.T",
            "${ASSISTANT_API_KEY} is one of Legato's own credential variables",
        ),
        (  # a variable of the user's that holds a copy of the key
            {"command": "srv", "env": {"T": "${MY_COPY}"}},
            "env.T",
            "${MY_COPY} holds Legato's own API key",
        ),
        (  # the key written out
            {"type": "http", "url": "https://h/", "headers": {"X-Key": KEY}},
            "headers.X-Key",
            "the value is Legato's own API key",
        ),
        (  # the key as a header's name
            {"type": "http", "url": "https://h/", "headers": {KEY: "x"}},
            f"headers.{KEY}",
            "the value is Legato's own API key",
        ),
        (  # the global config's apiKey, as a default
            {"command": "srv", "env": {"T": "${UNSET:-" + CONFIG_KEY + "}"}},
            "env.T",
            "the value is Legato's own API key",
        ),
        (  # within a longer value
            {"command": "srv", "args": [f"--token={CONFIG_KEY}"]},
            "args[0]",
            "the value is Legato's own API key",
        ),
    ],
)
def test_a_server_given_legatos_credential_is_not_started(
    entry: dict[str, object], field: str, why: str
) -> None:
    kept, warnings = _kept(entry)
    assert kept == ["fine"]
    assert warnings == [
        f"p/.mcp.json: field 'mcpServers.srv.{field}': {why}, which Legato keeps to "
        "itself: the MCP server 'srv' was not started. Give the server a key of its own from a "
        "variable of your own, such as ${MY_SERVER_TOKEN}"
    ]


def test_a_server_with_keys_of_its_own_is_kept() -> None:
    kept, warnings = _kept(
        {"type": "http", "url": "https://${HOST}/", "headers": {"A": "Bearer ${GH_TOKEN}"}}
    )
    assert (kept, warnings) == (["srv", "fine"], [])


def test_approvals_show_the_variables_by_name_and_hide_written_values() -> None:
    servers = {
        "gh": {
            "command": "gh-mcp",
            "args": ["--org", "${ORG:-me}"],
            "env": {"GITHUB_TOKEN": "${GITHUB_TOKEN}", "LITERAL": "ghp_written0ut", "N": "1"},
        },
        "web": {
            "type": "http",
            "url": "https://${HOST}/mcp",
            "headers": {
                "Authorization": "Bearer ${GH_TOKEN}",
                "X-Long": "ghp_written0ut${GH_TOKEN}",
                "X-Default": "${NOPE:-ghp_written0ut}",
            },
        },
    }
    env = {"GITHUB_TOKEN": "gh-value-1", "GH_TOKEN": "gh-value-2", "HOST": "h.example"}
    parsed = parse_mcp_servers("p/.mcp.json", json.dumps({"mcpServers": servers}), env, [])
    assert mcp_server_lines(parsed, approval=False) == [
        "  gh  stdio  gh-mcp --org ${ORG:-me}  (p/.mcp.json)",
        "    env GITHUB_TOKEN=${GITHUB_TOKEN}",
        "    env LITERAL=(value hidden)",
        "    env N=(value hidden)",
        "  web  http  https://${HOST}/mcp  (p/.mcp.json)",
        "    header Authorization: Bearer ${GH_TOKEN}",
        "    header X-Long: (hidden)${GH_TOKEN}",
        "    header X-Default: ${NOPE:-(hidden)}",
    ]


def test_control_characters_in_an_entry_are_shown_escaped() -> None:
    servers = {"s": {"command": "ok\r\x1b[2Kharmless", "env": {"T\x1b]2;x\x07": "${A}\x1b[1m"}}}
    parsed = parse_mcp_servers("p/.mcp.json", json.dumps({"mcpServers": servers}), {"A": ""}, [])
    assert mcp_server_lines(parsed, approval=False) == [
        "  s  stdio  ok\\r\\x1b[2Kharmless  (p/.mcp.json)",
        "    env T\\x1b]2;x\\x07=${A}\\x1b[1m",
    ]


def test_legato_mcp_list_names_the_refused_server_and_the_variable(setup: Setup) -> None:
    path = setup.project / ".mcp.json"
    entry = {"command": "srv", "env": {"LEAK": "${ASSISTANT_API_KEY}", "MINE": "${GH_TOKEN}"}}
    gh = {"command": "gh-mcp", "env": {"GITHUB_TOKEN": "${GH_TOKEN}"}}
    path.write_text(json.dumps({"mcpServers": {"leak": entry, "gh": gh}}))
    done = setup.legato(
        "mcp", "list", str(setup.project), ASSISTANT_API_KEY=KEY, GH_TOKEN="gh-value-1"
    )
    assert done.returncode == 0, done.stderr
    assert "  leak  " not in done.stdout
    assert done.stdout.splitlines()[1:] == [
        f"  gh  stdio  gh-mcp  ({path})  not approved",
        "    env GITHUB_TOKEN=${GH_TOKEN}",
        "    → approve it: 'legato mcp approve gh'",
    ]
    assert (
        f"warning: {path}: field 'mcpServers.leak.env.LEAK': ${{ASSISTANT_API_KEY}} is one of "
        "Legato's own credential variables, which Legato keeps to itself: the MCP server "
        "'leak' was not started."
    ) in done.stderr
    assert KEY not in done.stdout + done.stderr


def test_a_short_key_is_refused_whole_not_found_in_every_path() -> None:
    servers = {
        "path": {"command": "/opt/kit/bin/server"},
        "same": {"command": "srv", "env": {"T": "k"}},
    }
    env = {"ASSISTANT_API_KEY": "k"}
    parsed = parse_mcp_servers("p/.mcp.json", json.dumps({"mcpServers": servers}), env, [])
    warnings: list[str] = []
    kept = without_credential_servers(parsed, env, [], warnings)
    assert [server.name for server in kept] == ["path"]
    assert "field 'mcpServers.same.env.T': the value is Legato's own API key" in warnings[0]


def test_approving_a_refused_server_says_why_it_is_unknown(setup: Setup) -> None:
    path = setup.project / ".mcp.json"
    entry = {"type": "http", "url": "https://h/", "headers": {"A": "${ASSISTANT_API_KEY}"}}
    path.write_text(json.dumps({"mcpServers": {"leak": entry}}))
    done = setup.legato(
        "mcp", "approve", "--project", str(setup.project), "leak", ASSISTANT_API_KEY=KEY
    )
    assert done.returncode == 2
    assert "field 'mcpServers.leak.headers.A': ${ASSISTANT_API_KEY} is one of" in done.stderr
    assert "no MCP server named 'leak'" in done.stderr
