"""Background commands in real headless runs: the scripted model starts one with Bash, reads
it with TaskOutput while it grows, stops it with TaskStop, and hears of its end once; the run's
end and SIGTERM leave no process.

The scripted model decides each step from the request it answers (what the last read said),
and the commands wait for files the script writes, so no step depends on the machine's speed.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from typing import TYPE_CHECKING, Any

import pytest

from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls
from tests.frontends.conftest import REPO
from tests.frontends.test_signals import wait_for
from tests.tool_executor.harness import running_in

if TYPE_CHECKING:
    from frontends.demo.scripted_api import RecordedRequest, Step
    from tests.frontends.conftest import Project

ALLOWED = ["echo", "sleep", "[", "seq", "printf", "exit", "wait", "trap", "exec", "true"]
WAIT_FOR = "while [ ! -e {0} ]; do sleep 0.01; done"
# A safety net for the scripts that read until something comes, not a measure of anything.
MOST_TURNS = "400"


def last_results(request: RecordedRequest) -> list[str]:
    """The tool results (and texts) of the request's last user message."""
    content = request.body["messages"][-1]["content"]
    return [
        block.get("content") or block.get("text") or ""
        for block in content
        if isinstance(block, dict)
    ]


def user_texts(request: RecordedRequest) -> list[str]:
    return [
        block["text"]
        for message in request.body["messages"]
        if message["role"] == "user" and isinstance(message["content"], list)
        for block in message["content"]
        if block.get("type") == "text"
    ]


def background(command: str) -> Step:
    return tool_calls([call("Bash", {"command": command, "run_in_background": True})])


def read(**fields: Any) -> Step:
    return tool_calls([call("TaskOutput", {"task_id": "bash_1", "block": False, **fields})])


def test_the_model_reads_a_growing_command_and_waits_for_its_end(project: Project) -> None:
    go, end = project.root / "go", project.root / "end"
    command = f"echo one; {WAIT_FOR.format(go)}; echo two; {WAIT_FOR.format(end)}; echo three"
    project.settings(permissionMode="custom", allowedCommands=ALLOWED)
    reads: list[str] = []

    def model(request: RecordedRequest) -> Step:
        if len(request.body["messages"]) == 1:
            return background(command)
        said = last_results(request)[0]
        if "TaskOutput" not in json.dumps(request.body["messages"][-2]):
            return read()  # the start's result: the first read
        reads.append(said)
        seen = "\n".join(reads)
        if "one" in seen and not go.exists():
            go.touch()
        elif "two" in seen and not end.exists():
            end.touch()
            return tool_calls([call("TaskOutput", {"task_id": "bash_1"})])  # waits for its end
        elif "exited" in said:
            return text("It finished.")
        return read()

    with ScriptedServer(model) as server:
        done = project.legato(server.url, "--headless", "go", "--max-turns", MOST_TURNS)
        requests = server.requests
    assert done.returncode == 0, done.stderr
    started = last_results(requests[1])[0]
    assert started.startswith("Command running in the background with ID: bash_1")
    outputs = [r.split("\n", 1)[1] for r in reads if not r.endswith("(no new output)")]
    assert outputs == ["one", "two", "three"]  # each line once, in the read after it came
    assert reads[-1].startswith("bash_1: exited with code 0 after ")
    # The model saw the end in a read: no note of it afterwards.
    assert not any("Background command" in t for t in user_texts(requests[-1]))


def test_an_ended_command_is_told_once_at_the_next_turn(project: Project) -> None:
    project.settings(permissionMode="custom", allowedCommands=ALLOWED)
    after: list[int] = []

    def model(request: RecordedRequest) -> Step:
        if len(request.body["messages"]) == 1:
            return background("echo bye; exit 3")
        if any("Background command bash_1" in t for t in user_texts(request)):
            after.append(len(request.body["messages"]))
        if len(after) < 2:
            # Turns of a cheap call until the note has come, and one more after it.
            return tool_calls([call("Glob", {"pattern": "*.none"})])
        return text("Noted.")

    with ScriptedServer(model) as server:
        done = project.legato(server.url, "--headless", "go", "--max-turns", MOST_TURNS)
        requests = server.requests
    assert done.returncode == 0, done.stderr
    notes = [t for t in user_texts(requests[-1]) if "Background command" in t]
    assert len(notes) == 1, notes  # told once, and kept in the conversation since
    assert notes[0].startswith("(Note: Background command bash_1 ('echo bye; exit 3') has ended: ")
    assert "exited with code 3 after" in notes[0]
    # It came with a turn's results: in the same user message, after them.
    told = next(
        i for i, r in enumerate(requests) if any("Background command" in t for t in user_texts(r))
    )
    last = requests[told].body["messages"][-1]["content"]
    assert last[0]["type"] == "tool_result" and last[-1]["type"] == "text"


