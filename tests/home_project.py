"""A project with HOME pointed at an empty folder, for tests that run Legato in-process
(skills, patterns, memory): shared by their conftest modules."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any

import pytest

from tests.frontends.conftest import Project

if TYPE_CHECKING:
    from pathlib import Path


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Project:
    """A project and an empty home; HOME points there, so in-process runs keep out of ~."""
    root = tmp_path / "project"
    home = tmp_path / "home"
    root.mkdir()
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    return Project(type(root)(os.path.realpath(root)), home)


def first_prompt(body: dict[str, Any]) -> str:
    """The text of the first user message a request carries."""
    content = body["messages"][0]["content"]
    if isinstance(content, str):
        return content
    return "\n".join(block["text"] for block in content if block.get("type") == "text")
