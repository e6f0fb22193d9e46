"""SIGINT and SIGTERM stop a headless run at once, leave no process behind, and say what stopped."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from typing import TYPE_CHECKING

import pytest

from frontends.demo.scripted_api import ScriptedServer, call, tool_calls
from tests.frontends.conftest import REPO
from tests.tool_executor.harness import running_in

if TYPE_CHECKING:
    from pathlib import Path

    from tests.frontends.conftest import Project


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    # A zombie is dead for our purposes, but only its parent can reap it; ours is gone.
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(")")[-1].split()[0] != "Z"
    except FileNotFoundError:
        return False


def wait_for(path: Path, timeout: float = 20) -> str:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().count("\n") >= 2:
            return path.read_text()
        time.sleep(0.02)
    raise AssertionError(f"{path} never appeared")


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_stops_the_run_and_kills_every_process(
    project: Project, signum: signal.Signals, code: int
) -> None:
    pids = project.root / "pids"
    # A background job, and a child that ignores SIGTERM: both must be gone afterwards.
    command = (
        f"sleep 300 & echo $! >> {pids}; "
        f"(trap '' TERM; exec sleep 301) & echo $! >> {pids}; sleep 302"
    )
    # '>> pids' writes a file of the project: in custom mode an allowedPaths entry covers it.
    project.settings(
        permissionMode="custom",
        allowedCommands=["sleep", "echo", "exec", "trap"],
        allowedPaths=["/pids"],
    )
    with ScriptedServer([tool_calls([call("Bash", {"command": command})])]) as server:
        process = subprocess.Popen(
            [
                sys.executable, "-c", "from frontends.cli import main; main()", str(project.root),
                "--headless", "wait", "--output-format", "json",
            ],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO,
            env=project.env(server.url),
        )  # fmt: skip
        wait_for(pids)
        # Found by their working folder: a confined command's own pids are its namespace's.
        children = running_in(project.root)
        assert len(children) >= 3, children  # the three sleeps, at least
        process.send_signal(signum)
        out, err = process.communicate(timeout=10)
    assert process.returncode == code, err
    assert f"stopped by {signum.name}" in err
    assert "Bash(" in err  # it says what it stopped
    assert "Traceback" not in err
    result = json.loads(out)
    assert result["subtype"] == "interrupted"
    assert result["is_error"] is True
    deadline = time.monotonic() + 3
    while any(alive(pid) for pid in children) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not [pid for pid in children if alive(pid)]
