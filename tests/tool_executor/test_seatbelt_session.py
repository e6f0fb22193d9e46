"""The session's choice of macOS's sandbox, seen from Linux: with the platform said to be macOS
and a stand-in for sandbox-exec that records its arguments and runs the command, a session tries
sandbox-exec once, runs each command under a profile written for it, says so in its report, and
counts it as full confinement. What the profile itself enforces is for a real Mac
(test_seatbelt.py)."""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

import pytest

from actors.protocol import DescribeSandbox
from actors.tool_executor.sandbox import seatbelt
from tests.tool_executor.harness import with_policy

if TYPE_CHECKING:
    from pathlib import Path

# Records its arguments, skips -D pairs and the profile, and runs what follows (env TMPDIR=...
# bash -c COMMAND), as sandbox-exec does once it has confined itself.
STAND_IN = """#!/bin/sh
printf '%s\\n' "$@" >> "$(dirname "$0")/calls"
while [ $# -gt 0 ]; do
  case "$1" in -D|-p) shift 2;; *) break;; esac
done
[ $# -gt 0 ] && exec "$@"
exit 0
"""


def recorded(calls: Path) -> list[str]:
    return calls.read_text().splitlines()


@pytest.fixture
def on_macos(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "usr-bin"
    folder.mkdir()
    stand_in = folder / "sandbox-exec"
    stand_in.write_text(STAND_IN)
    stand_in.chmod(0o755)
    monkeypatch.setattr(seatbelt, "SANDBOX_EXEC", str(stand_in))
    monkeypatch.setattr(sys, "platform", "darwin")
    return folder / "calls"


async def test_commands_run_under_a_profile_written_for_them(
    tmp_path: Path, on_macos: Path
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / ".env").write_text("SECRET")  # tmp_path is a real path: no symlink in it
    async with with_policy(project, answers=["y"], blockedPaths=[".env"]) as s:
        done = await s.one("Bash", command="echo $TMPDIR; echo ran")
        report = await s.executor.address.ask(DescribeSandbox())
        assert s.person is not None
        (asked,) = s.person.asked
    assert asked.confinement is not None and asked.confinement.confined  # counts as full
    tmpdir, ran = done.result.content.splitlines()
    assert ran == "ran" and tmpdir.startswith("/") and "legato-tmp-" in tmpdir
    calls = recorded(on_macos)
    assert any(line.startswith("(version 1)") for line in calls)  # the profile went to it
    # The blocked file, as a parameter, never in the profile's text.
    assert any(line.endswith(f"={project}/.env") for line in calls)
    assert report.active and report.mechanism.endswith(f"({seatbelt.SANDBOX_EXEC})")
    assert any(line.startswith("ways out closed") for line in report.enforces)


async def test_a_sandbox_exec_that_refuses_leaves_commands_unconfined_and_says_why(
    tmp_path: Path, on_macos: Path
) -> None:
    on_macos.parent.joinpath("sandbox-exec").write_text(
        "#!/bin/sh\necho 'sandbox-exec: sandbox_apply: Operation not permitted' >&2\nexit 71\n"
    )
    project = tmp_path / "project"
    project.mkdir()
    async with with_policy(project, answers=["y"]) as s:
        done = await s.one("Bash", command="echo ran")
        report = await s.executor.address.ask(DescribeSandbox())
    assert done.result.content == "ran"
    assert not report.active and report.why_not is not None
    assert "cannot make a sandbox here: sandbox-exec: sandbox_apply" in report.why_not
    assert "cannot be nested" in report.why_not
