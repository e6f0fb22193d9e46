"""A write to Legato's, the reference's or git's own files asks in every mode, whatever the
letter case the model writes their folder in: on a disk that ignores case (macOS's default),
``.GIT/hooks/pre-commit`` is git's hook and ``.Claude/settings.json`` the reference's
settings."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import pytest

from actors.permission_broker.policy import Policy
from actors.permission_broker.questions import Question
from actors.protocol import GlobalConfig, PermissionRequest, ProjectContext, ProjectSettings

if TYPE_CHECKING:
    from pathlib import Path


@pytest.mark.parametrize(
    "path",
    [
        ".GIT/hooks/pre-commit",
        ".Git/config",
        ".CLAUDE/settings.json",
        ".Claude/commands/ship.md",
        ".LEGATO/settings.json",
        ".mcp.json",
    ],
)
@pytest.mark.parametrize("mode", ["auto", "bypass"])
def test_a_write_to_an_own_folder_in_another_case_asks(
    tmp_path: Path, path: str, mode: str
) -> None:
    root = os.path.realpath(tmp_path)
    policy = Policy(
        ProjectContext(
            project_root=root,
            config=GlobalConfig(),
            settings=ProjectSettings(),
            model="claude-sonnet-4-6",
            permission_mode=mode,  # type: ignore[arg-type]
            home=os.path.join(root, "home"),
        )
    )
    found = policy.assess(PermissionRequest(tool="Write", kind="create", paths=(path,)))
    assert isinstance(found, Question)
    assert found.person_only


def test_another_file_of_the_project_is_still_written_unasked_in_auto_mode(
    tmp_path: Path,
) -> None:
    root = os.path.realpath(tmp_path)
    policy = Policy(
        ProjectContext(
            project_root=root,
            config=GlobalConfig(),
            settings=ProjectSettings(),
            model="claude-sonnet-4-6",
            permission_mode="auto",
        )
    )
    found = policy.assess(PermissionRequest(tool="Write", kind="create", paths=("src/Git.py",)))
    assert not isinstance(found, Question) and found.allowed
