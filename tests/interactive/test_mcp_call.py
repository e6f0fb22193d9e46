"""An MCP call in a real terminal: a real ``legato`` under tmux, the scripted server and the
toy MCP server. The question names the server and the tool with the arguments; ``always``
holds for that tool only."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls
from tests.interactive.conftest import session_env

if TYPE_CHECKING:
    from tests.interactive.terminal import Terminal

pytestmark = pytest.mark.tmux

TOY = str(Path(__file__).parents[1] / "mcp_client" / "toy_server.py")


def results(body: dict[str, Any]) -> list[str]:
    return [b["content"] for b in body["messages"][-1]["content"] if b["type"] == "tool_result"]


def test_always_allows_that_tool_and_no_other(
    terminal: Terminal, folders: tuple[Path, Path]
) -> None:
    root, home = folders
    config = home / ".config" / "legato" / "config.json"
    config.parent.mkdir(parents=True)
    config.write_text(
        json.dumps({"mcpServers": {"toy": {"command": sys.executable, "args": [TOY]}}})
    )
    steps = [
        tool_calls([call("mcp__toy__shout", {"text": "ab", "times": 2})]),
        tool_calls([call("mcp__toy__shout", {"text": "c", "times": 3})]),
        tool_calls([call("mcp__toy__pid", {})]),
        text("Finished."),
    ]
    with ScriptedServer(steps) as server:
        terminal.start(root, session_env(home, server.url))
        terminal.wait_for("tokens", visible=True)
        terminal.submit("shout")
        terminal.wait_for(lambda s: "Allow? [y/n/always/never]" in s, visible=True)
        terminal.wait_for(
            "Call MCP tool  shout  (MCP server 'toy')\n"
            "    requested by mcp__toy__shout\n"
            '    {"text": "ab", "times": 2}\n'
        )
        terminal.submit("always")
        # The second shout runs unasked; pid is another tool: asked.
        terminal.wait_for("Call MCP tool  pid  (MCP server 'toy')")
        terminal.wait_for(lambda s: "Allow? [y/n/always/never]" in s, visible=True)
        terminal.submit("n")
        terminal.wait_for("Finished.")
        said = [results(request.body) for request in server.requests[1:]]
        assert said[0] == ["abab"]
        assert said[1] == ["ccc"]
        assert said[2] == ["Permission denied: the user denied it"]  # their no: no remedy
        terminal.submit("/quit")
        assert terminal.exit_code() == 0
