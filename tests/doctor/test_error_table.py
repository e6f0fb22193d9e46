"""The error table, row by row: each condition, caused for real through the `legato` command,
reaches the user with a message, its remedy and an exit code."""

from __future__ import annotations

import json
import re
import socket
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from actors.errors import (
    REMEDY_API_KEY,
    REMEDY_COMMAND,
    REMEDY_NETWORK,
    REMEDY_PERMISSION,
    AuthenticationError,
    CommandNotFound,
    ConnectionFailed,
    LegatoError,
    PermissionDenied,
    RateLimited,
    ServerError,
    StreamFailed,
    UsageError,
)
from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls

if TYPE_CHECKING:
    from tests.doctor.conftest import Project

SPEC = Path("/work/shared/seed/000_671d211f2c9e1d39.txt")

# Condition -> (our error class, our remedy, the words the remedy must carry).
TABLE = {
    "Permission denied": (
        PermissionDenied,
        REMEDY_PERMISSION,
        ("permission settings", "settings.json", "always", "allow similar operations"),
    ),
    "Invalid API key": (
        AuthenticationError,
        REMEDY_API_KEY,
        ("echo", "ASSISTANT_API_KEY", "set it again"),
    ),
    "Network connection problem": (
        ConnectionFailed,
        REMEDY_NETWORK,
        ("Test the connection to the API address", "HTTPS_PROXY"),
    ),
    "Command not found": (CommandNotFound, REMEDY_COMMAND, ("on your PATH", "reinstall")),
}


def spec_table() -> dict[str, str]:
    section = SPEC.read_text().split("## 7. Errors", 1)[1].split("\n## ", 1)[0]
    rows = re.findall(r"^\| ([^|]+?) \| ([^|]+?) \|$", section, re.MULTILINE)
    return {condition: remedy for condition, remedy in rows if condition != "Condition"}


def test_the_table_covers_every_row_of_the_spec() -> None:
    assert set(spec_table()) == set(TABLE)


@pytest.mark.parametrize("condition", sorted(TABLE))
def test_each_error_carries_the_spec_remedy_and_an_exit_code(condition: str) -> None:
    kind, remedy, words = TABLE[condition]
    error = kind("example")
    assert error.remedy == remedy
    assert error.exit_code in (1, 2)
    assert all(word in remedy for word in words), (remedy, spec_table()[condition])


def closed_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def test_invalid_api_key_end_to_end(project: Project) -> None:
    with ScriptedServer([text("never")], api_key="sk-right") as server:
        done = project.legato(server.url, "--headless", "hi", key="sk-wrong-123")
    assert done.returncode == 1
    assert "rejected the API key from ASSISTANT_API_KEY" in done.stderr
    assert REMEDY_API_KEY in done.stderr
    assert "sk-wrong-123" not in done.stderr + done.stdout


def test_network_problem_end_to_end(project: Project) -> None:
    url = f"http://127.0.0.1:{closed_port()}"
    done = project.legato(url, "--headless", "hi")
    assert done.returncode == 1
    assert f"Could not reach the API at {url}/v1/messages" in done.stderr
    assert REMEDY_NETWORK in done.stderr


def test_permission_denied_end_to_end(project: Project) -> None:
    target = project.root / "new.txt"
    steps = [
        tool_calls([call("Write", {"file_path": str(target), "content": "x"})]),
        text("Could not write."),
    ]
    with ScriptedServer(steps) as server:
        done = project.legato(server.url, "--headless", "write it", "--output-format", "json")
        result = server.requests[1].body["messages"][-1]["content"][0]
    assert done.returncode == 0  # a denial is reported to the model, the session goes on
    assert not target.exists()
    assert result["is_error"] is True
    # The table's advice, made exact: the settings file and the entry to add there. A headless
    # run cannot take the 'always' reply, so the denial does not offer it.
    settings = project.root / ".legato" / "settings.json"
    assert f"add a matching pattern to allowedPaths in {settings}" in result["content"]
    assert "always" not in result["content"]
    [denial] = json.loads(done.stdout)["permission_denials"]
    assert denial["tool_name"] == "Write"


def test_command_not_found_end_to_end(project: Project) -> None:
    project.settings(permissionMode="custom", allowedCommands=["legato-no-such-tool"])
    steps = [tool_calls([call("Bash", {"command": "legato-no-such-tool --x"})]), text("Missing.")]
    with ScriptedServer(steps) as server:
        done = project.legato(server.url, "--headless", "run it")
        result = server.requests[1].body["messages"][-1]["content"][0]
    assert done.returncode == 0, done.stderr
    assert result["is_error"] is True
    assert "Exit code 127" in result["content"]
    assert REMEDY_COMMAND in result["content"]


@pytest.mark.parametrize(
    ("kind", "exit_code"),
    [
        (AuthenticationError, 1),
        (ConnectionFailed, 1),
        (RateLimited, 1),
        (ServerError, 1),
        (StreamFailed, 1),
        (PermissionDenied, 1),
        (CommandNotFound, 1),
        (UsageError, 2),
    ],
)
def test_every_user_facing_error_has_a_remedy_and_an_exit_code(
    kind: type[LegatoError], exit_code: int
) -> None:
    error = kind("something went wrong")
    assert error.exit_code == exit_code
    assert error.remedy
    assert error.describe() == f"something went wrong\n  → {error.remedy}"
