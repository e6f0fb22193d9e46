"""A command never sees Legato's own credentials: a real headless session, whose model asks a
command to print the environment, sends back the user's variables and none of the keys."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import TYPE_CHECKING

from actors.tool_executor.command_env import command_environment
from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls
from tests.frontends.conftest import REPO, Project, project
from tests.tool_executor.sandbox_setup import needs_bwrap

if TYPE_CHECKING:
    from frontends.demo.scripted_api import RecordedRequest

__all__ = ["project"]

KEY = "sk-env-key-7f3a9c"
CONFIG_KEY = "sk-config-key-51d2e8"
OTHERS = {
    "ANTHROPIC_API_KEY": "sk-anthropic-0b9e44",
    "OPENAI_API_KEY": "sk-openai-c4f1a7",
    "CLOUD_SESSION_TOKEN": "cloud-token-93ab",
    "MY_COPY_OF_THE_KEY": CONFIG_KEY,  # the configured key, exported under another name
}

# Prints every /proc/<pid>/environ it may read, its parent's included.
READ_PROC = """import glob
for path in glob.glob("/proc/[0-9]*/environ"):
    try:
        print(open(path, "rb").read().decode(errors="replace"))
    except OSError:
        pass
"""


def results(request: RecordedRequest) -> str:
    last = request.body["messages"][-1]["content"]
    return "\n".join(str(b["content"]) for b in last if b["type"] == "tool_result")


def test_a_command_cannot_print_legatos_credentials(project: Project) -> None:
    config = project.home / ".config" / "legato" / "config.json"
    config.parent.mkdir(parents=True)
    config.write_text(json.dumps({"apiKey": CONFIG_KEY}))
    project.settings(permissionMode="auto", allowedCommands=["env", "python3 *"])
    printing = (
        "env; python3 -c 'import os; "
        'print("key=" + os.environ.get("ASSISTANT_API_KEY", "")); print(sorted(os.environ))\''
    )
    steps = [tool_calls([call("Bash", {"command": printing})]), text("done")]
    with ScriptedServer(steps, api_key=KEY) as server:
        env = project.env(server.url, key=KEY) | OTHERS | {"KEEP_ME": "visible-value"}
        done = subprocess.run(
            [sys.executable, "-c", "from frontends.cli import main; main()",
             str(project.root), "--headless", "print the environment"],
            capture_output=True, text=True, cwd=REPO, env=env, timeout=60,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        seen = results(server.requests[1])
    assert "KEEP_ME=visible-value" in seen  # the user's own variables are there
    assert "key=\n" in seen  # the variable is not set at all
    for secret in (KEY, CONFIG_KEY, *OTHERS.values()):
        assert secret not in seen
    for name in ("ASSISTANT_API_KEY", "ANTHROPIC_API_KEY", "OPENAI_API_KEY", "MY_COPY_OF_THE_KEY"):
        assert f"'{name}'" not in seen


def test_no_name_lets_a_credential_through() -> None:
    env = {"OPENAI_API_KEY": "sk-1", "ASSISTANT_API_KEY": "sk-2", "COPY": "sk-2", "PATH": "/bin"}
    assert command_environment(env, passed=["OPENAI_API_KEY", "COPY"]) == {"PATH": "/bin"}
    assert command_environment({"A": " k ", "B": "x"}, secrets=["k", None]) == {"B": "x"}
    # Inside a longer value, as a header or an address carries it, once it is as long as a key.
    key = "sk-ant-0123456789abcdef"
    inside = {
        "ASSISTANT_API_KEY": key,
        "MY_HEADER": f"Authorization: Bearer {key}",
        "HTTPS_PROXY": f"http://me:{key}@proxy:3128",
        "PATH": "/bin",
    }
    assert command_environment(inside) == {"PATH": "/bin"}


def test_pass_env_in_the_settings_cannot_hand_a_command_legatos_key(project: Project) -> None:
    """A cloned repository's settings ask for the key by every name it goes by: the command
    gets none of them, the model sees none, and the user is told which entry was not applied."""
    config = project.home / ".config" / "legato" / "config.json"
    config.parent.mkdir(parents=True)
    config.write_text(json.dumps({"apiKey": CONFIG_KEY}))
    asked = ["ASSISTANT_API_KEY", "OPENAI_API_KEY", "MY_COPY_OF_THE_KEY", "KEEP_ME"]
    project.settings(permissionMode="auto", allowedCommands=["env"], sandbox={"passEnv": asked})
    steps = [tool_calls([call("Bash", {"command": "env"})]), text("done")]
    with ScriptedServer(steps, api_key=KEY) as server:
        env = project.env(server.url, key=KEY) | OTHERS | {"KEEP_ME": "visible-value"}
        done = subprocess.run(
            [sys.executable, "-c", "from frontends.cli import main; main()",
             str(project.root), "--headless", "print the environment"],
            capture_output=True, text=True, cwd=REPO, env=env, timeout=60,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        seen = results(server.requests[1])
        sent = json.dumps([request.body for request in server.requests])
    assert "KEEP_ME=visible-value" in seen  # the command ran and printed its environment
    for secret in (KEY, CONFIG_KEY, OTHERS["OPENAI_API_KEY"]):
        assert secret not in sent
    settings = project.root / ".legato" / "settings.json"
    for index, name in enumerate(asked[:3]):
        assert f"{settings}:" in done.stderr
        assert f"field 'sandbox.passEnv[{index}]': {name} " in done.stderr
    assert "sandbox.passEnv[3]" not in done.stderr
    assert "Remove it from 'sandbox.passEnv'" in done.stderr


@needs_bwrap
def test_a_confined_command_cannot_read_legatos_key_from_proc(project: Project) -> None:
    """Legato's own process holds the key in its environment: a confined command, in a process
    namespace of its own, sees no process of Legato's in /proc to read it from."""
    config = project.home / ".config" / "legato" / "config.json"
    config.parent.mkdir(parents=True)
    config.write_text(json.dumps({"apiKey": CONFIG_KEY}))
    project.settings(permissionMode="auto", allowedCommands=["python3 *"])
    steps = [tool_calls([call("Bash", {"command": f"python3 -c '{READ_PROC}'"})]), text("done")]
    with ScriptedServer(steps, api_key=KEY) as server:
        env = project.env(server.url, key=KEY) | OTHERS | {"KEEP_ME": "visible-value"}
        done = subprocess.run(
            [sys.executable, "-c", "from frontends.cli import main; main()",
             str(project.root), "--headless", "read /proc"],
            capture_output=True, text=True, cwd=REPO, env=env, timeout=60,
        )  # fmt: skip
        assert done.returncode == 0, done.stderr
        seen = results(server.requests[1])
    assert "KEEP_ME=visible-value" in seen  # it read its own environment
    for secret in (KEY, *OTHERS.values()):
        assert secret not in seen
