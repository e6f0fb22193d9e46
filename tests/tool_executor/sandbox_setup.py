"""Whether bubblewrap, and Landlock, can confine commands here, found once for the test run: the
sandbox's tests skip, saying why, only where one genuinely cannot."""

from __future__ import annotations

import functools
import os
import subprocess
from typing import TYPE_CHECKING

import pytest

from actors.tool_executor.sandbox import landlock
from actors.tool_executor.sandbox.landlock import make_launcher
from actors.tool_executor.sandbox.locate import find_bwrap
from actors.tool_executor.sandbox.probe import TRIAL_ARGS

if TYPE_CHECKING:
    from pathlib import Path


@functools.cache
def why_bwrap_cannot_run() -> str | None:
    bwrap = find_bwrap()
    if bwrap is None:
        return "bubblewrap is not installed here (not Linux, or no bwrap on PATH)"
    ran = subprocess.run([bwrap, *TRIAL_ARGS, "true"], capture_output=True, text=True, check=False)
    if ran.returncode != 0:
        return f"bubblewrap cannot make a sandbox here: {ran.stderr.strip()}"
    return None


@functools.cache
def why_landlock_cannot_run() -> str | None:
    if landlock.abi() < 1:
        return "this kernel has no Landlock, or it is turned off"
    launcher = make_launcher()
    ruleset = landlock.build(landlock.abi(), landlock.Plan((), (), True))
    try:
        ran = subprocess.run(
            [*launcher.argv(ruleset), "true"],
            capture_output=True,
            text=True,
            check=False,
            pass_fds=(ruleset,),
        )
    finally:
        os.close(ruleset)
        launcher.remove()
    if ran.returncode != 0:
        return f"Landlock cannot confine a command here: {ran.stderr.strip()}"
    return None


needs_bwrap = pytest.mark.skipif(
    why_bwrap_cannot_run() is not None, reason=str(why_bwrap_cannot_run())
)
needs_landlock = pytest.mark.skipif(
    why_landlock_cannot_run() is not None, reason=str(why_landlock_cannot_run())
)


def failing_bwrap(folder: Path) -> str:
    """A bwrap that fails as one does where unprivileged user namespaces are turned off."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "bwrap"
    path.write_text("#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n")
    path.chmod(0o755)
    return str(path)
