"""`legato doctor` says whether Bash commands run confined, as the tool executor finds it."""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING

from actors.tool_executor.sandbox import landlock, session
from actors.tool_executor.sandbox.landlock import abi
from frontends.commands.doctor import run_doctor
from tests.tool_executor.sandbox_setup import needs_bwrap, needs_landlock
from tests.trusting import trust_project

if TYPE_CHECKING:
    from pathlib import Path

    import pytest


def doctor(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], settings: object, **more: str
) -> str:
    (tmp_path / "home").mkdir()
    (tmp_path / ".legato").mkdir()
    (tmp_path / ".legato" / "settings.json").write_text(json.dumps(settings))
    trust_project(tmp_path, tmp_path / "home")  # as the user would with ``legato trust``
    env = {"HOME": str(tmp_path / "home"), "PATH": os.environ["PATH"], "ASSISTANT_API_KEY": "k"}
    run_doctor([str(tmp_path), "--no-probe"], env=env | more)
    out = capsys.readouterr()
    section = out.out.split("Sandbox for Bash commands\n")[1]
    return section.split("\n\n")[0]


@needs_bwrap
def test_doctor_shows_what_the_sandbox_enforces(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    section = doctor(tmp_path, capsys, {"sandbox": {"network": False, "allowWrite": ["/nowhere"]}})
    lines = section.splitlines()
    assert lines[0].startswith("  bubblewrap ") and lines[0].endswith(": active")
    assert "  network: none (sandbox.network false)" in lines
    assert "  ! allowWrite '/nowhere': /nowhere is not an existing folder" in lines


def test_doctor_says_when_the_sandbox_is_off(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    section = doctor(tmp_path, capsys, {"sandbox": {"enabled": False}})
    assert section.splitlines()[1:] == ["  ! sandbox.enabled is false in .legato/settings.json"]


def test_doctor_tries_the_bwrap_that_assistant_bwrap_names(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(landlock, "abi", lambda: 0)  # no fallback: the bwrap's word is the last
    bwrap = tmp_path.parent / f"{tmp_path.name}-bin" / "bwrap"  # outside the project
    bwrap.parent.mkdir()
    bwrap.write_text("#!/bin/sh\necho 'bwrap: setting up uid map: Permission denied' >&2\nexit 1\n")
    bwrap.chmod(0o755)
    section = doctor(tmp_path, capsys, {}, ASSISTANT_BWRAP=str(bwrap))
    first, reason = section.splitlines()[:2]
    assert first == f"  bubblewrap ({bwrap}): not active"
    assert reason.startswith(f"  ! {bwrap} cannot make a sandbox here: bwrap: setting up uid map")


@needs_landlock
def test_doctor_shows_what_landlock_enforces_and_what_not_where_bwrap_is_missing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(session, "find_bwrap", lambda: None)
    section = doctor(tmp_path, capsys, {"sandbox": {"network": False}})
    lines = section.splitlines()
    assert lines[0] == f"  landlock (ABI {abi()}): active, in part (bubblewrap cannot run here)"
    assert lines[1].startswith("  writable: the project, a private TMPDIR, /dev/null")
    assert "  network: TCP (bind and connect) and abstract Unix sockets refused" in section
    assert (
        "  ! not enforced: read-only inside the project (.legato/, .claude/, .mcp.json, "
        "git's config, hooks, info/ and commondir (and .git cannot be moved), the files hooks "
        "and MCP servers run): writable while a command runs, since a right on a folder holds "
        "for everything in it; what a command changes there is put back after it"
    ) in lines
    assert "  ! not enforced: network: UDP and Unix sockets stay open" in section
    assert lines[-1].startswith("  ! Why not bubblewrap: bubblewrap (bwrap) was not found. Allow")
