"""OpenTelemetry export from a real ``legato -p`` run to an OTLP/HTTP receiver on loopback."""

from __future__ import annotations

import json
import signal
import socket
import sys
import time
from typing import TYPE_CHECKING, Any

from frontends.demo.scripted_api import ScriptedServer, call, error, text, tool_calls
from tests.frontends.conftest import REPO
from tests.frontends.test_mcp_credentials import DUMPING
from tests.otlp_sink import Sink

if TYPE_CHECKING:
    import subprocess

    from tests.frontends.conftest import Project

SECRET = "hunter2-do-not-export-7c1e"
CALLER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736"
CALLER_SPAN = "00f067aa0ba902b7"


def run(
    project: Project, url: str, env: dict[str, str], *args: str
) -> subprocess.CompletedProcess[str]:
    return project.legato(url, *args, env=env)


def script(notes: str) -> list[Any]:
    reads = tool_calls(
        [
            call("Read", {"file_path": notes}, id="toolu_read"),
            call("Bash", {"command": f"echo TP=$TRACEPARENT # {SECRET}"}, id="toolu_bash"),
        ],
        usage={"input_tokens": 120, "output_tokens": 30},
    )
    return [reads, text("done", usage={"input_tokens": 200, "output_tokens": 7})]


def tool_result(server: ScriptedServer, tool_use_id: str) -> str:
    """The text the model got back for one call, in the request that followed it."""
    for block in server.requests[-1].body["messages"][-1]["content"]:
        if block.get("tool_use_id") == tool_use_id:
            content = block["content"]
            return content if isinstance(content, str) else json.dumps(content)
    raise AssertionError(f"no result for {tool_use_id}")


def attributes(item: Any) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for kv in item.attributes:
        value = kv.value
        found[kv.key] = (
            getattr(value, value.WhichOneof("value")) if value.WhichOneof("value") else None
        )
    return found


def test_a_run_exports_its_trace_metrics_and_events_as_a_child_of_the_callers(
    project: Project,
) -> None:
    notes = project.write("notes.txt", f"password = {SECRET}\n")
    project.settings(permissionMode="auto")
    # A hook of the user's: it runs before the Bash call, and says which span it ran in.
    hooked = project.root / "hook-traceparent"
    hook = {"type": "command", "command": f"echo $TRACEPARENT > {hooked}"}
    config = project.home / ".config" / "legato" / "config.json"
    config.parent.mkdir(parents=True)
    config.write_text(json.dumps({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [hook]}]}}))
    config.chmod(0o600)
    with Sink() as sink, ScriptedServer(script(str(notes))) as server:
        done = run(
            project,
            server.url,
            {
                "OTEL_EXPORTER_OTLP_ENDPOINT": sink.url,
                "OTEL_RESOURCE_ATTRIBUTES": "team=core",
                "OTEL_EXPORTER_OTLP_HEADERS": "x-collector-token=tok-5e1f",
                "TRACEPARENT": f"00-{CALLER_TRACE}-{CALLER_SPAN}-01",
            },
            "-p",
            "read the notes and echo",
            "--allowedTools",
            "Bash(echo:*)",
        )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "done"
    assert SECRET in tool_result(server, "toolu_read")  # the model did read it

    spans = sink.spans()
    by_name: dict[str, list[Any]] = {}
    for span in spans:
        by_name.setdefault(span.name, []).append(span)
    (prompt,) = by_name["legato.interaction"]
    requests = by_name["legato.llm_request"]
    tools = {attributes(span)["tool_name"]: span for span in by_name["legato.tool"]}
    assert len(requests) == 2 and set(tools) == {"Read", "Bash"}
    # The prompt is the caller's child; the requests and the tool calls are the prompt's.
    assert prompt.trace_id.hex() == CALLER_TRACE and prompt.parent_span_id.hex() == CALLER_SPAN
    for span in [*requests, *tools.values()]:
        assert span.trace_id == prompt.trace_id and span.parent_span_id == prompt.span_id
        assert span.end_time_unix_nano >= span.start_time_unix_nano > 0
    assert attributes(tools["Read"])["outcome"] == "success"
    assert [attributes(span)["input_tokens"] for span in requests] == [120, 200]
    assert sink.resources()[0]["service.name"] == "legato"
    assert sink.resources()[0]["team"] == "core"

    # The command ran as the Bash call's child.
    bash = tools["Bash"]
    expected = f"00-{CALLER_TRACE}-{bash.span_id.hex()}-01"
    assert f"TP={expected}" in tool_result(server, "toolu_bash")
    assert hooked.read_text().strip() == expected  # and so did its hook

    metrics = sink.metrics()
    tokens = {attributes(point)["type"]: point.as_int for point in metrics["legato.token.usage"]}
    assert tokens["input"] == 320 and tokens["output"] == 37
    tool_counts = {attributes(p)["tool_name"]: p.as_int for p in metrics["legato.tool.count"]}
    assert tool_counts == {"Read": 1, "Bash": 1}
    assert sum(p.as_int for p in metrics["legato.session.count"]) == 1
    decisions = {
        (attributes(p)["tool_name"], attributes(p)["decision"]): p.as_int
        for p in metrics["legato.permission.decision"]
    }
    assert decisions[("Bash", "accept")] == 1
    assert metrics["legato.cost.usage"][0].as_double > 0

    events = [attributes(record)["event.name"] for record in sink.logs()]
    assert events.count("legato.user_prompt") == 1
    assert events.count("legato.api_request") == 2
    assert events.count("legato.tool_result") == 2

    # Neither the file's content, nor the command, nor the prompt, nor the key left the machine.
    # The collector's header went to the collector on every export, and nowhere else.
    assert {headers.get("x-collector-token") for headers in sink.headers} == {"tok-5e1f"}
    raw = sink.raw()
    for never in (SECRET, "echo", "read the notes", "test-key", "tok-5e1f"):
        assert never.encode() not in raw


