"""A package of the same name as one of Legato's, found first, is named with the way out."""

from __future__ import annotations

import os
import subprocess
from typing import TYPE_CHECKING

from tests.frontends.conftest import REPO

if TYPE_CHECKING:
    from pathlib import Path

LEGATO = str(REPO / ".venv" / "bin" / "legato")


def test_a_package_named_like_legatos_on_pythonpath_is_named_not_run(tmp_path: Path) -> None:
    impostor = tmp_path / "runtime"
    impostor.mkdir()
    (impostor / "__init__.py").write_text("raise SystemExit('the impostor ran')\n")
    env = {**os.environ, "PYTHONPATH": str(tmp_path)}
    result = subprocess.run(
        [LEGATO, "--version"], capture_output=True, text=True, env=env, timeout=60
    )
    assert result.returncode == 2
    assert "the impostor ran" not in result.stderr + result.stdout
    assert f"finds the package 'runtime' at {impostor / '__init__.py'}" in result.stderr
    assert "→ Install Legato in an environment of its own" in result.stderr
    assert "Traceback" not in result.stderr


def test_legatos_own_packages_pass_the_check() -> None:
    result = subprocess.run([LEGATO, "--version"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
