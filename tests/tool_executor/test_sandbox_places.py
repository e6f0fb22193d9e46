"""What the layout makes of the project as it is on disk: cases a hostile or unusual project
holds."""

from __future__ import annotations

import os
import tempfile
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
    # .claude, missing here, is sealed so that no command creates it; .legato is left alone
    claude = os.path.join(os.path.realpath(project), ".claude")
    assert plan.read_only == () and [path for path, _ in plan.sealed] == [claude]
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


def test_tmp_is_private_with_the_home_and_writable_folders_bound_back(tmp_path: Path) -> None:
    """The home folder (HOME=/tmp/... in some CI) stays readable, a writable folder under
    /var/tmp stays writable: each is mounted again over the empty /tmp or /var/tmp."""
    real = tmp_path.resolve()
    home, project, tmpdir = real / "home", real / "project", real / "tmp" / "legato-tmp-x"
    for folder in (home, project, tmpdir):
        folder.mkdir(parents=True)
    build = tempfile.mkdtemp(dir="/var/tmp")
    try:
        plan = layout(
            SandboxSettings(allow_write=(build,)),
            project=str(project),
            home=str(home),
            tmpdir=str(tmpdir),
        )
    finally:
        os.rmdir(build)
    assert "/tmp" in plan.private and "/var/tmp" in plan.private
    assert str(home) in plan.kept
    assert build in plan.writable and str(project) in plan.writable


def test_a_home_that_is_tmp_leaves_tmp_shared(tmp_path: Path) -> None:
    project = tmp_path.resolve() / "project"
    project.mkdir()
    plan = layout(SandboxSettings(), project=str(project), home="/tmp", tmpdir="/tmp/legato-x")
    assert "/tmp" not in plan.private


def test_legatos_folders_stay_hidden_inside_a_writable_project(tmp_path: Path) -> None:
    """A project that is the home folder: ~/.config/legato lies inside what commands write."""
    home = tmp_path.resolve()
    (home / ".config" / "legato").mkdir(parents=True)
    (home / ".legato").mkdir()
    plan = layout(SandboxSettings(), project=str(home), home=str(home), tmpdir="/nonexistent")
    hidden = dict(plan.hidden)
    assert hidden[str(home / ".config" / "legato")] is True
    assert hidden[str(home / ".legato")] is True


def test_a_writable_folder_of_the_project_that_links_out_of_it_is_not_bound(
    tmp_path: Path,
) -> None:
    """What the settings were judged (and trusted) by is a folder of the project; a link there
    now, made by a command or a pull, leads the mount elsewhere: it is left out, in words."""
    project, keys = tmp_path / "project", tmp_path / "home" / ".ssh"
    project.mkdir()
    keys.mkdir(parents=True)
    (project / "build").symlink_to(keys)
    (project / "out").mkdir()
    skipped = Skipped()
    plan = layout(
        SandboxSettings(allow_write=("build", "./out", f"{project}/build")),
        project=os.path.realpath(project),
        home=str(tmp_path / "home"),
        tmpdir=str(tmp_path / "tmp"),
        skipped=skipped,
    )
    assert plan.writable == (os.path.realpath(project),)
    real = os.path.realpath(keys)
    assert [note for note in skipped.notes if note.startswith("allowWrite")] == [
        f"allowWrite '{entry}': not writable, it is in the project but a link leads it to "
        f"{real}; name {real} itself in sandbox.allowWrite if it is meant (a place outside the "
        "project applies once you trust the project)"
        for entry in ("build", f"{project}/build")
    ]
