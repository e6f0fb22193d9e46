"""Headless, end to end: what a signal leaves in the output, and the parallelism limit."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from typing import TYPE_CHECKING

from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls
from tests.cancellation.harness import surviving
from tests.frontends.conftest import REPO
from tests.tool_executor.harness import running_in

if TYPE_CHECKING:
    from tests.frontends.conftest import Project


def lines(out: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in out.splitlines() if line.strip()]


def test_sigterm_reports_each_interrupted_call_and_exits_at_once(project: Project) -> None:
    pids, ready = project.root / "pids", project.root / "ready"
    # A child that ignores SIGTERM: it takes the interrupt grace and SIGKILL to end.
    command = (
        f"echo $$ >> {pids}; (trap '' TERM; exec sleep 300) & echo $! >> {pids}; "
        f"echo working; touch {ready}; wait"
    )
    # '>> pids' writes a file of the project: in custom mode an allowedPaths entry covers it.
    project.settings(
        permissionMode="custom",
        allowedCommands=["echo", "sleep", "trap", "exec", "touch", "wait"],
        allowedPaths=["/pids"],
    )
    with ScriptedServer([tool_calls([call("Bash", {"command": command})])]) as server:
        process = subprocess.Popen(
            [sys.executable, "-c", "from frontends.cli import main; main()", str(project.root),
             "--headless", "work", "--output-format", "stream-json"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO,
            env=project.env(server.url),
        )  # fmt: skip
        deadline = time.monotonic() + 30
        while not ready.exists():
            assert process.poll() is None and time.monotonic() < deadline
            time.sleep(0.005)
        # Found by their working folder: a confined command's own pids are its namespace's.
        children = running_in(project.root)
        assert len(children) >= 2, children  # the shell and the sleep, at least
        process.send_signal(signal.SIGTERM)
        # The child would sleep 300 s: ending within the bound, Legato stopped it. (The time
        # from signal to exit is measured in benchmarks/cancellation.py.)
        out, err = process.communicate(timeout=10)
    assert process.returncode == 143, err
    events = lines(out)
    [user] = [e for e in events if e["type"] == "user"]
    [result] = user["message"]["content"]  # type: ignore[index]
    assert result["is_error"] is True
    assert result["content"].startswith("Interrupted after ")
    assert result["content"].endswith("Output so far:\nworking")
    assert events[-1]["subtype"] == "interrupted"
    assert err.strip().startswith("legato: stopped by SIGTERM running Bash(")
    assert surviving(children) == []


def test_max_parallel_bounds_the_calls_in_flight(project: Project) -> None:
    project.settings(permissionMode="custom", allowedCommands=["sleep"])
    sleeps = [call("Bash", {"command": "sleep 0.1"}) for _ in range(3)]
    with ScriptedServer([tool_calls(sleeps), text("Done.")]) as server:
        one = project.legato(
            server.url, "--headless", "go", "--output-format", "stream-json", "--max-parallel", "1"
        )
    with ScriptedServer([tool_calls(sleeps), text("Done.")]) as server:
        many = project.legato(server.url, "--headless", "go", "--output-format", "stream-json")
    assert one.returncode == 0 and many.returncode == 0, one.stderr + many.stderr

    def order(out: str) -> str:
        """``s`` for each call started, ``f`` for each result, in output order."""
        kinds = {"tool_started": "s"}
        return "".join(
            "f" if e["type"] == "user" else kinds.get(str(e.get("subtype")), "") for e in lines(out)
        )

    assert order(one.stdout) == "sfsfsf"
    assert order(many.stdout) == "sssfff"


def test_max_parallel_must_be_at_least_one(project: Project) -> None:
    done = project.legato("http://127.0.0.1:9", "--headless", "go", "--max-parallel", "0")
    assert done.returncode == 2
    assert "--max-parallel: '0' must be 1 or more" in done.stderr
