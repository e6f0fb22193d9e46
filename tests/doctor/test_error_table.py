"""The error table, row by row: each condition, caused for real through the `legato` command,
reaches the user with a message, its remedy and an exit code."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
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
from tests.frontends.conftest import REPO

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


# A connection error is retried after the SDKs' backoff (0.5 s, then 1 s) before the error
# shows: the same retries, each after a hundredth of a second, where a test only waits them out.
QUICK_RETRIES = "import actors.model_client.retry as r; r.INITIAL_DELAY = 0.01; "


def legato_with(
    project: Project, base_url: str, *args: str, **env: str | None
) -> subprocess.CompletedProcess[str]:
    """``legato`` with ``env`` over the project's environment (None: the variable unset)."""
    return _legato(project, base_url, args, env, "")


def legato_retrying_quickly(
    project: Project, base_url: str, *args: str, **env: str | None
) -> subprocess.CompletedProcess[str]:
    """``legato_with``, its retries QUICK_RETRIES apart."""
    return _legato(project, base_url, args, env, QUICK_RETRIES)


def _legato(
    project: Project,
    base_url: str,
    args: tuple[str, ...],
    env: dict[str, str | None],
    before: str,
) -> subprocess.CompletedProcess[str]:
    merged: dict[str, str] = {}
    for name, value in (project.env(base_url) | env).items():
        if value is not None:
            merged[name] = value
    return subprocess.run(
        [
            sys.executable,
            "-c",
            before + "from frontends.cli import main; main()",
            str(project.root),
            *args,
        ],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=merged,
        timeout=60,
    )


CONFIG_REMEDY = (
    "Check apiKey in ~/.config/legato/config.json, then set it again there "
    "(or set ASSISTANT_API_KEY, which is used before it)"
)
ANTHROPIC_REMEDY = (
    "Run 'echo $ANTHROPIC_API_KEY' to check the key, then set it again (or set "
    "ASSISTANT_API_KEY or apiKey in ~/.config/legato/config.json, which are used before it)"
)


@pytest.mark.parametrize(
    ("source", "remedy"),
    [
        ("ASSISTANT_API_KEY", REMEDY_API_KEY),
        ("apiKey in ~/.config/legato/config.json", CONFIG_REMEDY),
        ("ANTHROPIC_API_KEY", ANTHROPIC_REMEDY),
    ],
)
def test_an_invalid_key_remedy_names_where_the_key_came_from(
    project: Project, source: str, remedy: str
) -> None:
    wrong = "sk-wrong-456"
    env: dict[str, str | None] = {"ASSISTANT_API_KEY": None}
    if source.startswith("apiKey"):
        config = project.home / ".config" / "legato" / "config.json"
        config.parent.mkdir(parents=True)
        config.write_text(json.dumps({"apiKey": wrong}))
        config.chmod(0o600)
    else:
        env[source] = wrong
    with ScriptedServer([text("never")], api_key="sk-right") as server:
        done = legato_with(project, server.url, "--headless", "hi", **env)
    assert done.returncode == 1
    assert f"rejected the API key from {source} (HTTP 401" in done.stderr
    assert done.stderr.endswith(f"\n  → {remedy}\n")
    assert wrong not in done.stderr + done.stdout


def test_a_proxy_refusing_connections_is_named_end_to_end(project: Project) -> None:
    proxy = f"http://127.0.0.1:{closed_port()}"
    # The API's address is never tried: the request stops at the proxy.
    done = legato_retrying_quickly(
        project, "https://api.anthropic.com", "--headless", "hi", HTTPS_PROXY=proxy
    )
    assert done.returncode == 1
    assert done.stderr.endswith(
        "legato: Could not reach the API at https://api.anthropic.com/v1/messages: "
        f"the proxy {proxy} refused the connection (set by HTTPS_PROXY)\n"
        f"  → Check that the proxy at {proxy} is running and HTTPS_PROXY names it "
        "(echo $HTTPS_PROXY); unset HTTPS_PROXY to connect directly\n"
    )


def test_network_problem_end_to_end(project: Project) -> None:
    url = f"http://127.0.0.1:{closed_port()}"
    done = legato_retrying_quickly(project, url, "--headless", "hi")
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
    assert "'legato-no-such-tool' was not found." in result["content"]
    assert REMEDY_COMMAND in result["content"]
    # The person sees it too, under the failed call, not only the model.
    assert f"legato-no-such-tool: command not found (+3 lines)\n    → {REMEDY_COMMAND}\n" in (
        done.stderr
    )


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
