"""The fleet benchmark runs: real `legato` sessions side by side under the Agent SDK, each on
its own files, in one shared home; a failing session leaves the others to finish; a signal
to the driver leaves no `legato` behind."""

from __future__ import annotations

import os
import re
import select
import signal
import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from actors.places import sessions_dir
from benchmarks.fleet import drive, report

if TYPE_CHECKING:
    from benchmarks.fleet import Session

REPO = Path(__file__).resolve().parent.parent


async def test_two_sessions_side_by_side_in_one_home(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sessions, seconds = await drive(2, str(tmp_path))
    first, second = sessions
    assert first.home == second.home
    for session in sessions:
        assert (session.subtype, session.exit_code, session.problem) == ("success", 0, None)
        assert session.peak_kb > 10_000, session  # the legato process, not a fork of this one
        assert_own_files(session)
    assert first.session_id != second.session_id
    report(sessions, seconds)
    out = capsys.readouterr().out
    assert "2 of 2 sessions succeeded" in out
    assert re.search(r"\| 1 \| success \| 0 \| 4 \| \d+ ms \| \d+\.\d MB \|", out), out


def assert_own_files(session: Session) -> None:
    """Its own edit, and in the shared home its own transcript alone under its project."""
    assert Path(session.project, "app.py").read_text() == f"VALUE = {session.number}\n"
    folder = sessions_dir(os.path.realpath(session.project), session.home)
    assert os.listdir(folder) == [f"{session.session_id}.jsonl"]


async def test_failing_sessions_leave_the_others_to_finish_in_boxes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    sessions, seconds = await drive(4, str(tmp_path), faults=True, boxed=True)
    bad_key, model_error, crash, good = sessions
    assert (bad_key.subtype, bad_key.exit_code) == ("error_during_execution", 1)
    assert "401" in (bad_key.problem or "")
    assert (model_error.subtype, model_error.exit_code) == ("error_during_execution", 1)
    assert "500" in (model_error.problem or "")
    assert (crash.exit_code, crash.problem) == (128 + signal.SIGKILL, "legato killed by SIGKILL")
    assert (good.subtype, good.exit_code, good.problem) == ("success", 0, None)
    report(sessions, seconds)
    assert "1 of 4 sessions succeeded" in capsys.readouterr().out


@pytest.mark.parametrize("box", [[], ["--box"]], ids=["plain", "boxed"])
def test_a_signal_to_the_driver_leaves_no_legato(box: list[str]) -> None:
    """Stopped mid-turn, each legato ends with the driver, whether the SDK started it or a
    box (bubblewrap, standing in for a container) around it."""
    driver = subprocess.Popen(
        [sys.executable, "-m", "benchmarks.fleet", "--sessions", "2", "--hold", *box],
        cwd=REPO, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    assert driver.stdout is not None
    # Never a hung suite: a driver that says nothing within a minute is stopped and shown.
    ready, _, _ = select.select([driver.stdout], [], [], 60)
    if not ready:
        driver.kill()
        pytest.fail(f"the fleet said nothing in 60 s: {driver.communicate()[1][-2000:]}")
    line = driver.stdout.readline()
    assert "2 sessions waiting on the model" in line, line
    pids = [int(word) for word in line.split("pids")[1].split()]
    driver.send_signal(signal.SIGTERM)
    _, stderr = driver.communicate(timeout=30)
    assert driver.returncode == 128 + signal.SIGTERM, stderr
    assert "stopped by SIGTERM" in stderr
    for pid in pids:
        assert not Path(f"/proc/{pid}").exists(), f"legato {pid} outlived the driver"
