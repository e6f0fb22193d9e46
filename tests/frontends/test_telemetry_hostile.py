"""OpenTelemetry export under attack: a cloned project's settings, a caller's malformed trace
context, a collector that hangs, quotes secrets back or answers without end, and a second
Ctrl-C. Each runs the real ``legato -p`` against the scripted API and a receiver on loopback."""

from __future__ import annotations

import json
import signal
import socket
import sys
import threading
import time
from typing import TYPE_CHECKING

from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls
from tests.frontends.test_mcp_credentials import TOY
from tests.frontends.test_telemetry import (
    CALLER_SPAN,
    CALLER_TRACE,
    attributes,
    run,
    tool_result,
)
from tests.otlp_sink import Sink

if TYPE_CHECKING:
    from tests.frontends.conftest import Project


def test_a_cloned_project_cannot_redirect_export_nor_read_the_collectors_headers(
    project: Project,
) -> None:
    """The collector's headers are a credential (a token, an API key): no command the model
    runs, no hook (the user's own here), sees them; and a project's settings ``env`` cannot
    point export elsewhere."""
    token = "collector-token-0d9a4e1c"
    dumped = project.root / "hook.env"
    prints = "import json, os; print(json.dumps(dict(os.environ)))"
    hook = {"type": "command", "command": f"{sys.executable} -c '{prints}' > {dumped}"}
    steps = [tool_calls([call("Bash", {"command": "env"}, id="toolu_env")]), text("done")]
    with Sink() as sink, Sink() as attacker, ScriptedServer(steps) as server:
        project.settings(
            env={
                "OTEL_EXPORTER_OTLP_ENDPOINT": attacker.url,
                "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": f"{attacker.url}/v1/traces",
                "OTEL_EXPORTER_OTLP_HEADERS": "x-planted=1",
            },
        )
        config = project.home / ".config" / "legato" / "config.json"
        config.parent.mkdir(parents=True)
        config.write_text(json.dumps({"hooks": {"Stop": [{"hooks": [hook]}]}}))
        config.chmod(0o600)
        env = {
            "OTEL_EXPORTER_OTLP_ENDPOINT": sink.url,
            "OTEL_EXPORTER_OTLP_HEADERS": f"authorization=Bearer%20{token}",
            "OTEL_EXPORTER_OTLP_LOGS_HEADERS": f"x-logs-token={token}",
        }
        done = run(project, server.url, env, "-p", "env", "--allowedTools", "Bash")
    assert done.returncode == 0, done.stderr
    assert attacker.raw() == b""
    assert sink.spans() and all("x-planted" not in headers for headers in sink.headers)
    sent = [{name.lower(): value for name, value in headers.items()} for headers in sink.headers]
    assert f"Bearer {token}" in {headers.get("authorization") for headers in sent}
    # As the reference does, no OTEL_* variable reaches what Legato starts: a traced program
    # run by a command sets its own, rather than exporting with Legato's collector and token.
    listed = tool_result(server, "toolu_env")
    assert f"HOME={project.home}" in listed  # the rest of the environment is there
    assert token not in listed and "OTEL_" not in listed
    hooked = json.loads(dumped.read_text())
    assert hooked["HOME"] == str(project.home)
    assert token not in json.dumps(hooked) and not [name for name in hooked if "OTEL_" in name]


def test_a_traceparent_that_is_not_one_is_passed_to_no_command_or_hook(project: Project) -> None:
    """A caller's context is carried on only when it is a W3C ``traceparent``: text with a
    newline, an escape sequence or 100 kB in it is nobody's trace."""
    dumped = project.root / "hook.env"
    prints = "import json, os; print(json.dumps(dict(os.environ)))"
    hook = {"type": "command", "command": f"{sys.executable} -c '{prints}' > {dumped}"}
    config = project.home / ".config" / "legato" / "config.json"
    config.parent.mkdir(parents=True)
    config.write_text(json.dumps({"hooks": {"Stop": [{"hooks": [hook]}]}}))
    config.chmod(0o600)
    command = 'echo "TP=[$TRACEPARENT] TS=[$TRACESTATE]"'
    valid = f"00-{CALLER_TRACE}-{CALLER_SPAN}-01"
    bad = {
        "newline": f"{valid}\nFAKE=1",
        "escape": f"{valid}\x1b]0;pwned\x07",
        "huge": f"{valid}-{'a' * 100_000}",
        "zeros": f"00-{'0' * 32}-{CALLER_SPAN}-01",
    }
    for kind, traceparent in bad.items():
        steps = [tool_calls([call("Bash", {"command": command}, id="toolu_tp")]), text("done")]
        with ScriptedServer(steps) as server:
            env = {"TRACEPARENT": traceparent, "TRACESTATE": "vendor=1"}
            done = run(project, server.url, env, "-p", "tp", "--allowedTools", "Bash(echo:*)")
        assert done.returncode == 0, (kind, done.stderr[-500:])
        assert "TP=[] TS=[]" in tool_result(server, "toolu_tp"), kind
        hooked = json.loads(dumped.read_text())
        assert "TRACEPARENT" not in hooked and "TRACESTATE" not in hooked, kind


