"""A Claude Code user's repository (claude_repo.py) in a project folder with an empty home,
driven through the real ``legato``: the frontends' ``project`` fixture, with the files in it."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from tests.claude_code.claude_repo import write_repo
from tests.frontends.conftest import Project, project

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["project"]


@pytest.fixture
def repo(project: Project) -> Project:
    """The project folder holding every file of the Claude Code user's repository."""
    write_repo(project.root)
    return project


def rule_line(path: Path, rule: str) -> int:
    """The line of ``path`` where ``rule`` is written (1-based)."""
    lines = path.read_text().splitlines()
    return next(number for number, line in enumerate(lines, 1) if f'"{rule}"' in line)
