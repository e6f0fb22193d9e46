"""Real ``legato`` processes: a session killed with SIGKILL resumes with --continue, and
``--continue --headless "/undo"`` puts back what its last prompt changed (issue 7)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
from typing import TYPE_CHECKING, Any

from actors.session_store import sessions_dir
from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls
from tests.frontends.conftest import REPO

if TYPE_CHECKING:
    from frontends.demo.scripted_api import RecordedRequest, Step
    from tests.frontends.conftest import Project


def texts(body: dict[str, Any]) -> list[str]:
    out = []
    for message in body["messages"]:
        for block in message["content"]:
            if block.get("type") == "text":
                out.append(block["text"])
            elif block.get("type") == "tool_result":
                out.append(str(block["content"]))
    return out


def test_a_killed_session_resumes_and_undo_restores_its_files(project: Project) -> None:
    target = project.write("app.py", "print('original')\n")
    second_request = threading.Event()

    def model(request: RecordedRequest) -> Step:
        turn = len(request.body["messages"])
        if turn == 1:
            return tool_calls([call("Read", {"file_path": str(target)})])
        if turn == 3:
            edit = {"file_path": str(target), "content": "print('changed')\n"}
            return tool_calls([call("Write", edit, id="toolu_write")])
        second_request.set()
        # A long answer, streamed slowly: the process is killed in the middle of it.
        return text("word " * 200, delay=0.05)

    with ScriptedServer(model) as server:
        child = subprocess.Popen(
            [sys.executable, "-c", "from frontends.cli import main; main()", str(project.root),
             "--permission-mode", "auto", "--headless", "rewrite app.py"],
            cwd=REPO, env=project.env(server.url),
            stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )  # fmt: skip
        try:
            assert second_request.wait(30)
        finally:
            os.kill(child.pid, signal.SIGKILL)
            child.communicate(timeout=30)
    assert target.read_text() == "print('changed')\n"

    with ScriptedServer([]) as server:
        undone = project.legato(server.url, "--continue", "--headless", "/undo")
    assert undone.returncode == 0, undone.stderr
    assert undone.stdout.strip() == f"Restored {target}"
    assert target.read_text() == "print('original')\n"

    with ScriptedServer([text("Back to the original.")]) as server:
        resumed = project.legato(server.url, "--continue", "--headless", "what now?")
        body = server.requests[0].body
    assert resumed.returncode == 0, resumed.stderr
    said = texts(body)
    # Up to the last complete event: the prompt, the Write and its result; the answer that
    # was streaming when the process died is not there. Then the undo note, and the prompt.
    assert said[0] == "rewrite app.py"
    assert body["messages"][3]["content"][0]["id"] == "toolu_write"
    assert "/undo" in said[-2] and said[-1] == "what now?"
    assert not any("word word" in t for t in said)

    with ScriptedServer([]) as server:
        again = project.legato(server.url, "--continue", "--headless", "/undo")
    assert again.stdout.startswith("Nothing to undo")


def test_continue_without_a_saved_session_is_a_usage_error(project: Project) -> None:
    with ScriptedServer([]) as server:
        result = project.legato(server.url, "--continue", "--headless", "hi")
    assert result.returncode == 2
    assert "no saved session" in result.stderr and "→" in result.stderr


def test_resume_by_id_and_a_bare_resume_headless_lists_the_sessions(project: Project) -> None:
    with ScriptedServer([text("first answer")]) as server:
        first = project.legato(server.url, "--headless", "remember 42", "--output-format", "json")
    import json

    session_id = json.loads(first.stdout)["session_id"]
    with ScriptedServer([]) as server:
        bare = project.legato(server.url, "--resume", "--headless", "hi")
    assert bare.returncode == 2
    assert session_id in bare.stderr and "remember 42" in bare.stderr
    with ScriptedServer([text("42")]) as server:
        resumed = project.legato(server.url, "--resume", session_id, "--headless", "what?")
        body = server.requests[0].body
    assert resumed.returncode == 0, resumed.stderr
    assert texts(body) == ["remember 42", "first answer", "what?"]


def test_a_sessions_folder_that_is_a_file_is_a_warning_and_the_prompt_still_runs(
    project: Project,
) -> None:
    folder = sessions_dir(str(project.root), str(project.home))
    os.makedirs(os.path.dirname(folder))
    with open(folder, "w"):  # a file where the sessions folder goes
        pass
    target = project.root / "out.txt"
    steps = [
        tool_calls([call("Write", {"file_path": str(target), "content": "x\n"})]),
        text("written"),
    ]
    project.settings(permissionMode="auto")
    with ScriptedServer(steps) as server:
        result = project.legato(server.url, "--headless", "write it")
    assert result.returncode == 0, result.stderr
    assert target.read_text() == "x\n"
    assert "Traceback" not in result.stderr
    # Said once, naming the file and what to do.
    assert result.stderr.count("Could not save this session to") == 1
    assert f"Make sure {folder} is a folder you can write to" in result.stderr
    assert "written" in result.stdout