def test_the_model_stops_a_command_and_nothing_is_left(project: Project) -> None:
    pids = project.root / "pids"
    command = (
        f"sleep 300 & echo $! >> {pids}; (trap '' TERM; exec sleep 301) & echo $! >> {pids}; wait"
    )
    project.settings(permissionMode="custom", allowedCommands=ALLOWED, allowedPaths=["/pids"])
    seen: list[int] = []

    def model(request: RecordedRequest) -> Step:
        if len(request.body["messages"]) == 1:
            return background(command)
        if "TaskStop" in json.dumps(request.body["messages"][-2]):
            return text("Stopped.")
        if not pids.exists() or pids.read_text().count("\n") < 2:
            return read()
        seen.extend(running_in(project.root))
        return tool_calls([call("TaskStop", {"task_id": "bash_1"})])

    with ScriptedServer(model) as server:
        done = project.legato(server.url, "--headless", "go", "--max-turns", MOST_TURNS)
        requests = server.requests
    assert done.returncode == 0, done.stderr
    assert len(seen) >= 3, seen  # bash and the two sleeps ran
    stopped = last_results(requests[-1])[0]
    assert stopped.startswith("Stopped, with every process it started. bash_1: killed by the model")
    assert running_in(project.root) == []


def headless(project: Project, url: str, *args: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [
            sys.executable, "-c", "from frontends.cli import main; main()", str(project.root),
            "--headless", "go", "--output-format", "json", *args,
        ],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO,
        env=project.env(url),
    )  # fmt: skip


def test_the_end_of_a_headless_run_stops_its_background_commands(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    pids = project.root / "pids"
    command = (
        f"sleep 300 & echo $! >> {pids}; (trap '' TERM; exec sleep 301) & echo $! >> {pids}; wait"
    )
    project.settings(permissionMode="custom", allowedCommands=ALLOWED, allowedPaths=["/pids"])
    seen: list[int] = []

    def model(request: RecordedRequest) -> Step:
        if len(request.body["messages"]) == 1:
            return background(command)
        if not pids.exists() or pids.read_text().count("\n") < 2:
            return read()
        seen.extend(running_in(project.root))
        return text("Left it running.")

    # The debug log is where the supervisor says that its grace ran out.
    monkeypatch.setenv("ASSISTANT_LOG", "debug")
    with ScriptedServer(model) as server:
        done = project.legato(server.url, "--headless", "go", "--max-turns", MOST_TURNS)
    assert done.returncode == 0, done.stderr
    assert len(seen) >= 3, seen
    assert running_in(project.root) == []
    # Said, so that a CI log shows what was cut off.
    assert (
        "stopping what still runs in the background as the run ends: bash_1 (sleep 300 &"
    ) in done.stderr
    # The session's end stopped them itself: a run that had to wait out the supervisor's
    # grace (the commands' task group left open) would also leave nothing, later.
    (log,) = (project.home / ".legato" / "logs").glob("legato-*.log")
    assert "handled actor=tool_executor" in log.read_text()  # the log is the session's
    assert "grace ran out" not in log.read_text()


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_to_a_headless_run_stops_its_background_commands(
    project: Project, signum: signal.Signals, code: int
) -> None:
    pids = project.root / "pids"
    command = (
        f"sleep 300 & echo $! >> {pids}; (trap '' TERM; exec sleep 301) & echo $! >> {pids}; wait"
    )
    project.settings(permissionMode="custom", allowedCommands=ALLOWED, allowedPaths=["/pids"])
    steps = [background(command), tool_calls([call("Bash", {"command": "sleep 302"})])]
    with ScriptedServer(steps) as server:
        process = headless(project, server.url)
        wait_for(pids)
        assert len(running_in(project.root)) >= 3
        process.send_signal(signum)
        _, err = process.communicate(timeout=10)
    assert process.returncode == code, err
    assert running_in(project.root) == []


def asked_for_news(project: Project, steps: list[Step]) -> int:
    """How many times the run's conductor asked the executor for background news (the debug
    log traces every message an actor handles)."""
    with ScriptedServer(steps) as server:
        env = project.env(server.url) | {"ASSISTANT_LOG": "debug"}
        done = subprocess.run(
            [sys.executable, "-c", "from frontends.cli import main; main()", str(project.root),
             "--headless", "go"],
            capture_output=True, text=True, cwd=REPO, env=env, timeout=60,
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    logs = list((project.home / ".legato" / "logs").glob("*.log"))
    text = "".join(log.read_text() for log in logs)
    for log in logs:
        log.unlink()
    return text.count("msg=TakeBackgroundNews")


def test_a_session_without_background_commands_never_asks_for_news(project: Project) -> None:
    project.settings(permissionMode="custom", allowedCommands=ALLOWED)
    plain = [tool_calls([call("Bash", {"command": "echo hi"})]), text("Done.")]
    assert asked_for_news(project, plain) == 0
    # From the turn after one starts, each turn asks: here the closing turn.
    started = [background("true"), text("Done.")]
    assert asked_for_news(project, started) == 1