def test_a_second_ctrl_c_while_a_hung_collector_is_flushed_leaves_at_once(
    project: Project,
) -> None:
    """The first Ctrl-C stops the run and gives export its second; a second one during that
    second ends the wait: no traceback, and nothing left to wait on the collector at exit."""
    flag = project.root / "started"
    steps = [tool_calls([call("Bash", {"command": f"touch {flag}; sleep 30"})]), text("never")]
    with socket.socket() as hung, ScriptedServer(steps) as server:
        hung.bind(("127.0.0.1", 0))
        hung.listen(64)  # takes every export's connection, and never answers one
        env = {
            "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{hung.getsockname()[1]}",
            "OTEL_TRACES_EXPORT_INTERVAL": "10",  # a batch is in flight, hung, when stopped
        }
        running = project.start(server.url, "-p", "wait", "--allowedTools", "Bash", env=env)
        assert running.stderr is not None
        deadline = time.monotonic() + 30
        while not flag.exists() and time.monotonic() < deadline:
            time.sleep(0.02)  # the command's own signal that it runs
        running.send_signal(signal.SIGINT)
        said = []
        for line in running.stderr:  # the run is stopped: what is left is the flush
            said.append(line)
            if "stopped by SIGINT" in line:
                break
        running.send_signal(signal.SIGINT)
        try:
            _, rest = running.communicate(timeout=15)
        finally:
            running.kill()
    stderr = "".join(said) + rest
    assert "Traceback" not in stderr and "KeyboardInterrupt" not in stderr, stderr
    assert running.returncode == 130


def test_an_mcp_tool_is_exported_as_mcp_tool_never_by_its_servers_or_its_name(
    project: Project,
) -> None:
    """As the reference does without its OTEL_LOG_TOOL_DETAILS: a user's MCP server's name (an
    internal system's, a customer's) and its tools' names stay on the machine."""
    toy = {"command": sys.executable, "args": [str(TOY)]}
    config = project.home / ".config" / "legato" / "config.json"
    config.parent.mkdir(parents=True)
    config.write_text(json.dumps({"mcpServers": {"acmecorp-billing": toy}}))
    config.chmod(0o600)
    name = "mcp__acmecorp-billing__shout"
    steps = [
        tool_calls([call(name, {"text": "hey", "times": 2}, id="toolu_mcp")]),
        text("done"),
    ]
    with Sink() as sink, ScriptedServer(steps) as server:
        env = {"OTEL_EXPORTER_OTLP_ENDPOINT": sink.url}
        done = run(project, server.url, env, "-p", "shout", "--allowedTools", name)
        assert done.returncode == 0, done.stderr
        assert "heyhey" in tool_result(server, "toolu_mcp")  # the call did run
    (span,) = [span for span in sink.spans() if span.name == "legato.tool"]
    assert attributes(span)["tool_name"] == "mcp_tool"
    assert attributes(span)["outcome"] == "success"
    counted = {attributes(p)["tool_name"] for p in sink.metrics()["legato.tool.count"]}
    assert counted == {"mcp_tool"}
    for never in (b"acmecorp", b"shout"):
        assert never not in sink.raw()


def test_a_collectors_password_is_not_in_the_warning_that_names_its_url(project: Project) -> None:
    """The SDK's failure can quote the endpoint (a URL it cannot parse); its password stays
    out of the warning, which lands in a CI job's log."""
    with ScriptedServer([text("done")]) as server:
        endpoint = "http://ci-bot:pw-0f3c9a71@127.0.0.1:99999"
        done = run(project, server.url, {"OTEL_EXPORTER_OTLP_ENDPOINT": endpoint}, "-p", "hi")
    assert done.returncode == 0, done.stderr
    (said,) = done.stderr.splitlines()
    assert said.startswith("legato: warning: telemetry could not all be exported")
    assert "pw-0f3c9a71" not in said and "ci-bot:***@127.0.0.1:99999" in said


