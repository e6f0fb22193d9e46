"""Whether bubblewrap can run here, found once for the test run: the sandbox's tests skip,
saying why, only where it genuinely cannot."""

from __future__ import annotations

import functools
import subprocess

import pytest

from actors.tool_executor.sandbox.locate import find_bwrap
from actors.tool_executor.sandbox.probe import TRIAL_ARGS


@functools.cache
def why_bwrap_cannot_run() -> str | None:
    bwrap = find_bwrap()
    if bwrap is None:
        return "bubblewrap is not installed here (not Linux, or no bwrap on PATH)"
    ran = subprocess.run([bwrap, *TRIAL_ARGS, "true"], capture_output=True, text=True, check=False)
    if ran.returncode != 0:
        return f"bubblewrap cannot make a sandbox here: {ran.stderr.strip()}"
    return None


needs_bwrap = pytest.mark.skipif(
    why_bwrap_cannot_run() is not None, reason=str(why_bwrap_cannot_run())
)
