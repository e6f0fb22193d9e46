"""The process form: a real child process, its first stdout line, signals, a bad script."""

from __future__ import annotations

import contextlib
import json
import signal
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import httpx
import pytest

from tests.demo.scripted_api.helpers import HEADERS, body

if TYPE_CHECKING:
    from collections.abc import Iterator

ROOT = Path(__file__).resolve().parents[3]


@contextlib.contextmanager
def serve(script: Path, *args: str) -> Iterator[subprocess.Popen[str]]:
    """The server process; killed at the end if a failed assertion left it running."""
    with subprocess.Popen(
        [sys.executable, "-m", "frontends.demo.scripted_api", "--script", str(script), *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    ) as process:
        try:
            yield process
        finally:
            if process.poll() is None:
                process.kill()


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_serves_the_script_then_exits_0_quietly_on_a_signal(tmp_path: Path, signum: int) -> None:
    script = tmp_path / "script.json"
    script.write_text(
        json.dumps({"steps": [{"text": "from a process"}, {"error": {"status": 529}}]})
    )
    with serve(script, "--api-key", "k") as process:
        assert process.stdout is not None and process.stderr is not None
        first_line = process.stdout.readline()
        assert first_line.startswith("listening on http://127.0.0.1:")
        url = first_line.removeprefix("listening on ").strip()
        with httpx.Client() as client:
            answer = client.post(
                f"{url}/v1/messages", json=body(), headers={**HEADERS, "x-api-key": "k"}
            )
            overloaded = client.post(
                f"{url}/v1/messages", json=body(), headers={**HEADERS, "x-api-key": "k"}
            )
        process.send_signal(signum)
        assert process.wait(timeout=5) == 0
        assert process.stderr.read() == ""
    assert b'"text":" process"' in answer.content
    assert overloaded.status_code == 529


def test_a_bad_script_is_named_with_its_field(tmp_path: Path) -> None:
    script = tmp_path / "bad.json"
    script.write_text(json.dumps([{"text": "fine"}, {"tool_calls": [{"input": {}}]}]))
    with serve(script) as process:
        out, err = process.communicate(timeout=10)
    assert process.returncode == 2
    assert out == ""
    assert f"{script}: step 2: Object missing required field `name` - at `$.tool_calls[0]`" in err
    assert "Fix the script" in err
    assert "Traceback" not in err


def test_a_missing_script(tmp_path: Path) -> None:
    with serve(tmp_path / "nowhere.json") as process:
        _, err = process.communicate(timeout=10)
    assert process.returncode == 2
    assert "nowhere.json: cannot read the script: No such file or directory" in err
