"""Hooks in real headless sessions: real bash and python hook scripts, configured in Claude
Code's format, around real calls to the scripted model server."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from typing import TYPE_CHECKING, Any

import pytest

from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls
from tests.frontends.conftest import REPO
from tests.tool_executor.harness import is_running

if TYPE_CHECKING:
    from pathlib import Path

    from frontends.demo.scripted_api import RecordedRequest, Step
    from tests.frontends.conftest import Project


def hook(command: str, matcher: str = "", timeout: float | None = None) -> dict[str, Any]:
    entry: dict[str, Any] = {"type": "command", "command": command}
    if timeout is not None:
        entry["timeout"] = timeout
    return {"matcher": matcher, "hooks": [entry]}


def script(project: Project, name: str, body: str) -> str:
    path = project.write(f"hooks/{name}", body)
    path.chmod(0o755)
    return str(path)


def results(request: RecordedRequest) -> list[dict[str, Any]]:
    content = request.body["messages"][-1]["content"]
    return [block for block in content if block.get("type") == "tool_result"]


def user_texts(request: RecordedRequest) -> list[str]:
    return [
        block["text"]
        for message in request.body["messages"]
        if message["role"] == "user" and isinstance(message["content"], list)
        for block in message["content"]
        if block.get("type") == "text"
    ]


def test_a_pre_tool_use_hook_blocks_a_command_with_exit_2(project: Project) -> None:
    guard = script(
        project,
        "guard.sh",
        "#!/bin/bash\n"
        "input=$(cat)\n"
        'if grep -q "push --force" <<<"$input"; then\n'
        '  echo "force pushes are not allowed here" >&2; exit 2\n'
        "fi\n",
    )
    ran = project.root / "ran"
    project.settings(
        permissionMode="custom",
        allowedCommands=["git", "touch"],
        hooks={"PreToolUse": [hook(guard, "Bash")]},
    )
    steps = [
        tool_calls(
            [
                call("Bash", {"command": f"git push --force origin main; touch {ran}"}),
                call("Bash", {"command": "touch ok"}),
            ]
        ),
        text("Blocked."),
    ]
    with ScriptedServer(steps) as server:
        done = project.legato(server.url, "--headless", "go")
        requests = server.requests
    assert done.returncode == 0, done.stderr
    blocked, allowed = results(requests[1])
    assert blocked["is_error"]
    assert (
        "A PreToolUse hook blocked this call: force pushes are not allowed here"
        in (blocked["content"])
    )
    assert not ran.exists()
    assert not allowed.get("is_error")
    assert (project.root / "ok").exists()


def test_a_json_deny_and_an_ask_that_headless_cannot_answer(project: Project) -> None:
    decide = script(
        project,
        "decide.py",
        f"#!{sys.executable}\n"
        "import json, sys\n"
        "event = json.load(sys.stdin)\n"
        "path = event['tool_input']['file_path']\n"
        "decision = 'deny' if path.endswith('a.txt') else 'ask'\n"
        "why = 'per policy ' + decision\n"
        "print(json.dumps({'hookSpecificOutput': {'hookEventName': 'PreToolUse',\n"
        "    'permissionDecision': decision, 'permissionDecisionReason': why}}))\n",
    )
    project.write("a.txt", "A")
    project.write("b.txt", "B")
    project.settings(permissionMode="auto", hooks={"PreToolUse": [hook(decide, "Read")]})
    steps = [
        tool_calls(
            [
                call("Read", {"file_path": str(project.root / "a.txt")}),
                call("Read", {"file_path": str(project.root / "b.txt")}),
            ]
        ),
        text("Done."),
    ]
    with ScriptedServer(steps) as server:
        done = project.legato(server.url, "--headless", "go", "--output-format", "json")
        requests = server.requests
    assert done.returncode == 0, done.stderr
    denied, asked = results(requests[1])
    assert "per policy deny" in denied["content"] and denied["is_error"]
    assert asked["is_error"]
    assert "a PreToolUse hook asks for a person (per policy ask)" in asked["content"]
    assert "B" not in asked["content"]


def test_updated_input_is_checked_against_the_rules_again(project: Project) -> None:
    swap = script(
        project,
        "swap.py",
        f"#!{sys.executable}\n"
        "import json, sys\n"
        "event = json.load(sys.stdin)\n"
        "target = event['cwd'] + '/' + event['tool_input']['file_path'].rsplit('/', 1)[1]\n"
        "new = dict(event['tool_input'], file_path=target.replace('notes', '.env'))\n"
        "print(json.dumps({'hookSpecificOutput': {'hookEventName': 'PreToolUse',\n"
        "    'permissionDecision': 'allow', 'updatedInput': new}}))\n",
    )
    project.write("notes.txt", "public notes")
    project.write(".env.txt", "SECRET=1")
    project.write("readme.txt", "read me")
    project.settings(
        permissionMode="auto",
        blockedPaths=[".env*"],
        hooks={"PreToolUse": [hook(swap, "Read")]},
    )
    steps = [
        tool_calls([call("Read", {"file_path": str(project.root / "notes.txt")})]),
        tool_calls([call("Read", {"file_path": str(project.root / "readme.txt")})]),
        text("Done."),
    ]
    with ScriptedServer(steps) as server:
        done = project.legato(server.url, "--headless", "go")
        requests = server.requests
    assert done.returncode == 0, done.stderr
    [swapped] = results(requests[1])
    assert swapped["is_error"]
    assert "SECRET" not in json.dumps([r.body for r in requests])
    [kept] = results(requests[2])
    assert "read me" in kept["content"]  # an input the hook leaves as it is runs


def test_post_tool_use_and_prompt_context_reach_the_model(project: Project) -> None:
    post = script(
        project,
        "post.sh",
        "#!/bin/bash\ncat >/dev/null\n"
        'echo \'{"decision": "block", "reason": "run the formatter next"}\'\n',
    )
    branch = script(project, "branch.sh", "#!/bin/bash\ncat >/dev/null\necho 'branch: feature/x'\n")
    project.write("a.txt", "A")
    project.settings(
        permissionMode="auto",
        hooks={
            "PostToolUse": [hook(post, "Read")],
            "UserPromptSubmit": [hook(branch)],
        },
    )
    steps = [
        tool_calls([call("Read", {"file_path": str(project.root / "a.txt")})]),
        text("Done."),
    ]
    with ScriptedServer(steps) as server:
        done = project.legato(server.url, "--headless", "go")
        requests = server.requests
    assert done.returncode == 0, done.stderr
    assert any("branch: feature/x" in t for t in user_texts(requests[0]))
    [read] = results(requests[1])
    assert "A PostToolUse hook says: run the formatter next" in read["content"]
    assert not read.get("is_error")


def test_a_prompt_refused_by_a_hook_sends_nothing(project: Project) -> None:
    refuse = script(
        project,
        "refuse.sh",
        "#!/bin/bash\ncat >/dev/null\necho 'no secrets in prompts' >&2\nexit 2\n",
    )
    project.settings(hooks={"UserPromptSubmit": [hook(refuse)]})
    with ScriptedServer([text("never")]) as server:
        done = project.legato(server.url, "--headless", "my password is hunter2")
        requests = server.requests
    assert requests == []
    assert done.returncode != 0
    assert "A UserPromptSubmit hook refused the prompt: no secrets in prompts" in done.stderr


def test_a_stop_hook_makes_the_model_go_on_once(project: Project, tmp_path: Path) -> None:
    seen = tmp_path / "stops"
    stop = script(
        project,
        "stop.py",
        f"#!{sys.executable}\n"
        "import json, sys\n"
        "event = json.load(sys.stdin)\n"
        f"open({str(seen)!r}, 'a').write(json.dumps(event) + '\\n')\n"
        "if not event['stop_hook_active']:\n"
        "    print(json.dumps({'decision': 'block', 'reason': 'the tests have not run'}))\n",
    )
    project.settings(hooks={"Stop": [hook(stop)]})
    with ScriptedServer([text("First."), text("Second.")]) as server:
        done = project.legato(server.url, "--headless", "go", "--output-format", "json")
        requests = server.requests
    assert done.returncode == 0, done.stderr
    assert len(requests) == 2
    assert "(A Stop hook asks you to go on: the tests have not run)" in user_texts(requests[1])
    assert json.loads(done.stdout)["result"] == "Second."
    events = [json.loads(line) for line in seen.read_text().splitlines()]
    assert [e["stop_hook_active"] for e in events] == [False, True]


def test_the_payload_has_the_documented_fields(project: Project, tmp_path: Path) -> None:
    record = tmp_path / "payloads"
    keep = script(project, "keep.sh", f"#!/bin/bash\ncat >> {record}\necho >> {record}\n")
    project.write("a.txt", "A")
    project.settings(
        permissionMode="auto",
        hooks={
            "PreToolUse": [hook(keep, "Read")],
            "PostToolUse": [hook(keep, "Re.*")],
            "UserPromptSubmit": [hook(keep)],
        },
    )
    steps = [
        tool_calls([call("Read", {"file_path": str(project.root / "a.txt")}, id="toolu_r")]),
        text("Done."),
    ]
    with ScriptedServer(steps) as server:
        done = project.legato(server.url, "--headless", "hello")
    assert done.returncode == 0, done.stderr
    prompt, pre, post = [json.loads(line) for line in record.read_text().split("\n") if line]
    common = {"session_id", "transcript_path", "cwd", "hook_event_name", "permission_mode"}
    assert set(prompt) == common | {"prompt"}
    assert prompt["hook_event_name"] == "UserPromptSubmit" and prompt["prompt"] == "hello"
    assert prompt["cwd"] == str(project.root)
    assert prompt["permission_mode"] == "acceptEdits"  # Claude Code's word for auto
    assert set(pre) == common | {"tool_name", "tool_input", "tool_use_id"}
    assert pre["tool_name"] == "Read" and pre["tool_use_id"] == "toolu_r"
    assert pre["tool_input"] == {"file_path": str(project.root / "a.txt")}
    assert set(post) == common | {"tool_name", "tool_input", "tool_response", "tool_use_id"}
    assert post["session_id"] == pre["session_id"] == prompt["session_id"]
    assert set(post["tool_response"]) == {"content"}
    assert "A" in post["tool_response"]["content"]


def test_a_hook_that_outlives_its_timeout_is_killed_and_the_session_goes_on(
    project: Project, tmp_path: Path
) -> None:
    pids = tmp_path / "pids"
    slow = script(
        project,
        "slow.sh",
        "#!/bin/bash\ncat >/dev/null\n"
        f"(trap '' TERM; exec sleep 300) & echo $! >> {pids}\n"
        "trap '' TERM; sleep 300\n",
    )
    project.write("a.txt", "A")
    project.settings(permissionMode="auto", hooks={"PostToolUse": [hook(slow, "Read", 0.5)]})
    steps = [
        tool_calls([call("Read", {"file_path": str(project.root / "a.txt")})]),
        text("Done."),
    ]
    # The hook ignores SIGTERM, so it is killed only once the grace after it is over: shortened
    # here, where how long the grace lasts changes nothing the test checks.
    start = (
        "import actors.process_groups as g; g.GRACE = 0.05; from frontends.cli import main; main()"
    )
    with ScriptedServer(steps) as server:
        done = subprocess.run(
            [sys.executable, "-c", start, str(project.root), "--headless", "go"],
            capture_output=True, text=True, cwd=REPO, env=project.env(server.url), timeout=60,
        )  # fmt: skip
        requests = server.requests
    assert done.returncode == 0, done.stderr
    [read] = results(requests[1])
    assert "A" in read["content"]  # the call's own result stands
    assert f"{slow}: timed out after" in done.stderr  # shown to the user, not the model
    children = [int(pid) for pid in pids.read_text().split()]
    assert not [pid for pid in children if is_running(pid)]


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGINT, 130), (signal.SIGTERM, 143)])
def test_a_signal_while_a_hook_runs_leaves_no_process(
    project: Project, tmp_path: Path, signum: signal.Signals, code: int
) -> None:
    pids = tmp_path / "pids"
    stuck = script(
        project,
        "stuck.sh",
        "#!/bin/bash\ncat >/dev/null\n"
        f"(trap '' TERM; exec sleep 301) & echo $! >> {pids}\n"
        f"echo $$ >> {pids}\n"
        "trap '' TERM; sleep 300\n",
    )
    project.settings(permissionMode="auto", hooks={"PreToolUse": [hook(stuck, "Read")]})
    project.write("a.txt", "A")
    step = tool_calls([call("Read", {"file_path": str(project.root / "a.txt")})])
    with ScriptedServer([step]) as server:
        process = project.start(server.url, "--headless", "go", "--output-format", "json")
        deadline = time.monotonic() + 30
        while (not pids.exists() or len(pids.read_text().split()) < 2) and (
            time.monotonic() < deadline
        ):
            time.sleep(0.02)
        children = [int(pid) for pid in pids.read_text().split()]
        process.send_signal(signum)
        out, err = process.communicate(timeout=15)
    assert process.returncode == code, err
    assert "Traceback" not in err
    assert json.loads(out)["subtype"] == "interrupted"
    deadline = time.monotonic() + 3
    while any(is_running(pid) for pid in children) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not [pid for pid in children if is_running(pid)]


def test_a_prompt_hook_can_stop_and_speak_to_the_user(project: Project) -> None:
    stop = script(
        project,
        "stop.sh",
        "#!/bin/bash\ncat >/dev/null\n"
        'echo \'{"continue": false, "stopReason": "the build is red", '
        '"systemMessage": "fix the build first"}\'\n',
    )
    project.settings(hooks={"UserPromptSubmit": [hook(stop)]})
    with ScriptedServer([text("never")]) as server:
        done = project.legato(server.url, "--headless", "go")
        requests = server.requests
    assert requests == []
    assert "A UserPromptSubmit hook stopped: the build is red" in done.stderr
    assert "fix the build first" in done.stderr


def test_stream_json_reports_each_hook_run(project: Project) -> None:
    say = script(project, "say.sh", "#!/bin/bash\ncat >/dev/null\necho checked\n")
    project.write("a.txt", "A")
    project.settings(permissionMode="auto", hooks={"PreToolUse": [hook(say, "Read")]})
    steps = [
        tool_calls([call("Read", {"file_path": str(project.root / "a.txt")})]),
        text("Done."),
    ]
    with ScriptedServer(steps) as server:
        done = project.legato(server.url, "--headless", "go", "--output-format", "stream-json")
    assert done.returncode == 0, done.stderr
    lines = [json.loads(line) for line in done.stdout.splitlines()]
    hooks = [line for line in lines if line.get("subtype", "").startswith("hook_")]
    started, response = hooks
    assert started.pop("uuid") != response["uuid"]
    assert started == {
        "type": "system",
        "subtype": "hook_started",
        "hook_id": started["hook_id"],
        "hook_name": "PreToolUse:Read",
        "hook_event": "PreToolUse",
        "session_id": started["session_id"],
        "parent_tool_use_id": None,
    }
    assert response["subtype"] == "hook_response"
    assert response["hook_id"] == started["hook_id"]
    assert (response["exit_code"], response["outcome"]) == (0, "success")
    assert response["stdout"].strip() == "checked"
    # The hook ran within the call it checked: after its start, before its result.
    order = [line.get("subtype") or line["type"] for line in lines]
    assert order.index("tool_started") < order.index("hook_started")
    assert order.index("hook_response") < order.index("user")


def test_a_tool_hook_that_says_stop_ends_the_prompt_after_the_turn(project: Project) -> None:
    enough = script(
        project,
        "enough.sh",
        "#!/bin/bash\ncat >/dev/null\n"
        'echo \'{"continue": false, "stopReason": "enough for now"}\'\n',
    )
    project.write("a.txt", "A")
    project.settings(permissionMode="auto", hooks={"PostToolUse": [hook(enough, "Read")]})
    steps = [
        tool_calls([call("Read", {"file_path": str(project.root / "a.txt")})]),
        text("never asked for"),
    ]
    with ScriptedServer(steps) as server:
        done = project.legato(server.url, "--headless", "go", "--output-format", "json")
        requests = server.requests
    assert done.returncode == 0, done.stderr
    assert len(requests) == 1  # the model was not asked again
    assert "A hook stopped the work: enough for now" in done.stderr
    assert json.loads(done.stdout)["subtype"] == "success"


def test_a_subagent_stop_hook_makes_the_agent_go_on_once(project: Project) -> None:
    stop = script(
        project,
        "agent_stop.py",
        f"#!{sys.executable}\n"
        "import json, sys\n"
        "event = json.load(sys.stdin)\n"
        "assert event['hook_event_name'] == 'SubagentStop'\n"
        "if not event['stop_hook_active']:\n"
        "    print(json.dumps({'decision': 'block', 'reason': 'check your work'}))\n",
    )
    project.settings(hooks={"SubagentStop": [hook(stop)]})
    agent = {"description": "job", "prompt": "task one", "subagent_type": "general-purpose"}

    def model(request: RecordedRequest) -> Step:
        messages = request.body["messages"]
        if messages[0]["content"][0]["text"] == "task one":
            told = any("check your work" in t for t in user_texts(request))
            return text("checked answer" if told else "first answer")
        if len(messages) == 1:
            return tool_calls([call("Agent", agent)])
        return text("Done.")

    with ScriptedServer(model) as server:
        done = project.legato(server.url, "--headless", "go")
        requests = server.requests
    assert done.returncode == 0, done.stderr
    [result] = results(requests[-1])
    assert "checked answer" in json.dumps(result["content"])
    assert "first answer" not in json.dumps(result["content"])


def test_the_format_hook_reads_the_written_files_path_as_scripts_expect(
    project: Project, tmp_path: Path
) -> None:
    record = tmp_path / "formatted"
    # Claude Code's common recipe: `jq -r '.tool_response.filePath // .tool_input.file_path'`.
    fmt = script(
        project,
        "fmt.py",
        f"#!{sys.executable}\n"
        "import json, sys\n"
        "event = json.load(sys.stdin)\n"
        f"open({str(record)!r}, 'a').write(json.dumps(event['tool_response']) + '\\n')\n",
    )
    target = project.root / "new.py"
    project.settings(permissionMode="auto", hooks={"PostToolUse": [hook(fmt, "Edit|Write")]})
    steps = [
        tool_calls([call("Write", {"file_path": str(target), "content": "x = 1\n"})]),
        tool_calls([call("Bash", {"command": "echo out"})]),
        text("Done."),
    ]
    with ScriptedServer(steps) as server:
        done = project.legato(server.url, "--headless", "go")
    assert done.returncode == 0, done.stderr
    [written] = [json.loads(line) for line in record.read_text().splitlines()]
    assert written["filePath"] == str(target)
    assert written["success"] is True


def test_a_tool_hook_that_says_stop_ends_a_subagent_after_the_tool(project: Project) -> None:
    enough = script(
        project,
        "enough.sh",
        "#!/bin/bash\ncat >/dev/null\n"
        'echo \'{"continue": false, "stopReason": "enough for now"}\'\n',
    )
    project.write("a.txt", "A")
    project.settings(permissionMode="auto", hooks={"PostToolUse": [hook(enough, "Read")]})
    agent = {"description": "job", "prompt": "task one", "subagent_type": "general-purpose"}
    asked: list[int] = []

    def model(request: RecordedRequest) -> Step:
        messages = request.body["messages"]
        if messages[0]["content"][0]["text"] == "task one":
            asked.append(len(messages))
            if len(messages) == 1:
                return tool_calls([call("Read", {"file_path": str(project.root / "a.txt")})])
            return text("never asked for")
        if len(messages) == 1:
            return tool_calls([call("Agent", agent)])
        return text("Done.")

    with ScriptedServer(model) as server:
        done = project.legato(server.url, "--headless", "go", "--output-format", "json")
        requests = server.requests
    assert done.returncode == 0, done.stderr
    assert asked == [1]  # the agent's model was not asked again after the tool
    assert "A hook stopped the agent 'general-purpose': enough for now" in done.stderr
    [result] = results(requests[-1])
    said = json.dumps(result["content"])
    assert "stopped by a hook: enough for now" in said
    assert "never asked for" not in said
    assert result.get("is_error") is True
    # The main conversation goes on: the agent's stop is its own.
    assert json.loads(done.stdout)["result"] == "Done."
