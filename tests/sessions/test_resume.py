"""Real ``legato`` processes: a session killed with SIGKILL resumes with --continue, and
``--continue --headless "/undo"`` puts back what its last prompt changed."""

from __future__ import annotations

import io
import json
import os
import shutil
import signal
import subprocess
import sys
import threading
from typing import TYPE_CHECKING, Any

from actors.places import sessions_dir
from actors.session_store import session_path
from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls
from frontends.startup.resume import chosen_session
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
    tokens = {"input_tokens": 1200, "output_tokens": 34}
    uncached = {"cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}
    answer = text("first answer", usage={**tokens, **uncached})
    with ScriptedServer([answer]) as server:
        first = project.legato(server.url, "--headless", "remember 42", "--output-format", "json")
    session_id = json.loads(first.stdout)["session_id"]
    with ScriptedServer([]) as server:
        bare = project.legato(server.url, "--resume", "--headless", "hi")
    assert bare.returncode == 2
    # The start of the id (what --resume takes), the size, the first prompt.
    row = bare.stderr.splitlines()[1]
    assert row.startswith(f"  1. {session_id[:8]}  ")
    assert row.endswith("  2 messages  1,234 tokens  remember 42")
    with ScriptedServer([text("42")]) as server:
        resumed = project.legato(server.url, "--resume", session_id, "--headless", "what?")
        body = server.requests[0].body
    assert resumed.returncode == 0, resumed.stderr
    assert texts(body) == ["remember 42", "first answer", "what?"]


def test_resume_takes_the_start_of_an_id_when_it_names_one_session(project: Project) -> None:
    with ScriptedServer([text("first answer")]) as server:
        first = project.legato(server.url, "--headless", "remember 42", "--output-format", "json")
    saved = session_path(
        str(project.root), str(project.home), json.loads(first.stdout)["session_id"]
    )
    # Two sessions whose ids begin alike: copies of the one just saved, under chosen ids.
    folder = os.path.dirname(saved)
    alike = ["abcd1111-0000-4000-8000-000000000001", "abcd2222-0000-4000-8000-000000000002"]
    for name in alike:
        shutil.copy(saved, os.path.join(folder, f"{name}.jsonl"))

    with ScriptedServer([]) as server:
        ambiguous = project.legato(server.url, "--resume", "abcd", "--headless", "hi")
    assert ambiguous.returncode == 2
    assert "'abcd' begins the ids of 2 saved sessions" in ambiguous.stderr
    assert all(name in ambiguous.stderr for name in alike)  # whole, to tell them apart
    assert "→ Give --resume more of the id" in ambiguous.stderr

    with ScriptedServer([]) as server:
        unknown = project.legato(server.url, "--resume", "abce", "--headless", "hi")
    assert unknown.returncode == 2
    assert f"no saved session for {project.root} whose id starts with 'abce'" in unknown.stderr
    assert "→ Run 'legato --resume' without an id to pick one" in unknown.stderr

    with ScriptedServer([text("42")]) as server:
        resumed = project.legato(
            server.url, "--resume", "abcd2", "--headless", "what?", "--output-format", "json"
        )
        body = server.requests[0].body
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads(resumed.stdout)["session_id"] == alike[1]
    assert texts(body) == ["remember 42", "first answer", "what?"]
    # The prompt went on in the session named, not in the other one alike.
    with open(os.path.join(folder, f"{alike[0]}.jsonl")) as other, open(saved) as original:
        assert other.read() == original.read()


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


def test_the_picker_leaves_a_once_only_note_for_the_session_to_show(project: Project) -> None:
    with ScriptedServer([text("first answer")]) as server:
        first = project.legato(server.url, "--headless", "hi")
    assert first.returncode == 0, first.stderr
    # An entry whose meaning changed: its note is given once, by whoever shows it.
    project.settings(allowedPaths=["*.md"])
    note = "'*.md' now matches at any depth"
    with ScriptedServer([text("second answer")]) as server:
        resumed = project.legato(server.url, "--continue", "--headless", "again")
    assert resumed.returncode == 0, resumed.stderr
    assert resumed.stderr.count(note) == 1  # listing the sessions did not spend it
    with ScriptedServer([text("third answer")]) as server:
        again = project.legato(server.url, "--continue", "--headless", "and again")
    assert note not in again.stderr


def test_continue_with_a_broken_settings_file_says_so_as_a_session_would(
    project: Project,
) -> None:
    with ScriptedServer([text("first answer")]) as server:
        project.legato(server.url, "--headless", "hi")
    project.write(".legato/settings.json", "{not json")
    with ScriptedServer([]) as server:
        resumed = project.legato(server.url, "--continue", "--headless", "again")
        assert server.requests == []
    assert resumed.returncode == 2
    assert resumed.stderr.startswith("legato: ") and "settings.json" in resumed.stderr
    assert "Traceback" not in resumed.stderr


def test_the_picker_lists_the_sessions_and_takes_the_one_picked(project: Project) -> None:
    ids = []
    for prompt in ("older task", "newer task"):
        with ScriptedServer([text("done")]) as server:
            done = project.legato(server.url, "--headless", prompt, "--output-format", "json")
        ids.append(json.loads(done.stdout)["session_id"])
    shown = io.StringIO()
    answers = iter(["x", "2"])  # "x" begins no id (ids are hex): a wrong answer
    chosen = chosen_session(
        project_root=str(project.root),
        continue_latest=False,
        resume="",
        interactive=True,
        home=str(project.home),
        ask=lambda _: next(answers),
        out=shown,
    )
    assert chosen == ids[0]
    lines = shown.getvalue().splitlines()
    assert lines[0] == "Saved sessions, latest first:"
    assert ids[1][:8] in lines[1] and "newer task" in lines[1]
    assert ids[0][:8] in lines[2] and "older task" in lines[2]
    assert lines[3] == "'x' is not one of the numbers 1-2 or a listed id"


def test_session_id_names_the_new_session_and_only_a_new_one(project: Project) -> None:
    chosen = "3F2B6C1E-8D4A-4B7E-9C10-5A6B7C8D9E0F"  # upper case, as some tools print one
    with ScriptedServer([text("First."), text("Second.")]) as server:
        first = project.legato(server.url, "--headless", "hi", "--session-id", chosen)
        assert first.returncode == 0, first.stderr
        saved = session_path(str(project.root), str(project.home), chosen.lower())
        assert os.path.exists(saved)
        again = project.legato(server.url, "--headless", "hi", "--session-id", chosen.lower())
        assert again.returncode == 2
        assert f"session id {chosen.lower()} is already in use in this project" in again.stderr
        assert f"legato --resume {chosen.lower()}" in again.stderr
        resumed = project.legato(server.url, "--headless", "and?", "--resume", chosen.lower())
        assert resumed.returncode == 0, resumed.stderr
        assert texts(server.requests[-1].body)[:2] == ["hi", "First."]
        bad = project.legato(server.url, "--headless", "hi", "--session-id", "../../escape")
    assert bad.returncode == 2
    assert "--session-id takes a UUID, not '../../escape'" in bad.stderr
    assert sorted(os.listdir(os.path.dirname(saved))) == [f"{chosen.lower()}.jsonl"]
