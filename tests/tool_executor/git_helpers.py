"""What the tests of git's files in the sandbox share: a real git, and a command through the
real executor."""

from __future__ import annotations

import subprocess
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pathlib import Path

    from tests.tool_executor.harness import PolicySession

IDENTITY = "-c user.name=t -c user.email=t@example.com"
YES = ["y"] * 50  # a person who says yes to every question


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=root, check=True, capture_output=True, text=True
    ).stdout


async def run(s: PolicySession, command: str) -> tuple[str, bool]:
    """A Bash command's result: its text, and whether it failed."""
    done = await s.one("Bash", command=command)
    return done.result.content, done.result.is_error
