"""Headless sessions end to end: a real `legato` process, the real actors, the scripted server."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest

from frontends.demo.scripted_api import ScriptedServer, call, error, text, tool_calls

if TYPE_CHECKING:
    from tests.frontends.conftest import Project


def last_user_blocks(body: dict[str, Any]) -> list[dict[str, Any]]:
    message = body["messages"][-1]
    assert message["role"] == "user"
    content = message["content"]
    assert isinstance(content, list)
    return content


def test_a_multi_file_rename_runs_to_the_end(project: Project) -> None:
    a = project.write("src/a.py", "def old_name():\n    return 1\n")
    b = project.write("src/b.py", "from a import old_name\n\nprint(old_name())\n")
    project.settings(permissionMode="custom", allowedPaths=["src/**"])
    rename = {"old_string": "old_name", "new_string": "new_name"}
    steps = [
        tool_calls(
            [call("Read", {"file_path": str(a)}), call("Read", {"file_path": str(b)})],
            text="Reading both files.",
        ),
        tool_calls(
            [
                call("Edit", {"file_path": str(a), **rename}),
                call("Edit", {"file_path": str(b), **rename, "replace_all": True}),
            ]
        ),
        text("Renamed old_name to new_name in 2 files."),
    ]
    with ScriptedServer(steps) as server:
        done = project.legato(
            server.url, "--headless", "rename old_name", "--output-format", "json"
        )
        requests = server.requests
    assert done.returncode == 0, done.stderr
    assert a.read_text() == "def new_name():\n    return 1\n"
    assert b.read_text() == "from a import new_name\n\nprint(new_name())\n"
    result = json.loads(done.stdout)
    assert result["type"] == "result"
    assert result["subtype"] == "success"
    assert result["is_error"] is False
    assert result["result"] == "Renamed old_name to new_name in 2 files."
    assert result["num_turns"] == 3
    assert result["permission_denials"] == []
    assert result["usage"]["output_tokens"] > 0
    assert result["total_cost_usd"] > 0
    # Both results of a turn went back in one user message, in the calls' order.
    second = last_user_blocks(requests[1].body)
    assert [blk["type"] for blk in second] == ["tool_result", "tool_result"]
    assert "old_name" in second[0]["content"]
    third = last_user_blocks(requests[2].body)
    assert all(not blk.get("is_error") for blk in third)


def test_headless_denies_what_would_need_a_prompt_and_says_so(project: Project) -> None:
    steps = [
        tool_calls([call("Bash", {"command": "touch made-by-bash"}, id="toolu_1")]),
        text("I could not run the command."),
    ]
    with ScriptedServer(steps) as server:
        done = project.legato(server.url, "--headless", "touch a file", "--output-format", "json")
        requests = server.requests
    assert done.returncode == 0, done.stderr
    assert not (project.root / "made-by-bash").exists()
    result = json.loads(done.stdout)
    assert result["permission_denials"] == [
        {
            "tool_name": "Bash",
            "tool_use_id": "toolu_1",
            "tool_input": {"command": "touch made-by-bash"},
        }
    ]
    told = last_user_blocks(requests[1].body)[0]
    assert told["is_error"] is True
    assert "Permission denied" in told["content"]


def test_text_output_streams_the_answer_to_stdout_and_tools_to_stderr(project: Project) -> None:
    project.settings(permissionMode="custom", allowedCommands=["echo"])
    steps = [
        tool_calls([call("Bash", {"command": "echo hi"})], text="Let me check."),
        text("All good: the command said hi."),
    ]
    with ScriptedServer(steps) as server:
        done = project.legato(server.url, "--headless", "check")
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Let me check.\nAll good: the command said hi.\n"
    assert "Bash(echo hi)" in done.stderr


def test_stream_json_is_ndjson_ending_with_the_result(project: Project) -> None:
    project.settings(permissionMode="custom", allowedCommands=["echo"])
    steps = [
        tool_calls([call("Bash", {"command": "echo hi"})]),
        text("Done and dusted", chunk_words=1, delay=0.02),
    ]
    with ScriptedServer(steps) as server:
        done = project.legato(
            server.url,
            "--headless", "go", "--output-format", "stream-json", "--include-partial-messages",
        )  # fmt: skip
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    kinds = [e["type"] for e in events]
    assert kinds[-1] == "result"
    assert kinds.count("assistant") == 2
    assert "user" in kinds
    deltas = [
        e["event"]["delta"]["text"]
        for e in events
        if e["type"] == "stream_event" and e["event"]["type"] == "content_block_delta"
        and e["event"]["delta"]["type"] == "text_delta"
    ]  # fmt: skip
    assert len(deltas) >= 3  # streamed in pieces, not in one lump
    assert "".join(deltas) == "Done and dusted"
    assert all(e["session_id"] == events[-1]["session_id"] for e in events)
    assert len({e["uuid"] for e in events}) == len(events)
    assert kinds[0] == "system" and events[0]["subtype"] == "init"
    finished = [e for e in events if e["type"] == "assistant"]
    assert finished[-1]["message"]["model"] == "claude-sonnet-4-6"
    assert finished[-1]["message"]["id"].startswith("msg_")
    assert events[-1]["stop_reason"] == "end_turn"
    assert events[-1]["modelUsage"]["claude-sonnet-4-6"]["outputTokens"] > 0


def test_a_broken_agent_file_is_warned_of_after_the_init_line(project: Project) -> None:
    project.write(".legato/agents/bad.md", "---\nname: bad\nmodel: nosuchmodel\n---\nHi.\n")
    with ScriptedServer([text("Done.")]) as server:
        done = project.legato(server.url, "--headless", "go", "--output-format", "stream-json")
    assert done.returncode == 0, done.stderr
    events = [json.loads(line) for line in done.stdout.splitlines()]
    assert (events[0]["type"], events[0]["subtype"]) == ("system", "init")
    notices = [e["text"] for e in events if e.get("subtype") == "notice"]
    assert len(notices) == 1 and notices[0].startswith("Skipped agent file that could not be read")
    assert "bad.md:1: field 'description'" in notices[0]


def test_stream_json_has_no_stream_events_unless_asked(project: Project) -> None:
    with ScriptedServer([text("Done and dusted", chunk_words=1)]) as server:
        done = project.legato(server.url, "--headless", "go", "--output-format", "stream-json")
    assert done.returncode == 0, done.stderr
    kinds = [json.loads(line)["type"] for line in done.stdout.splitlines()]
    assert kinds == ["system", "assistant", "result"]


def test_an_invalid_key_exits_1_with_the_remedy_and_never_prints_the_key(project: Project) -> None:
    with ScriptedServer([text("never")], api_key="right-key") as server:
        done = project.legato(server.url, "--headless", "hi", key="wrong-key-12345")
    assert done.returncode == 1
    assert "echo $ASSISTANT_API_KEY" in done.stderr
    assert "wrong-key-12345" not in done.stderr + done.stdout
    assert "Traceback" not in done.stderr


def test_a_server_that_keeps_failing_is_reported_after_the_retries(project: Project) -> None:
    busy = error(status=529, error_type="overloaded_error", message="Overloaded", retry_after=0.01)
    with ScriptedServer([busy, busy, busy]) as server:
        done = project.legato(server.url, "--headless", "hi", "--output-format", "json")
        assert len(server.requests) == 3  # the first try and two retries
    assert done.returncode == 1
    result = json.loads(done.stdout)
    assert result["is_error"] is True
    assert result["subtype"] == "error_during_execution"
    assert "Overloaded" in result["error"]


def test_a_malformed_settings_file_stops_the_run_with_file_and_line(project: Project) -> None:
    project.write(
        ".legato/settings.json", '{\n  "permissionMode": "custom",\n  "allowedPaths": [\n}\n'
    )
    with ScriptedServer([]) as server:
        done = project.legato(server.url, "--headless", "hi")
        assert server.requests == []  # nothing was sent
    assert done.returncode == 2
    assert "settings.json:4" in done.stderr
    assert "Traceback" not in done.stderr


def test_max_turns_stops_a_model_that_never_ends(project: Project) -> None:
    project.settings(permissionMode="custom", allowedCommands=["true"])
    steps = [tool_calls([call("Bash", {"command": "true"})]) for _ in range(3)]
    with ScriptedServer(steps) as server:
        done = project.legato(
            server.url, "--headless", "loop", "--max-turns", "2", "--output-format", "json"
        )
    assert done.returncode == 1
    result = json.loads(done.stdout)
    assert result["subtype"] == "error_max_turns"
    assert result["num_turns"] == 2


@pytest.mark.parametrize("proxied", [False, True], ids=["direct", "behind-a-proxy"])
def test_the_demo_runs_offline(proxied: bool) -> None:
    import os
    import socket
    import subprocess
    import sys

    from tests.frontends.conftest import REPO

    env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
    if proxied:
        # A proxy that is not there: the demo's loopback server must be reached directly.
        with socket.socket() as sock:
            sock.bind(("127.0.0.1", 0))
            dead = f"http://127.0.0.1:{sock.getsockname()[1]}"
        env.update(HTTP_PROXY=dead, HTTPS_PROXY=dead, ALL_PROXY=dead)
    done = subprocess.run(
        # Behind the proxy, as CI runs it; directly, as the README's first command runs it in
        # a fresh clone without a terminal: the headless demo, saying why.
        [sys.executable, "-c", "from frontends.cli import main; main()", "--demo",
         *(["--headless"] if proxied else [])],
        capture_output=True, text=True, cwd=REPO, timeout=60, env=env, stdin=subprocess.DEVNULL,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "demo" in done.stderr.lower()
    assert ("no terminal here" in done.stderr) is not proxied, done.stderr
    assert "greet.py now greets" in done.stdout


def test_a_reader_that_stops_reading_ends_the_run_cleanly(project: Project) -> None:
    import subprocess
    import sys

    from tests.frontends.conftest import REPO

    answer = "\n".join(f"line {i}" for i in range(50_000))
    with ScriptedServer([text(answer, delay=0.0)]) as server:
        process = subprocess.Popen(
            [
                sys.executable, "-c", "from frontends.cli import main; main()",
                str(project.root), "--headless", "talk",
            ],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=REPO, env=project.env(server.url),
        )  # fmt: skip
        assert process.stdout is not None and process.stderr is not None
        assert process.stdout.read(7) == b"line 0\n"
        process.stdout.close()  # `legato ... | head -1`
        err = process.stderr.read().decode()
        process.stderr.close()
        process.wait(timeout=30)
    assert process.returncode == 141  # as a shell reports a writer stopped by SIGPIPE
    assert "stdout was closed" in err
    assert "Traceback" not in err


def test_a_reader_that_never_reads_does_not_stop_ctrl_c(project: Project) -> None:
    """Output waits for its reader in a worker thread: the session itself never blocks on it."""
    import os
    import signal
    import subprocess
    import sys
    import time

    from tests.frontends.conftest import REPO

    def writing_to_a_full_pipe(pid: int) -> bool:
        """Whether a thread of ``pid`` waits in the kernel's pipe write (``anon_pipe_write``
        or ``pipe_write``, by kernel version): the pipe is full and nobody reads it."""
        try:
            threads = os.listdir(f"/proc/{pid}/task")
        except FileNotFoundError:
            return False  # gone: the caller's check of the process says how
        for thread in threads:
            try:
                with open(f"/proc/{pid}/task/{thread}/wchan") as wchan:
                    if wchan.read().endswith("pipe_write"):
                        return True
            except FileNotFoundError:
                continue  # a thread that just ended
        return False

    answer = "\n".join(f"line {i}" for i in range(100_000))  # far more than a pipe holds
    with ScriptedServer([text(answer, delay=0.0)]) as server:
        process = subprocess.Popen(
            [
                sys.executable, "-c", "from frontends.cli import main; main()",
                str(project.root), "--headless", "talk",
            ],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=REPO, env=project.env(server.url),
        )  # fmt: skip
        assert process.stdout is not None and process.stderr is not None
        # Nobody reads stdout: Ctrl-C comes once the answer has filled the pipe and a write
        # waits for a reader. (There is no event for that to wait on: polled.)
        deadline = time.monotonic() + 20
        while not writing_to_a_full_pipe(process.pid):
            assert process.poll() is None and time.monotonic() < deadline
            time.sleep(0.01)
        process.send_signal(signal.SIGINT)
        try:
            process.wait(timeout=5)  # still without reading stdout
        finally:
            process.kill()
            err = process.stderr.read().decode()
            process.stdout.close()
            process.stderr.close()
    assert process.returncode == 130
    assert "stopped by SIGINT" in err


def test_text_output_names_each_calls_file_inside_the_project_relative_to_it(
    project: Project,
) -> None:
    source = project.write("src/x.py", "a = 1\nb = 2\n")
    project.settings(permissionMode="custom", allowedPaths=["src/**"])
    steps = [
        tool_calls(
            [
                call("Read", {"file_path": str(source)}),
                # No new_string: the input is refused before anything runs.
                call("Edit", {"file_path": "src/x.py", "old_string": "a = 1"}),
            ]
        ),
        tool_calls(
            [call("Edit", {"file_path": str(source), "old_string": "a", "new_string": "z"})]
        ),
        text("Done."),
    ]
    with ScriptedServer(steps) as server:
        done = project.legato(server.url, "--headless", "fix it")
    assert done.returncode == 0, done.stderr
    notes = done.stderr.splitlines()
    assert "⏺ Read(src/x.py)" in notes
    assert "⏺ Edit(src/x.py)" in notes
    assert any(line.startswith("  ⎿ ✓ Read(src/x.py) ") for line in notes), notes
    assert any(line.endswith(": 1 a = 1 (+1 line)") for line in notes), notes
    assert any(line.startswith("  ⎿ ✗ Edit(src/x.py) ") for line in notes), notes
    assert any(line.endswith("s: Edited src/x.py: replaced 1 occurrence of old_string.")
               for line in notes), notes  # fmt: skip
    assert str(project.root) not in done.stderr


@pytest.mark.parametrize(
    ("given", "sent"),
    [
        ("OPUS", "claude-opus-4-6"),
        ("Sonnet", "claude-sonnet-4-6"),
        ("Claude-Opus-4-6", "claude-opus-4-6"),
        ("claude-haiku-4-5", "claude-haiku-4-5-20251001"),  # the one dated id it names
    ],
)
def test_model_names_are_taken_in_any_case(project: Project, given: str, sent: str) -> None:
    with ScriptedServer([text("Hi.")]) as server:
        done = project.legato(server.url, "--model", given, "--headless", "hi")
        requests = server.requests
    assert done.returncode == 0, done.stderr
    assert requests[0].body["model"] == sent


def test_a_session_command_with_words_it_does_not_take_says_so(project: Project) -> None:
    # Not "/undo is not a skill": the person named a command there is, with words too many.
    done = project.legato("http://127.0.0.1:9", "-p", "/undo now")
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "legato: /undo takes nothing after it, not 'now'",
        '  → Run legato --continue --headless "/undo"',
    ]
