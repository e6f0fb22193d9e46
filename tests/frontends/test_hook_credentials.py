"""A hook never sees Legato's own credentials: a real headless session whose user's hook and
project's hook each write their environment to a file. Both run, with the user's variables and
none of Legato's keys (the credential variables, a copy of one under another name, the
configured ``apiKey``)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from actors.memory_store.hooks_approval import fingerprint, record
from actors.places import hooks_approval_path
from frontends.demo.scripted_api import ScriptedServer, text
from tests.frontends.conftest import REPO, Project, project

__all__ = ["project"]

KEY = "sk-env-key-7f3a9c"
CONFIG_KEY = "sk-config-key-51d2e8"
OTHERS = {
    "OPENAI_API_KEY": "sk-openai-c4f1a7",
    "CLOUD_SECRET_ACCESS_KEY": "cloud-secret-93ab",
    "MY_COPY_OF_THE_KEY": CONFIG_KEY,  # the configured key, exported under another name
    "MY_OTHER_COPY": KEY,  # the variable's key, likewise
    "KEEP_ME": "visible-value",
}


def _hooks(event: str, command: str) -> dict[str, object]:
    return {event: [{"hooks": [{"type": "command", "command": command}]}]}


def test_a_users_and_a_projects_hook_get_no_credential(project: Project) -> None:
    users, projects = project.root / "user-hook.env", project.root / "project-hook.env"
    config = project.home / ".config" / "legato" / "config.json"
    config.parent.mkdir(parents=True)
    prints = f"{sys.executable} -c 'import json, os, sys; print(json.dumps(dict(os.environ)))'"
    user_hooks = _hooks("UserPromptSubmit", f"{prints} > {users}")
    config.write_text(json.dumps({"apiKey": CONFIG_KEY, "hooks": user_hooks}))
    config.chmod(0o600)
    project_hooks = _hooks("Stop", f"{prints} > {projects}")
    project.settings(hooks=project_hooks)
    # As /hooks approve records it: the project's hooks run however a session is started.
    root = os.path.realpath(project.root)
    record(hooks_approval_path(root, str(project.home)), fingerprint(project_hooks))
    with ScriptedServer([text("done")], api_key=KEY) as server:
        env = project.env(server.url, key=KEY) | OTHERS
        done = subprocess.run(
            [sys.executable, "-c", "from frontends.cli import main; main()",
             str(project.root), "--headless", "hello"],
            capture_output=True, text=True, cwd=REPO, env=env, timeout=60,
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    for dumped in (users, projects):
        seen = json.loads(dumped.read_text())
        assert seen["KEEP_ME"] == "visible-value"
        assert seen["LEGATO_PROJECT_DIR"] == root
        assert not ({"ASSISTANT_API_KEY", *OTHERS} - {"KEEP_ME"}) & set(seen)
        for secret in (
            KEY,
            CONFIG_KEY,
            OTHERS["OPENAI_API_KEY"],
            OTHERS["CLOUD_SECRET_ACCESS_KEY"],
        ):
            assert secret not in json.dumps(seen)
