"""A signal while the answer streams and its first call runs stops both: a real process."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from typing import TYPE_CHECKING

import pytest

from frontends.demo.scripted_api import Gate, ScriptedServer, call, text, tool_calls
from tests.frontends.conftest import REPO
from tests.frontends.test_signals import alive, wait_for
from tests.tool_executor.harness import running_in

if TYPE_CHECKING:
    from tests.frontends.conftest import Project


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_mid_answer_stops_the_stream_and_the_running_call(
    project: Project, signum: signal.Signals, code: int
) -> None:
    pids = project.root / "pids"
    command = (
        f"sleep 300 & echo $! >> {pids}; "
        f"(trap '' TERM; exec sleep 301) & echo $! >> {pids}; sleep 302"
    )
    project.settings(
        permissionMode="custom", allowedPaths=["**"],
        allowedCommands=["sleep", "echo", "exec", "trap"],
    )  # fmt: skip
    # The answer stops after the command's block and stays silent: still streaming.
    step = tool_calls(
        [
            call("Bash", {"command": command}, id="toolu_bash"),
            call("Write", {"file_path": str(project.root / "out.txt"), "content": "x\n"}),
        ],
        text="Starting the server, then writing.",
        gate=Gate(path=str(project.root / "never"), before_block=2, timeout=60),
    )
    with ScriptedServer([step]) as server:
        process = subprocess.Popen(
            [
                sys.executable, "-c", "from frontends.cli import main; main()", str(project.root),
                "--headless", "go", "--output-format", "stream-json",
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
    assert f"stopped by {signum.name} running Bash(" in err
    assert "while the model was answering" in err
    assert "Traceback" not in err
    lines = [json.loads(line) for line in out.splitlines()]
    kinds = [(e["type"], e.get("subtype")) for e in lines if e["type"] != "stream_event"]
    assert kinds == [
        ("system", "init"),
        ("system", "tool_started"),
        ("assistant", None),  # what the conversation keeps of the answer
        ("user", None),  # the command's result: interrupted, with how long it ran
        ("result", "interrupted"),
    ], kinds
    result = lines[-2]["message"]["content"][0]
    assert result["tool_use_id"] == "toolu_bash"
    assert result["content"].startswith("Interrupted after ")
    deadline = time.monotonic() + 3
    while any(alive(pid) for pid in children) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not [pid for pid in children if alive(pid)]
    assert not (project.root / "out.txt").exists()
    # The conversation was saved valid: the next run goes on with it (the scripted server
    # refuses a tool_use without its result, as the API does).
    with ScriptedServer([text("Carrying on.")]) as server:
        done = project.legato(server.url, "--continue", "--headless", "go on")
        sent = server.requests[0].body["messages"]
    assert done.returncode == 0, done.stderr
    assert [m["role"] for m in sent] == ["user", "assistant", "user"]
    assert [b["type"] for b in sent[1]["content"]] == ["text", "tool_use"]
