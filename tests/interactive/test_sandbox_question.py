"""In a real terminal, a command's question says whether it runs in the sandbox and with
network, or unconfined: a real ``legato`` under tmux, the scripted server, bubblewrap."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest

from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls
from tests.interactive.conftest import session_env
from tests.tool_executor.sandbox_setup import needs_bwrap

if TYPE_CHECKING:
    from pathlib import Path

    from tests.interactive.terminal import Terminal

pytestmark = [pytest.mark.tmux, needs_bwrap]


def results(body: dict[str, Any]) -> list[str]:
    return [b["content"] for b in body["messages"][-1]["content"] if b["type"] == "tool_result"]


def test_the_question_says_how_the_command_will_run(
    terminal: Terminal, folders: tuple[Path, Path]
) -> None:
    root, home = folders
    (root / ".legato").mkdir()
    (root / ".legato" / "settings.json").write_text(json.dumps({"sandbox": {"network": False}}))
    escape = {"command": "echo escaped", "dangerouslyDisableSandbox": True}
    steps = [
        tool_calls([call("Bash", {"command": "echo confined"})]),
        tool_calls([call("Bash", escape)]),
        text("Finished."),
    ]
    with ScriptedServer(steps) as server:
        terminal.start(root, session_env(home, server.url))
        terminal.wait_for("tokens", visible=True)
        terminal.submit("run them")
        terminal.wait_for(lambda s: "Allow? [y/n/always/never]" in s, visible=True)
        # The question's lines reach the scrollback after the prompt shows: wait for them.
        terminal.wait_for("\n    requested by Bash\n    runs in the sandbox, no network\n")
        terminal.submit("y")
        terminal.wait_for(lambda s: "Allow? [y/n]" in s, visible=True)
        unconfined = "runs unconfined: full file and network access (dangerouslyDisableSandbox)"
        terminal.wait_for(f"\n    requested by Bash\n    {unconfined}\n")
        terminal.submit("y")
        terminal.wait_for("Finished.")
        assert [results(request.body) for request in server.requests[1:]] == [
            ["confined"],
            ["escaped"],
        ]
        terminal.submit("/quit")
        assert terminal.exit_code() == 0
