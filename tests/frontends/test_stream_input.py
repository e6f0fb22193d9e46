"""``--input-format stream-json`` spoken by hand, line by line: what a program that is not the
SDK, or a broken one, gets for each kind of input (docs/headless.md)."""

from __future__ import annotations

import base64
import io
import json
import signal
import subprocess
import sys
import time
from typing import TYPE_CHECKING, Any

from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls
from tests.frontends.conftest import REPO

if TYPE_CHECKING:
    from tests.frontends.conftest import Project

STREAM = ["--input-format", "stream-json", "--output-format", "stream-json"]


def user(content: Any) -> str:
    return json.dumps({"type": "user", "message": {"role": "user", "content": content}})


def control(request_id: str, **body: Any) -> str:
    return json.dumps({"type": "control_request", "request_id": request_id, "request": body})


def run(
    project: Project, url: str, lines: list[str], *flags: str, env: dict[str, str] | None = None
) -> tuple[int, list[dict[str, Any]], str]:
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from frontends.cli import main; main()",
            str(project.root),
            *STREAM,
            *flags,
        ],
        input="".join(line + "\n" for line in lines),
        capture_output=True,
        text=True,
        cwd=REPO,
        env={**project.env(url), **(env or {})},
        timeout=60,
    )
    return done.returncode, [json.loads(line) for line in done.stdout.splitlines()], done.stderr


def test_bad_lines_are_answered_and_skipped_and_the_prompt_still_runs(project: Project) -> None:
    lines = [
        "this is not json",
        "[1, 2]",
        json.dumps({"type": "telepathy"}),
        user([{"type": "image", "source": {}}]),
        control("r1", subtype="teleport", user_message_id="x"),
        json.dumps({"type": "control_request", "request": {"subtype": "interrupt"}}),
        control("r2", subtype="initialize", hooks=None),
        json.dumps({"type": "control_response", "response": {"request_id": "nobody"}}),
        user([{"type": "text", "text": "hello"}, {"type": "image", "source": {}}]),
    ]
    with ScriptedServer([text("Hello back.")]) as server:
        code, out, err = run(project, server.url, lines)
        requests = server.requests
    assert code == 0, err
    assert "Traceback" not in err
    notices = [line["text"] for line in out if line.get("subtype") == "notice"]
    assert any(n.startswith("input line skipped: not JSON") for n in notices)
    assert any("not a JSON object: [1, 2]" in n for n in notices)
    assert any("'telepathy' skipped" in n for n in notices)
    assert any(n.startswith("user message skipped") for n in notices)
    assert any("the image block 2 was left out: its source type" in n for n in notices)
    errors = {
        line["response"]["request_id"]: line["response"]["error"]
        for line in out
        if line["type"] == "control_response" and line["response"]["subtype"] == "error"
    }
    assert "does not support the control request 'teleport'" in errors["r1"]
    assert "request_id" in errors["None"]
    assert "initialize must be the first message" in errors["r2"]
    assert out[-1]["type"] == "result" and out[-1]["result"] == "Hello back."
    assert len(requests) == 1
    assert "hello" in json.dumps(requests[0].body["messages"])


def image_block(data: bytes, media_type: str = "image/png") -> dict[str, Any]:
    source = {"type": "base64", "media_type": media_type, "data": base64.b64encode(data).decode()}
    return {"type": "image", "source": source}


def picture(kind: str, size: tuple[int, int], mode: str = "RGB") -> bytes:
    from PIL import Image

    out = io.BytesIO()
    Image.new(mode, size).save(out, format=kind)
    return out.getvalue()


