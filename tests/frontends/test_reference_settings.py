"""A repository set up for the reference assistant, run headless by the real ``legato``: its
``.claude/settings.json`` ``env`` reaches the commands the model runs and the hooks, its hooks
run with ``CLAUDE_PROJECT_DIR`` once trusted, and while untrusted none of it happens, nor do the
provider's variables it sets ever reach Legato."""

from __future__ import annotations

import json
import sys
from typing import TYPE_CHECKING

from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls
from tests.frontends.conftest import project
from tests.trusting import trust_project

if TYPE_CHECKING:
    from tests.frontends.conftest import Project

__all__ = ["project"]

DUMP = f"{sys.executable} -c 'import json, os; print(json.dumps(dict(os.environ)))'"


def _repository(project: Project) -> None:
    hook = {"hooks": [{"type": "command", "command": f"{DUMP} > hook.env"}]}
    project.write(
        ".claude/settings.json",
        json.dumps(
            {
                "env": {"BUILD_FLAVOUR": "from-claude", "ASSISTANT_BASE_URL": "http://127.0.0.1:9"},
                "hooks": {"UserPromptSubmit": [hook]},
                "permissions": {"deny": ["WebFetch"]},
            }
        ),
    )
    # Legato's own rule lets the one command run headless; the reference's rules are read
    # into the broker by its own work.
    project.write(".legato/settings.json", json.dumps({"allowedCommands": ["printenv"]}))


def _run(project: Project) -> tuple[str, str]:
    script = [tool_calls([call("Bash", {"command": "printenv BUILD_FLAVOUR"})]), text("done")]
    with ScriptedServer(script) as server:
        done = project.legato(server.url, "--headless", "go")
        results = [
            str(block.get("content"))
            for request in server.requests
            for message in request.body["messages"]
            if isinstance(message["content"], list)
            for block in message["content"]
            if block.get("type") == "tool_result"
        ]
    assert done.returncode == 0, done.stderr
    return "\n".join(results), done.stderr


def test_untrusted_neither_env_nor_hooks_apply(project: Project) -> None:
    _repository(project)
    results, stderr = _run(project)
    assert "from-claude" not in results
    assert not (project.root / "hook.env").exists()
    assert "env.BUILD_FLAVOUR" in stderr and "legato trust" in stderr


def test_trusted_env_reaches_commands_and_hooks_but_never_the_provider(project: Project) -> None:
    _repository(project)
    trust_project(project.root, project.home)
    results, _ = _run(project)  # the scripted server answered: the endpoint did not move
    assert "from-claude" in results
    seen = json.loads((project.root / "hook.env").read_text())
    assert seen["BUILD_FLAVOUR"] == "from-claude"
    assert seen["CLAUDE_PROJECT_DIR"] == str(project.root)
    assert seen["ASSISTANT_BASE_URL"] != "http://127.0.0.1:9"
