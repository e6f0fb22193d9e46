from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pytest

from tests.trusting import trust_project

if TYPE_CHECKING:
    from pathlib import Path


@dataclass(frozen=True)
class Dirs:
    home: Path
    project: Path

    @property
    def config(self) -> Path:
        return self.home / ".config" / "legato" / "config.json"

    @property
    def settings(self) -> Path:
        return self.project / ".legato" / "settings.json"

    def write_config(self, text: str) -> str:
        self.config.parent.mkdir(parents=True, exist_ok=True)
        self.config.write_text(text)
        self.config.chmod(0o600)
        return str(self.config)

    def write_settings(self, text: str) -> str:
        self.settings.parent.mkdir(parents=True, exist_ok=True)
        self.settings.write_text(text)
        trust_project(self.project, self.home)  # as the user would with ``legato trust``
        return os.path.realpath(self.settings)


@pytest.fixture
def dirs(tmp_path: Path) -> Dirs:
    (tmp_path / "home").mkdir()
    (tmp_path / "project").mkdir()
    return Dirs(tmp_path / "home", tmp_path / "project")
