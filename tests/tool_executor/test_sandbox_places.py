"""What the layout makes of the project as it is on disk: cases a hostile or unusual project
holds."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from actors.protocol import SandboxSettings
from actors.tool_executor.sandbox.places import Skipped, layout

if TYPE_CHECKING:
    from pathlib import Path


def test_a_legato_folder_that_is_a_symlink_out_of_the_project_is_reported(
    tmp_path: Path,
) -> None:
    """Its target is read-only anyway, but the link itself lives in the writable project, so a
    command could put a folder of its own there: the doctor says so, with the remedy."""
    project, shared = tmp_path / "project", tmp_path / "shared"
    project.mkdir()
    shared.mkdir()
    (project / ".legato").symlink_to(shared)
    skipped = Skipped()
    plan = layout(
        SandboxSettings(deny_read=()),
        project=os.path.realpath(project),
        home=str(tmp_path),
        tmpdir=str(tmp_path / "tmp"),
        skipped=skipped,
    )
    assert plan.read_only == () and plan.sealed == ()
    assert skipped.notes == [
        f".legato is a symlink to {os.path.realpath(shared)}: a command can replace the link; "
        "make it a real folder or file to keep it read-only"
    ]


def test_a_real_legato_folder_is_read_only_and_not_reported(tmp_path: Path) -> None:
    (tmp_path / ".legato").mkdir()
    skipped = Skipped()
    plan = layout(
        SandboxSettings(deny_read=()),
        project=os.path.realpath(tmp_path),
        home=str(tmp_path),
        tmpdir="/nonexistent-tmp",
        skipped=skipped,
    )
    assert plan.read_only == (os.path.realpath(tmp_path / ".legato"),)
    assert skipped.notes == []