def test_image_blocks_reach_the_model_after_the_text_and_bad_ones_are_named(
    project: Project,
) -> None:
    good = picture("PNG", (40, 30))
    bomb = picture("PNG", (10_000, 6_000), mode="1")  # 60 megapixels in a few kilobytes
    lines = [
        user(
            [
                {"type": "text", "text": "what is in these?"},
                image_block(good),
                {"type": "image", "source": {"type": "base64", "data": "%%% not base64"}},
                image_block(bomb),
                image_block(picture("BMP", (4, 4)), "image/bmp"),
                {"type": "image", "source": {"type": "url", "url": "file:///etc/passwd"}},
            ]
        ),
        user([image_block(good)]),  # an image alone is a prompt
    ]
    with ScriptedServer([text("a black box"), text("the same box")]) as server:
        code, out, err = run(project, server.url, lines, env={"ASSISTANT_LOG": "debug"})
        requests = server.requests
    assert code == 0, err
    assert "Traceback" not in err
    notices = [line["text"] for line in out if line.get("subtype") == "notice"]
    assert any(
        "image block 3 was left out: its 'source.data' is not valid base64" in n for n in notices
    )
    assert any("image block 4" in n and "megapixels" in n for n in notices)
    assert any("image block 5" in n and "BMP" in n for n in notices)
    assert any(
        "image block 6 was left out: its 'source.url' must be an http(s)" in n for n in notices
    )
    first = requests[0].body["messages"][0]["content"]
    assert [b["type"] for b in first] == ["text", "image"]
    assert first[0]["text"] == "what is in these?"
    assert base64.b64decode(first[1]["source"]["data"]) == good
    last = requests[1].body["messages"][-1]["content"]
    assert [b["type"] for b in last] == ["image"]
    # Nothing echoes the image's data back to the program, nor writes it to the debug log.
    data = base64.b64encode(good).decode()
    assert data not in json.dumps(out)
    logs = list((project.home / ".legato" / "logs").iterdir())
    assert logs and not any(data in log.read_text() for log in logs)


def test_initialize_first_is_answered_and_end_of_input_finishes_the_queue(
    project: Project,
) -> None:
    lines = [control("init", subtype="initialize", hooks=None), user("one"), user("two")]
    with ScriptedServer([text("first"), text("second")]) as server:
        code, out, err = run(project, server.url, lines)
    assert code == 0, err
    assert out[0]["type"] == "control_response"
    assert out[0]["response"]["request_id"] == "init"
    assert out[0]["response"]["response"]["hooks_applied"] is True
    init = out[1]
    assert (init["type"], init["subtype"]) == ("system", "init")
    assert init["protocol_version"] == 1
    results = [line for line in out if line["type"] == "result"]
    assert [r["result"] for r in results] == ["first", "second"]


def test_a_failed_last_prompt_exits_1(project: Project) -> None:
    steps = [tool_calls([call("Glob", {"pattern": "*"})])]
    with ScriptedServer(steps) as server:
        code, out, _ = run(project, server.url, [user("look")], "--max-turns", "1")
    assert code == 1
    assert out[-1]["subtype"] == "error_max_turns"
    assert out[-1]["errors"] == ["stopped after 1 turn (--max-turns)"]


def test_flags_of_a_newer_sdk_are_named_not_fatal_when_the_sdk_started_us(
    project: Project,
) -> None:
    flags = ["--future-option", "value", "--other-future-switch", "--betas", "x"]
    with ScriptedServer([text("ok")]) as server:
        code, out, err = run(
            project, server.url, [user("hi")], *flags, env={"CLAUDE_CODE_ENTRYPOINT": "sdk-py"}
        )
        assert code == 0, err
        assert "flags this release does not know were ignored: --future-option" in err
        assert out[0]["unsupported_options"] == [
            "--betas", "--future-option", "--other-future-switch"
        ]  # fmt: skip
        refused, _, err = run(project, server.url, [user("hi")], *flags)
    assert refused == 2
    assert "Legato has no flag --future-option" in err


def test_stream_input_needs_stream_output(project: Project) -> None:
    done = subprocess.run(
        [sys.executable, "-c", "from frontends.cli import main; main()", str(project.root),
         "--input-format", "stream-json"],
        capture_output=True, text=True, cwd=REPO, env=project.env("http://127.0.0.1:9"), timeout=30,
    )  # fmt: skip
    assert done.returncode == 2
    assert "needs --output-format stream-json" in done.stderr


def test_a_reader_that_stops_reading_never_holds_up_a_signal(project: Project) -> None:
    words = " ".join(["word"] * 60_000)
    with ScriptedServer([text(words, chunk_words=1)]) as server:
        process = _start(project, server.url)
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write((user("talk a lot") + "\n").encode())
        process.stdin.flush()
        deadline = time.monotonic() + 30
        while not server.requests:  # the answer is streaming; stdout is never read
            assert time.monotonic() < deadline
            time.sleep(0.02)
        time.sleep(0.5)  # long enough for the pipe to fill; the run must not care
        process.send_signal(signal.SIGTERM)
        stderr = _end(process, timeout=10)
    assert process.returncode == 143, stderr
    assert "Traceback" not in stderr


