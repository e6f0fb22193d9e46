from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pytest

from actors.memory_store.loader import load_context
from tests.home_project import project

if TYPE_CHECKING:
    from pathlib import Path

    from actors.protocol import ProjectContext


@dataclass(frozen=True)
class Tree:
    """A project folder and a home folder, both real (links resolved), with files in them."""

    root: Path
    home: Path

    def write(self, relative: str, text: str, *, at: Path | None = None) -> Path:
        path = (at or self.root) / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        return path

    def load(self) -> ProjectContext:
        return load_context(str(self.root), home=str(self.home), env={})


@pytest.fixture
def tree(tmp_path: Path) -> Tree:
    (tmp_path / "project").mkdir()
    (tmp_path / "home").mkdir()
    return Tree(tmp_path.joinpath("project").resolve(), tmp_path.joinpath("home").resolve())


def shown(context: ProjectContext, root: Path) -> list[str]:
    """The loaded files, named from the project root (``~/`` for the home folder's)."""
    names = []
    for guide in context.guides:
        path = guide.path
        if path.startswith(str(root) + os.sep):
            path = path[len(str(root)) + 1 :]
        names.append(path)
    return names


__all__ = ["project"]
