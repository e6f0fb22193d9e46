"""Running ``legato`` as a person types it in a project folder, and reading what the model got:
for the tests of the reference's flags."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from tests.frontends.conftest import Project

REPO = Path(__file__).resolve().parents[2]


def legato(
    project: Project,
    url: str,
    *args: str,
    stdin: str | None = None,
    env: dict[str, str] | None = None,
) -> subprocess.CompletedProcess[str]:
    """``legato *args`` run in the project folder, as a person types it there (no project
    word); ``stdin``: what is piped in, else /dev/null."""
    return subprocess.run(
        [sys.executable, "-c", "from frontends.cli import main; main()", *args],
        input=stdin,
        stdin=subprocess.DEVNULL if stdin is None else None,
        capture_output=True,
        text=True,
        cwd=project.root,
        env={**project.env(url), "PYTHONPATH": str(REPO), **(env or {})},
        timeout=60,
    )


def first_prompt(body: dict[str, Any]) -> str:
    content = body["messages"][0]["content"]
    if isinstance(content, str):
        return content
    return "".join(block.get("text", "") for block in content if block.get("type") == "text")


def system_text(body: dict[str, Any]) -> str:
    system = body.get("system")
    if isinstance(system, list):
        return "\n\n".join(str(block.get("text", "")) for block in system)
    return str(system or "")


def usage_error(done: subprocess.CompletedProcess[str], *needles: str) -> None:
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert "→" in done.stderr, done.stderr  # the remedy
    for needle in needles:
        assert needle in done.stderr, done.stderr