def test_a_parent_that_goes_away_ends_the_run(project: Project) -> None:
    words = " ".join(["word"] * 60_000)
    with ScriptedServer([text(words, chunk_words=1)]) as server:
        process = _start(project, server.url)
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write((user("talk a lot") + "\n").encode())
        process.stdin.flush()
        process.stdout.readline()  # the init line: the session is up
        process.stdout.close()  # the parent is gone: nobody reads any more
        stderr = _end(process, timeout=20)
    assert process.returncode == 141, stderr
    assert "Traceback" not in stderr


def _start(project: Project, url: str, *flags: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-c", "from frontends.cli import main; main()", str(project.root),
         *STREAM, "--include-partial-messages", *flags],
        stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=REPO,
        env=project.env(url),
    )  # fmt: skip


def _end(process: subprocess.Popen[bytes], timeout: float) -> str:
    """Waits for the process (killed if it outlives ``timeout``); its stderr. Pipes closed."""
    try:
        process.wait(timeout=timeout)
    finally:
        process.kill()
        process.wait()
        for pipe in (process.stdin, process.stdout):
            if pipe is not None and not pipe.closed:
                pipe.close()
    assert process.stderr is not None
    with process.stderr:
        return process.stderr.read().decode()


def test_input_that_ends_while_a_question_waits_denies_the_call_and_exits(
    project: Project,
) -> None:
    target = project.root / "out.txt"
    steps = [
        tool_calls([call("Write", {"file_path": str(target), "content": "x"}, id="t1")]),
        text("Could not write."),
    ]
    with ScriptedServer(steps) as server:
        process = _start(project, server.url, "--permission-prompt-tool", "stdio")
        assert process.stdin is not None and process.stdout is not None
        process.stdin.write((user("write it") + "\n").encode())
        process.stdin.flush()
        lines: list[dict[str, Any]] = []
        while not lines or lines[-1]["type"] != "control_request":
            lines.append(json.loads(process.stdout.readline()))
        process.stdin.close()  # the program goes away without answering
        lines += [json.loads(line) for line in process.stdout.read().splitlines()]
        stderr = _end(process, timeout=20)
    assert process.returncode == 0, stderr
    assert not target.exists()
    asked = [line for line in lines if line["type"] == "control_request"]
    assert [line["request"]["subtype"] for line in asked] == ["can_use_tool"]
    assert asked[0]["request"]["tool_use_id"] == "t1"
    assert asked[0]["request"]["input"] == {"file_path": str(target), "content": "x"}
    result = next(
        block for line in lines if line["type"] == "user" for block in line["message"]["content"]
    )
    assert "nobody could answer: stdin was closed" in result["content"]
    assert lines[-1]["type"] == "result" and lines[-1]["result"] == "Could not write."


def test_continue_with_nothing_saved_starts_a_new_session(project: Project) -> None:
    with ScriptedServer([text("fresh")]) as server:
        code, out, err = run(project, server.url, [user("hi")], "--continue")
    assert code == 0, err
    assert "starting a new session" in err
    assert out[-1]["result"] == "fresh"


def test_a_line_nested_past_any_parser_is_skipped_not_a_crash(project: Project) -> None:
    deep = '{"type": "user", "message": ' + "[" * 100_000 + "]" * 100_000 + "}"
    with ScriptedServer([text("Hello back.")]) as server:
        code, out, err = run(project, server.url, [deep, user("hello")])
    assert code == 0, err
    assert "Traceback" not in err
    notices = [line["text"] for line in out if line.get("subtype") == "notice"]
    assert any(
        n.startswith("input line skipped: JSON nested more than 64 levels deep") for n in notices
    )
    assert out[-1]["type"] == "result" and out[-1]["result"] == "Hello back."


def test_the_init_line_lists_the_tools_the_requests_offer(project: Project) -> None:
    # With agents.maxDepth 0 no Agent tool is offered: the init line must not claim one.
    project.settings(agents={"maxDepth": 0})
    with ScriptedServer([text("done")]) as server:
        code, out, err = run(project, server.url, [user("hi")])
        requests = server.requests
    assert code == 0, err
    init = next(line for line in out if line.get("subtype") == "init")
    assert init["tools"] == [tool["name"] for tool in requests[0].body["tools"]]
    assert "Agent" not in init["tools"] and "Read" in init["tools"]