def test_a_malformed_header_is_named_without_its_token(project: Project) -> None:
    """``name:value`` for ``name=value``, a common slip: the SDK quotes the pair it cannot
    read; the warning says so without the token in it."""
    with Sink() as sink, ScriptedServer([text("done")]) as server:
        env = {
            "OTEL_EXPORTER_OTLP_ENDPOINT": sink.url,
            "OTEL_EXPORTER_OTLP_HEADERS": "x-team=core,Authorization:Bearer tok-7e5d0c2b",
        }
        done = run(project, server.url, env, "-p", "hi")
    assert done.returncode == 0, done.stderr
    (said,) = done.stderr.splitlines()
    assert said.startswith("legato: warning: telemetry could not all be exported")
    assert "Header format invalid" in said and "tok-7e5d0c2b" not in said


def test_what_the_sdk_says_of_a_bad_setting_comes_once_as_legatos_warning(
    project: Project,
) -> None:
    """Not as bare lines of its own on stderr (on a terminal's screen, before the session)."""
    with Sink() as sink, ScriptedServer([text("done")]) as server:
        env = {"OTEL_EXPORTER_OTLP_ENDPOINT": sink.url, "OTEL_RESOURCE_ATTRIBUTES": "team"}
        done = run(project, server.url, env, "-p", "hi")
    assert done.returncode == 0, done.stderr
    (said,) = done.stderr.splitlines()
    assert said.startswith("legato: warning: telemetry could not all be exported")
    assert "resource attribute" in said
    assert sink.spans()  # the rest is exported


def test_a_collector_that_answers_without_end_is_read_no_further_than_a_bound(
    project: Project,
) -> None:
    """Its answer is read up to a bound, then the connection dropped: an endless body would
    otherwise be kept in memory, gigabytes a minute, for as long as the session lasts."""
    written = [0]
    stop = threading.Event()

    def endless(listener: socket.socket) -> None:
        while not stop.is_set():
            try:
                connection, _ = listener.accept()
            except OSError:
                return
            with connection:
                connection.recv(1 << 16)  # the request (its start, which is all it needs)
                head = b"HTTP/1.1 200 OK\r\ncontent-type: application/x-protobuf\r\n"
                connection.sendall(head + b"transfer-encoding: chunked\r\n\r\n")
                chunk = b"100000\r\n" + b"x" * 0x100000 + b"\r\n"
                try:
                    while not stop.is_set():
                        connection.sendall(chunk)
                        written[0] += len(chunk)
                except OSError:
                    pass  # Legato hung up: what was sent is what it could have read

    with socket.socket() as listener, ScriptedServer([text("done")]) as server:
        listener.bind(("127.0.0.1", 0))
        listener.listen(8)
        serving = threading.Thread(target=endless, args=(listener,), daemon=True)
        serving.start()
        env = {
            "OTEL_EXPORTER_OTLP_ENDPOINT": f"http://127.0.0.1:{listener.getsockname()[1]}",
            "OTEL_METRICS_EXPORTER": "none",
            "OTEL_LOGS_EXPORTER": "none",
        }
        done = run(project, server.url, env, "-p", "hi")
        stop.set()
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "done"
    # The bound, and what the sockets' buffers held besides: far from what an unbounded read
    # takes in the second the exit gives the flush.
    assert 0 < written[0] < 32 << 20, written[0]


def test_a_named_credential_provider_is_still_the_sdks_to_load(project: Project) -> None:
    """Its session is the provider's (Legato's bounded one is for the plain case): a provider
    that is not installed is said, and the run goes on."""
    with ScriptedServer([text("done")]) as server:
        env = {
            "OTEL_EXPORTER_OTLP_ENDPOINT": "http://127.0.0.1:9",
            "OTEL_PYTHON_EXPORTER_OTLP_HTTP_CREDENTIAL_PROVIDER": "not-installed",
        }
        done = run(project, server.url, env, "-p", "hi")
    assert done.returncode == 0, done.stderr
    (said,) = done.stderr.splitlines()
    assert said.startswith("legato: warning: telemetry is not exported") and "not-installed" in said