def test_without_an_endpoint_nothing_is_sent_and_a_command_sees_the_callers_context(
    project: Project,
) -> None:
    """Also an MCP server, whose environment is otherwise a short list the MCP SDK keeps."""
    dumped = project.root / "mcp-env.json"
    server_spec = {"command": sys.executable, "args": ["-c", DUMPING, str(dumped)]}
    config = project.home / ".config" / "legato" / "config.json"
    config.parent.mkdir(parents=True)
    config.write_text(json.dumps({"mcpServers": {"dump": server_spec}}))
    config.chmod(0o600)
    # The server starts beside the run: the command waits for its dump before it answers.
    command = (
        f"for _ in $(seq 300); do test -s {dumped} && break; sleep 0.1; done; echo TP=$TRACEPARENT"
    )
    steps = [tool_calls([call("Bash", {"command": command}, id="toolu_bash")]), text("done")]
    caller = f"00-{CALLER_TRACE}-{CALLER_SPAN}-01"
    with Sink() as sink, ScriptedServer(steps) as server:
        env = {
            "TRACEPARENT": caller,
            "OTEL_SERVICE_NAME": "x",
            "OTEL_TRACES_EXPORTER": "otlp",
            "PYTHONPATH": str(REPO),
        }
        done = run(project, server.url, env, "-p", "echo", "--allowedTools", "Bash")
        assert done.returncode == 0, done.stderr
        assert f"TP={caller}" in tool_result(server, "toolu_bash")
    assert sink.raw() == b""
    assert json.loads(dumped.read_text())["TRACEPARENT"] == caller


def test_a_protocol_it_cannot_speak_is_named_and_the_run_goes_on(project: Project) -> None:
    with Sink() as sink, ScriptedServer([text("done")]) as server:
        env = {"OTEL_EXPORTER_OTLP_ENDPOINT": sink.url, "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}
        done = run(project, server.url, env, "-p", "hi")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "done"
    assert "OTEL_EXPORTER_OTLP_PROTOCOL=grpc" in done.stderr
    assert "http/protobuf" in done.stderr
    assert "Traceback" not in done.stderr
    assert sink.raw() == b""


def test_a_collector_that_is_not_there_is_said_once_and_the_run_goes_on(project: Project) -> None:
    with socket.socket() as closed:
        closed.bind(("127.0.0.1", 0))
        port = closed.getsockname()[1]
    with ScriptedServer([text("done")]) as server:
        env = {"OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{port}"}
        done = run(project, server.url, env, "-p", "hi")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "done"
    (said,) = done.stderr.splitlines()
    assert said.startswith("legato: warning: telemetry could not all be exported")
    assert "OTEL_EXPORTER_OTLP_ENDPOINT" in said


def test_a_run_stopped_by_sigterm_still_exports_what_it_did(project: Project) -> None:
    flag = project.root / "started"
    command = f"touch {flag}; sleep 30"
    steps = [tool_calls([call("Bash", {"command": command}, id="toolu_bash")]), text("never")]
    with Sink() as sink, ScriptedServer(steps) as server:
        env = {"OTEL_EXPORTER_OTLP_ENDPOINT": sink.url}
        running = project.start(server.url, "-p", "wait", "--allowedTools", "Bash", env=env)
        deadline = time.monotonic() + 30
        while not flag.exists() and time.monotonic() < deadline:
            time.sleep(0.02)  # the command's own signal that it runs
        running.send_signal(signal.SIGTERM)
        _, stderr = running.communicate(timeout=30)
    assert "Traceback" not in stderr
    spans = {span.name: span for span in sink.spans()}
    assert attributes(spans["legato.tool"])["outcome"] == "interrupted"
    assert spans["legato.tool"].parent_span_id == spans["legato.interaction"].span_id
    assert "legato.llm_request" in spans


def test_a_request_the_api_refuses_is_an_error_span_and_an_api_error_event(
    project: Project,
) -> None:
    with Sink() as sink, ScriptedServer([error(400)]) as server:
        env = {"OTEL_EXPORTER_OTLP_ENDPOINT": sink.url}
        done = run(project, server.url, env, "-p", "hi")
    assert done.returncode == 1
    (request,) = [span for span in sink.spans() if span.name == "legato.llm_request"]
    assert request.status.code == request.status.STATUS_CODE_ERROR
    assert attributes(request)["status_code"] == 400
    (failed,) = [r for r in sink.logs() if attributes(r)["event.name"] == "legato.api_error"]
    assert attributes(failed)["status_code"] == 400
    assert attributes(failed)["error"] == "RequestRejected"  # its kind, not the API's words
