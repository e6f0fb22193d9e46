"""Agents in the background (``Agent`` with ``run_in_background``): real `legato --headless` runs
on the scripted server, and a session of several prompts in process for the news of an end.

An agent waits on a file its command looks for, so the main conversation is seen to go on while
it works; the script picks each answer by the request (an agent's requests begin ``task <n>``).
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from typing import TYPE_CHECKING, Any

import anyio
import pytest

from actors.protocol import GetUsage, ListBackground, ListBackgroundAgents, RunPrompt
from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls
from tests.frontends.conftest import REPO
from tests.frontends.test_signals import alive
from tests.pipeline.harness import Recorder, pipeline_session
from tests.pipeline.test_agents import USAGE, agent_call, agent_requests, first_text, script
from tests.tool_executor.harness import running_in

if TYPE_CHECKING:
    from pathlib import Path

    from frontends.demo.scripted_api import RecordedRequest, Step
    from tests.frontends.conftest import Project

ALLOWED = ["touch", "test", "sleep", "echo"]


def last_results(request: RecordedRequest) -> list[dict[str, Any]]:
    return [b for b in request.body["messages"][-1]["content"] if b["type"] == "tool_result"]


def main_requests(requests: list[RecordedRequest]) -> list[RecordedRequest]:
    return [r for r in requests if not first_text(r).startswith("task ")]


def test_a_background_agent_works_on_while_the_conversation_goes_on(project: Project) -> None:
    project.settings(permissionMode="custom", allowedPaths=["**"], allowedCommands=ALLOWED)
    root = project.root

    def agent(n: int, turn: int) -> Step:
        if turn == 0:  # it cannot finish before the main conversation's next command has run
            command = f"while ! test -e {root}/go; do sleep 0.01; done; echo agent saw go"
            return tool_calls([call("Bash", {"command": command})], usage=USAGE)
        return text("Agent 0 found it.", usage=USAGE)

    main = [
        tool_calls([agent_call(0, run_in_background=True)], usage=USAGE),
        tool_calls([call("Bash", {"command": f"touch {root}/go; echo main goes on"})], usage=USAGE),
        tool_calls([call("TaskOutput", {"task_id": "agent_1", "timeout": 20_000})], usage=USAGE),
        text("Done.", usage=USAGE),
    ]
    with ScriptedServer(script(main, agent)) as server:
        done = project.legato(server.url, "--headless", "go", "--output-format", "stream-json")
        requests = server.requests
    assert done.returncode == 0, done.stderr
    mine = main_requests(requests)
    (started,) = last_results(mine[1])
    assert started["tool_use_id"] == "toolu_agent_0"
    assert started["content"].startswith(
        "Started agent agent_1 (general-purpose: job 0) in the background"
    )
    assert "is_error" not in started
    # The agent's command ended only after the main conversation's had run.
    (saw,) = last_results(agent_requests(requests, 0)[1])
    assert saw["content"] == "agent saw go"
    (answer,) = last_results(mine[3])
    assert answer["content"] == (
        "agent_1 (general-purpose: job 0): completed after "
        + answer["content"].split("completed after ")[1].split(" s.")[0]
        + " s.\nIts answer:\nAgent 0 found it."
    )
    # The read told the model of its end: no note follows.
    assert "Background agent" not in json.dumps(mine[3].body["messages"][-1])
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    # Its usage counts: four answers of the main conversation and two of the agent's.
    assert lines[-1]["usage"]["input_tokens"] == 600
    # Nothing of it is streamed among the main conversation's lines.
    assert not [line for line in lines if line.get("parent_tool_use_id")]


def test_task_stop_stops_a_running_agent_and_its_command(project: Project) -> None:
    project.settings(permissionMode="custom", allowedPaths=["**"], allowedCommands=ALLOWED)
    pids = project.root / "pids"
    children: list[int] = []

    def agent(n: int, turn: int) -> Step:
        command = f"sleep 300 & echo $! >> {pids}; sleep 301"
        return tool_calls([call("Bash", {"command": command})])

    main = [
        tool_calls([agent_call(0, run_in_background=True)]),
        tool_calls([call("Bash", {"command": f"while ! test -s {pids}; do sleep 0.01; done"})]),
        tool_calls([call("TaskStop", {"task_id": "agent_1"})]),
        text("Stopped it."),
    ]
    answer = script(main, agent)

    def watched(request: RecordedRequest) -> Step:
        if len(request.body["messages"]) == 5 and not first_text(request).startswith("task "):
            children.extend(running_in(project.root))  # the agent's two sleeps, about to stop
        return answer(request)

    with ScriptedServer(watched) as server:
        done = project.legato(server.url, "--headless", "go")
        requests = server.requests
    assert done.returncode == 0, done.stderr
    assert len(children) >= 2, children
    (stopped,) = last_results(main_requests(requests)[3])
    assert stopped["content"].startswith(
        "Stopped. agent_1 (general-purpose: job 0): stopped by the model after "
    ), stopped
    assert stopped["content"].endswith("with every call and process it started.")
    assert not [pid for pid in children if alive(pid)]


def test_the_sessions_end_stops_a_background_agent_and_its_command(project: Project) -> None:
    project.settings(permissionMode="custom", allowedPaths=["**"], allowedCommands=ALLOWED)
    pids = project.root / "pids"
    children: list[int] = []

    def agent(n: int, turn: int) -> Step:
        return tool_calls([call("Bash", {"command": f"sleep 300 & echo $! >> {pids}; sleep 301"})])

    main = [
        tool_calls([agent_call(0, run_in_background=True)]),
        tool_calls([call("Bash", {"command": f"while ! test -s {pids}; do sleep 0.01; done"})]),
        text("Leaving it."),
    ]
    answer = script(main, agent)

    def watched(request: RecordedRequest) -> Step:
        if len(request.body["messages"]) == 5:
            children.extend(running_in(project.root))
        return answer(request)

    with ScriptedServer(watched) as server:
        # Far short of the 300 s of its command: a run that waited for it fails here.
        done = project.legato(server.url, "--headless", "go", timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Leaving it."
    assert "stopping what still runs in the background as the run ends: agent_1 (" in done.stderr
    assert len(children) >= 2, children
    assert not [pid for pid in children if alive(pid)]


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_stops_a_background_agent_and_its_command(
    project: Project, signum: signal.Signals, code: int
) -> None:
    project.settings(permissionMode="custom", allowedPaths=["**"], allowedCommands=ALLOWED)
    pids = project.root / "pids"

    def agent(n: int, turn: int) -> Step:
        return tool_calls([call("Bash", {"command": f"sleep 300 & echo $! >> {pids}; sleep 301"})])

    main = [
        tool_calls([agent_call(0, run_in_background=True)]),
        tool_calls([call("Bash", {"command": "sleep 302"})]),
    ]
    with ScriptedServer(script(main, agent)) as server:
        process = subprocess.Popen(
            [
                sys.executable, "-c", "from frontends.cli import main; main()", str(project.root),
                "--headless", "go",
            ],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=REPO,
            env=project.env(server.url),
        )  # fmt: skip
        deadline = time.monotonic() + 20
        while not (pids.exists() and len(running_in(project.root)) >= 3):
            assert time.monotonic() < deadline, "the commands never started"
            time.sleep(0.02)
        children = running_in(project.root)
        process.send_signal(signum)
        _, err = process.communicate(timeout=10)
    assert process.returncode == code, err
    assert "Traceback" not in err
    deadline = time.monotonic() + 3
    while any(alive(pid) for pid in children) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not [pid for pid in children if alive(pid)]


async def test_the_model_hears_of_an_agents_end_once_at_its_next_turn(tmp_path: Path) -> None:
    root, home = tmp_path / "project", tmp_path / "home"
    root.mkdir()
    home.mkdir()

    def agent(n: int, turn: int) -> Step:
        if turn == 0:
            command = f"while ! test -e {root}/go; do sleep 0.01; done"
            return tool_calls([call("Bash", {"command": command})], usage=USAGE)
        return text("Agent 0 is done.", usage=USAGE)

    main = [
        tool_calls([agent_call(0, run_in_background=True)], usage=USAGE),
        text("It runs.", usage=USAGE),
        text("Heard.", usage=USAGE),
        text("Nothing new.", usage=USAGE),
    ]
    with ScriptedServer(script(main, agent)) as server:
        async with pipeline_session(root, home, server.url, Recorder()) as session:
            conductor = session.conductor.address
            await conductor.ask(RunPrompt(text="start it"))
            (root / "go").touch()
            with anyio.fail_after(20):
                # The agent's end is another actor's, after a real process and a real request:
                # nothing here can wait on it but its state, asked again and again.
                listing = await conductor.ask(ListBackgroundAgents())
                while listing[0].state != "completed":
                    await anyio.sleep(0.01)
                    listing = await conductor.ask(ListBackgroundAgents())
            await conductor.ask(RunPrompt(text="and now?"))
            await conductor.ask(RunPrompt(text="anything else?"))
            # The agent's two answers, after the prompt that started it, count in the session's.
            usage = await conductor.ask(GetUsage())
        requests = main_requests(server.requests)
    assert len(requests) == 4
    assert usage.input_tokens == 600
    notes = [
        [
            b["text"]
            for b in r.body["messages"][-1]["content"]
            if "Background agent" in b.get("text", "")
        ]
        for r in requests
    ]
    assert [len(n) for n in notes] == [0, 0, 1, 0]
    assert notes[2][0].startswith(
        "(Note: Background agent agent_1 (general-purpose: job 0) has ended: completed after "
    )
    assert notes[2][0].endswith("Read its answer with TaskOutput.)")
    assert "Background agent" not in json.dumps(requests[3].body["messages"][-1])


def test_a_background_agent_waits_for_a_place_and_an_unread_end_is_told_once(
    project: Project,
) -> None:
    project.settings(
        permissionMode="custom", allowedPaths=["**"], allowedCommands=ALLOWED,
        agents={"maxConcurrent": 1},
    )  # fmt: skip
    root = project.root

    def agent(n: int, turn: int) -> Step:
        if n == 0 and turn == 0:  # holds the one place until the main conversation says go
            command = f"while ! test -e {root}/go; do sleep 0.01; done"
            return tool_calls([call("Bash", {"command": command})])
        return text(f"Agent {n} done.")

    main = [
        tool_calls([agent_call(0, run_in_background=True)]),
        tool_calls([agent_call(1, run_in_background=True)]),
        tool_calls([call("TaskOutput", {"task_id": "agent_2", "block": False})]),
        tool_calls([call("Bash", {"command": f"touch {root}/go"})]),
        tool_calls([call("TaskOutput", {"task_id": "agent_2", "timeout": 20_000})]),
        text("Both done."),
    ]
    with ScriptedServer(script(main, agent)) as server:
        done = project.legato(server.url, "--headless", "go")
        requests = main_requests(server.requests)
    assert done.returncode == 0, done.stderr
    (waiting,) = last_results(requests[3])
    assert waiting["content"].startswith("agent_2 (general-purpose: job 1): waiting ")
    assert "for a place (agents.maxConcurrent)." in waiting["content"]
    assert waiting["content"].endswith("No activity yet.\nIts answer comes when it is done.")
    (read,) = last_results(requests[5])
    assert read["content"].endswith("Its answer:\nAgent 1 done.")
    # agent_1 ended unread: the next request says so, once; agent_2's end was read.
    notes = [
        b["text"]
        for r in requests
        for b in r.body["messages"][-1]["content"]
        if "Background agent" in b.get("text", "")
    ]
    assert len(notes) == 1, notes
    assert notes[0].startswith("(Note: Background agent agent_1 (general-purpose: job 0) has ended")


async def test_the_model_hears_of_a_subagents_background_command_at_its_next_turn(
    tmp_path: Path,
) -> None:
    root, home = tmp_path / "project", tmp_path / "home"
    root.mkdir()
    home.mkdir()

    # The command ends only once the test lets it: the first prompt is over by then, however
    # long its turns take.
    go = root / "go"
    command = f"while [ ! -e {go} ]; do sleep 0.01; done; echo bye"

    def agent(n: int, turn: int) -> Step:
        if turn == 0:
            return tool_calls([call("Bash", {"command": command, "run_in_background": True})])
        return text("Agent 0 started it.")

    main = [tool_calls([agent_call(0)]), text("It runs."), text("Heard."), text("Nothing new.")]
    with ScriptedServer(script(main, agent)) as server:
        async with pipeline_session(root, home, server.url, Recorder()) as session:
            conductor, tools = session.conductor.address, session.tools.address
            await conductor.ask(RunPrompt(text="start it"))
            await anyio.Path(go).touch()
            with anyio.fail_after(20):
                # The command's end is a real process's: nothing here can wait on it but its
                # state, asked again and again.
                listing = await tools.ask(ListBackground())
                while listing[0].state == "running":
                    await anyio.sleep(0.01)
                    listing = await tools.ask(ListBackground())
            await conductor.ask(RunPrompt(text="and now?"))
            await conductor.ask(RunPrompt(text="anything else?"))
        requests = main_requests(server.requests)
    assert len(requests) == 4
    notes = [
        [
            b["text"]
            for b in r.body["messages"][-1]["content"]
            if "Background command" in b.get("text", "")
        ]
        for r in requests
    ]
    # Told once, at the main conversation's next turn, as for a command of its own.
    assert [len(n) for n in notes] == [0, 0, 1, 0]
    assert notes[2][0].startswith("(Note: Background command bash_1 ('while [ ! -e ")
