"""A real ``legato --headless``, the scripted model steered into reading the home folder's
tokens and reaching the user's tmux server from a command that runs without a question, and a
cloned project's settings asking for Legato's folders to be writable."""

from __future__ import annotations

import json
import shutil
import subprocess
from typing import TYPE_CHECKING

import pytest

from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls
from tests.frontends.test_sandbox import results
from tests.tool_executor.sandbox_setup import needs_bwrap

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path

    from tests.frontends.conftest import Project

SECRET = "SECRET-e07b"
STORES = (".config/gh/hosts.yml", ".git-credentials", ".npmrc")


def steered(project: Project, command: str) -> tuple[subprocess.CompletedProcess[str], str]:
    """``legato --headless`` running ``command`` for the model, its program allowed by the
    rules so that nobody is asked; what it printed, and everything sent to the model."""
    project.settings(permissionMode="custom", allowedCommands=[command.split()[0]])
    script = [tool_calls([call("Bash", {"command": command})]), text("Done.")]
    with ScriptedServer(script) as server:
        done = project.legato(server.url, "--headless", "go", "--output-format", "stream-json")
        sent = json.dumps([request.body for request in server.requests])
    return done, sent


@needs_bwrap
def test_a_steered_command_cannot_read_the_home_folders_tokens(project: Project) -> None:
    for store in STORES:
        (project.home / store).parent.mkdir(parents=True, exist_ok=True)
        (project.home / store).write_text(SECRET)
    done, sent = steered(project, "cat ~/.config/gh/hosts.yml ~/.git-credentials ~/.npmrc")
    assert done.returncode == 0, done.stderr
    (result,) = results(done.stdout)
    assert result.count("Permission denied") + result.count("No such file") == len(STORES)
    assert SECRET not in done.stdout + done.stderr + sent


@pytest.fixture
def tmux_socket(tmp_path: Path) -> Iterator[Path]:
    tmux = shutil.which("tmux")
    if tmux is None:
        pytest.skip("tmux is not installed")
    socket = tmp_path / "tmux-test" / "default"
    socket.parent.mkdir(mode=0o700)
    subprocess.run([tmux, "-S", str(socket), "-f", "/dev/null", "new-session", "-d"], check=True)
    try:
        yield socket
    finally:
        subprocess.run([tmux, "-S", str(socket), "kill-server"], check=False)


@needs_bwrap
def test_a_steered_command_cannot_have_tmux_run_a_program_unconfined(
    project: Project, tmux_socket: Path
) -> None:
    pwned = project.home / "PWNED"
    done, _ = steered(project, f"tmux -S {tmux_socket} run-shell 'touch {pwned}'")
    assert done.returncode == 0, done.stderr
    (result,) = results(done.stdout)
    assert "error connecting to" in result
    assert not pwned.exists()


@pytest.mark.parametrize("entry", ["~", "~/.config/legato"])
def test_a_project_asking_to_write_legatos_folder_is_a_config_error(
    project: Project, entry: str
) -> None:
    project.settings(sandbox={"allowWrite": [entry]})
    with ScriptedServer([text("Done.")]) as server:
        done = project.legato(server.url, "--headless", "go")
        asked = len(server.requests)
    assert done.returncode == 2
    assert "field 'sandbox.allowWrite[0]'" in done.stderr
    assert "~/.config/legato or ~/.legato" in done.stderr
    assert "Traceback" not in done.stderr
    assert asked == 0
