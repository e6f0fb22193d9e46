"""A bwrap that lies where commands may write (Legato installed in the project's own .venv) is
not the one that runs: a confined command could replace it, and the next command would run the
replacement with nothing around it. The session runs a private copy instead."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import uuid
from typing import TYPE_CHECKING

from actors.protocol import DescribeSandbox
from actors.tool_executor.sandbox.locate import find_bwrap
from tests.tool_executor.harness import with_policy
from tests.tool_executor.sandbox_setup import needs_bwrap

if TYPE_CHECKING:
    from pathlib import Path

    import pytest

pytestmark = needs_bwrap


def install_in(project: Path) -> str:
    """The wheel's bwrap and its libraries, laid out as in a .venv inside ``project``."""
    shipped = find_bwrap()
    assert shipped is not None
    package = os.path.dirname(os.path.dirname(os.path.realpath(shipped)))
    site = project / ".venv" / "site-packages"
    shutil.copytree(package, site / os.path.basename(package))
    libraries = package + ".libs"
    if os.path.isdir(libraries):
        shutil.copytree(libraries, site / os.path.basename(libraries))
    return str(site / os.path.basename(package) / "_bin" / "bwrap")


async def test_a_command_cannot_replace_the_bwrap_the_next_command_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    # A temporary folder of the test's own: sessions of other tests (in another xdist worker)
    # make and remove their own copies in the shared one meanwhile.
    (tmp_path / "tmp").mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "tmp"))
    bwrap = install_in(project)
    escaped = tmp_path / f"escaped-{uuid.uuid4().hex}"
    replacement = f"#!/bin/sh\ntouch {escaped}\nexit 0\n"
    copies_before = set(copies())
    async with with_policy(project, answers=["y"] * 3, bwrap=bwrap) as s:
        replaced = await s.one(
            "Bash", command=f"printf '{replacement}' > {bwrap} && chmod +x {bwrap} && echo done"
        )
        after = await s.one("Bash", command=f"touch {tmp_path / 'outside'}; echo next")
        report = await s.executor.address.ask(DescribeSandbox())
    assert replaced.result.content == "done"  # the project's copy is the project's to change
    assert not escaped.exists()  # but it is not what runs the next command
    assert after.result.content.startswith("touch: cannot touch")  # which is still confined
    assert "run from a private copy" in report.mechanism and bwrap in report.mechanism
    assert not (tmp_path / "outside").exists()
    assert set(copies()) == copies_before  # the private copy went with the session


def copies() -> list[str]:
    return [name for name in os.listdir(tempfile.gettempdir()) if name.startswith("legato-bwrap-")]


async def test_legatos_own_environment_in_the_project_is_read_only_to_commands(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Legato installed in the project's .venv: a command that rewrote its code (or the bwrap
    it runs) would have it run, unconfined, by the next session."""
    project = tmp_path / "project"
    package = project / ".venv" / "lib" / "site-packages" / "actors"
    package.mkdir(parents=True)
    (package / "__init__.py").write_text("")
    monkeypatch.setattr(sys, "prefix", str(project / ".venv"))
    async with with_policy(project, answers=["y"] * 2) as s:
        changed = await s.one("Bash", command=f"echo 'import os' >> {package / '__init__.py'}")
        own = await s.one("Bash", command="echo mine > notes.txt && cat notes.txt")
    assert changed.result.is_error and "Read-only file system" in changed.result.content
    assert (package / "__init__.py").read_text() == ""
    assert own.result.content == "mine"  # the rest of the project stays the project's
