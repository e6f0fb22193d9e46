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
class Project:
    """A project folder and an empty home, so no real user config leaks into a test."""

    root: Path
    home: Path

    def write(self, relative: str, content: str) -> Path:
        path = self.root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content)
        return path

    def settings(self, **fields: object) -> None:
        """Writes the project's settings, trusted as the user would with ``legato trust``
        (``write`` alone leaves them untrusted)."""
        self.write(".legato/settings.json", json.dumps(fields))
        trust_project(self.root, self.home)

    def env(self, base_url: str, key: str = "test-key") -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
        env.pop("ANTHROPIC_API_KEY", None)
        env.update(HOME=str(self.home), ASSISTANT_BASE_URL=base_url, ASSISTANT_API_KEY=key)
        return env

    def legato(
        self,
        base_url: str,
        *args: str,
        key: str = "test-key",
        timeout: float = 60,
        env: dict[str, str] | None = None,
    ) -> subprocess.CompletedProcess[str]:
        """``legato`` run on the project against ``base_url``, with ``env`` added to the
        project's environment."""
        return subprocess.run(
            [sys.executable, "-c", "from frontends.cli import main; main()", str(self.root), *args],
            capture_output=True,
            text=True,
            cwd=REPO,
            env=self.env(base_url, key) | (env or {}),
            timeout=timeout,
        )

    def cli(self, *args: str) -> subprocess.CompletedProcess[str]:
        """A ``legato`` subcommand (``config``, ``trust``...) run in the project, as its user
        types it there; no model server is reached."""
        return subprocess.run(
            [sys.executable, "-c", "from frontends.cli import main; main()", *args],
            capture_output=True,
            text=True,
            cwd=self.root,
            env=self.env("http://127.0.0.1:9") | {"PYTHONPATH": str(REPO)},
            timeout=60,
        )

    def start(
        self, base_url: str, *args: str, env: dict[str, str] | None = None
    ) -> subprocess.Popen[str]:
        """``legato <root> *args`` running, its output in pipes (for tests that signal it), with
        ``env`` added to the project's environment."""
        return subprocess.Popen(
            [sys.executable, "-c", "from frontends.cli import main; main()", str(self.root), *args],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            cwd=REPO,
            env=self.env(base_url) | (env or {}),
        )


@pytest.fixture
def project(tmp_path: Path) -> Project:
    root = tmp_path / "project"
    home = tmp_path / "home"
    root.mkdir()
    home.mkdir()
    return Project(Path(os.path.realpath(root)), home)