def test_session_commands_run_as_in_a_headless_run(project: Project) -> None:
    # A program gets what `legato -c -p "/rewind 1"` gets: the session's own command, not
    # "no such skill", and a bad one as an error result with its reason, the session going on.
    target = project.root / "a.txt"
    lines = [
        user("write a"),
        user("/rewind 1 code"),
        user("/rewind 9"),
        user("/undo now"),
        user("/export chat.md"),
        user("/context"),
    ]
    steps = [tool_calls([call("Write", {"file_path": str(target), "content": "a\n"})]), text("ok")]
    with ScriptedServer(steps) as server:
        code, out, err = run(project, server.url, lines, "--permission-mode", "acceptEdits")
        requests = server.requests
    assert code == 0, err
    results = [line for line in out if line["type"] == "result"]
    assert [r["is_error"] for r in results] == [False, False, True, True, False, False]
    assert not target.exists()
    assert "Removed" in results[1]["result"]
    assert "9" in results[2]["error"]
    assert "## You\n\nwrite a\n" in (project.root / "chat.md").read_text()
    assert "/undo takes nothing after it, not 'now'" in results[3]["error"]
    assert "Instruction files" in results[5]["result"]
    assert len(requests) == 2  # none of the commands went to the model


def test_the_init_line_comes_before_the_warnings(project: Project) -> None:
    project.write(".legato/agents/bad.md", "---\nname: bad\n---\nHi.\n")
    project.settings(permisionMode="plan")  # a misspelt key: a settings warning
    with ScriptedServer([text("fine")]) as server:
        code, out, err = run(project, server.url, [user("one")])
    assert code == 0, err
    assert (out[0]["type"], out[0]["subtype"]) == ("system", "init")
    notices = [line["text"] for line in out if line.get("subtype") == "notice"]
    assert any("unknown key 'permisionMode'" in notice for notice in notices)
    assert any(notice.startswith("Skipped agent file") for notice in notices)


def test_the_reference_github_action_runs_legato_as_the_sdk_does(project: Project) -> None:
    # The action's TypeScript SDK names itself in the entry point and always passes the
    # setting sources; a run it starts must not end at exit 2 on them.
    flags = ["--setting-sources", "user,project,local", "--max-turns", "3"]
    env = {"CLAUDE_CODE_ENTRYPOINT": "claude-code-github-action"}
    with ScriptedServer([text("ok")]) as server:
        code, out, err = run(project, server.url, [user("hi")], *flags, env=env)
    assert code == 0, err
    assert out[0]["unsupported_options"] == ["--setting-sources"]
    assert (out[-1]["type"], out[-1]["result"]) == ("result", "ok")


def test_each_result_carries_the_running_cost_and_its_own_usage(project: Project) -> None:
    """As the reference in streaming input mode: ``total_cost_usd`` and ``modelUsage`` are
    the totals of every prompt so far, ``usage`` the prompt's alone; a command Legato answers
    itself adds nothing and does not make the total unknown."""
    from actors.models import cost_usd, resolve_model
    from actors.protocol import Usage

    steps = [
        text("One.", usage={"input_tokens": 1000, "output_tokens": 100}),
        text("Two.", usage={"input_tokens": 3000, "output_tokens": 50}),
    ]
    lines = [user("first"), user("/help"), user("second")]
    with ScriptedServer(steps) as server:
        code, out, err = run(project, server.url, lines, "--model", "sonnet")
    assert code == 0, err
    results = [line for line in out if line["type"] == "result"]
    assert len(results) == 3
    sonnet = resolve_model("sonnet")
    fields = ("input_tokens", "output_tokens", "cache_read_input_tokens")
    own = [
        cost_usd(
            sonnet, Usage(**{f: r["usage"][f] for f in (*fields, "cache_creation_input_tokens")})
        )
        for r in (results[0], results[2])
    ]
    assert own[0] and own[1]
    assert results[0]["total_cost_usd"] == own[0]
    assert results[1]["total_cost_usd"] == own[0]  # /help: answered here, nothing spent
    assert abs(results[2]["total_cost_usd"] - (own[0] + own[1])) < 1e-12
    assert results[2]["usage"]["output_tokens"] == 50  # the prompt's alone
    used = results[2]["modelUsage"][sonnet.id]
    assert used["outputTokens"] == 150
    assert abs(used["costUSD"] - results[2]["total_cost_usd"]) < 1e-12
