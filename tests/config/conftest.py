from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.trusting import trust_project

REPO = Path(__file__).resolve().parents[2]


@dataclass
class Setup:
    """A project and a home of its own, so no real user config leaks into a test."""

    home: Path
    project: Path

    @property
    def config_file(self) -> Path:
        return self.home / ".config" / "legato" / "config.json"

    @property
    def settings_file(self) -> Path:
        return self.project / ".legato" / "settings.json"

    def config(self, text: str | dict[str, object]) -> str:
        self.config_file.parent.mkdir(parents=True, exist_ok=True)
        self.config_file.write_text(text if isinstance(text, str) else json.dumps(text))
        self.config_file.chmod(0o600)
        return str(self.config_file)

    def settings(self, text: str | dict[str, object], *, trust: bool = True) -> str:
        self.settings_file.parent.mkdir(parents=True, exist_ok=True)
        self.settings_file.write_text(text if isinstance(text, str) else json.dumps(text))
        # Trusted, as the user would with ``legato trust``: these tests are about what
        # settings do once applied (tests/config/test_trust.py is about trust itself).
        if trust:
            trust_project(self.project, self.home)
        return str(self.settings_file)

    def env(self, **extra: str) -> dict[str, str]:
        env = {
            k: v
            for k, v in os.environ.items()
            if not k.startswith(("ASSISTANT_", "CLOUD_", "OPENAI_", "ANTHROPIC_"))
            and not k.lower().endswith("_proxy")
        }
        env["HOME"] = str(self.home)
        env.update(extra)
        return env

    def legato(self, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run(
            [sys.executable, "-c", "from frontends.cli import main; main()", *args],
            capture_output=True,
            text=True,
            cwd=REPO,
            env=self.env(**env),
            timeout=60,
        )


@pytest.fixture
def setup(tmp_path: Path) -> Setup:
    (tmp_path / "home").mkdir()
    (tmp_path / "project").mkdir()
    return Setup(tmp_path / "home", Path(os.path.realpath(tmp_path / "project")))
