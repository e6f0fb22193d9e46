"""ASSISTANT_LOG=debug: a real run writes requests, retries, actor messages and timings to
~/.legato/logs/legato-<date>.log with every secret cut out; a normal run writes nothing."""

from __future__ import annotations

import io
import os
import stat
import subprocess
import sys
from datetime import UTC, datetime
from typing import TYPE_CHECKING

from frontends.demo.scripted_api import ScriptedServer, error, text
from frontends.startup.debug import REDACTED, DebugLog, secrets_in
from tests.frontends.conftest import REPO

if TYPE_CHECKING:
    from tests.doctor.conftest import Project

KEY = "sk-debug-secret-0042"
ARGS = ("--headless", "hi")


def log_file(project: Project) -> str:
    day = datetime.now(UTC).strftime("%Y-%m-%d")
    return os.path.join(project.home, ".legato", "logs", f"legato-{day}.log")


def run(project: Project, url: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-c", "from frontends.cli import main; main()", *ARGS, str(project.root)],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=project.env(url, KEY) | env,
        timeout=60,
    )


def test_a_debug_run_logs_requests_retries_messages_and_timings(project: Project) -> None:
    busy = error(status=529, error_type="overloaded_error", message="Overloaded", retry_after=0.01)
    with ScriptedServer([busy, text("Hello.")], api_key=KEY) as server:
        url = server.url
        done = run(project, url, ASSISTANT_LOG="debug")
    assert done.returncode == 0, done.stderr
    path = log_file(project)
    assert f"legato: debug log: {path}" in done.stderr
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    with open(path) as file:
        log = file.read()
    assert f"request url={url}/v1/messages" in log
    assert f"'x-api-key': '{REDACTED}'" in log
    assert "response " in log and "status=529" in log and "status=200" in log
    assert "retry attempt=1 delay=0.01" in log
    assert "handled actor=model_client msg=StreamMessage ms=" in log
    assert "finished stop_reason=end_turn input_tokens=" in log
    assert "handled actor=conductor msg=RunPrompt ms=" in log
    assert KEY not in log
    assert "Hello." not in log  # the conversation's text is not logged


def test_a_normal_run_writes_no_log(project: Project) -> None:
    with ScriptedServer([text("Hello.")]) as server:
        done = run(project, server.url)
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    assert not os.path.exists(os.path.join(project.home, ".legato", "logs"))


def test_an_unknown_level_is_a_warning(project: Project) -> None:
    with ScriptedServer([text("Hello.")]) as server:
        done = run(project, server.url, ASSISTANT_LOG="verbose")
    assert done.returncode == 0
    assert "ASSISTANT_LOG='verbose' is not a log level" in done.stderr
    assert not os.path.exists(log_file(project))


def test_secrets_and_sensitive_fields_are_redacted() -> None:
    out = io.StringIO()
    env = {"CLOUD_SECRET_ACCESS_KEY": "aws-secret-xyz", "OPENAI_API_KEY": "sk-openai", "HOME": "/h"}
    log = DebugLog(out, secrets_in(env))
    log.add_secret("sk-from-config")
    log.write(
        "request",
        headers={"authorization": "Bearer anything", "accept": "text/event-stream"},
        note="sent aws-secret-xyz and sk-openai and sk-from-config",
    )
    line = out.getvalue()
    assert "aws-secret-xyz" not in line and "sk-openai" not in line and "sk-from-config" not in line
    assert f"'authorization': '{REDACTED}'" in line
    assert "'accept': 'text/event-stream'" in line
    assert "/h" in line or "HOME" not in line  # ordinary values stay readable
