"""Whether bubblewrap can run here, found once for the test run: the sandbox's tests skip,
saying why, only where it genuinely cannot. And a bwrap that cannot, for the tests of what a
session says then."""

from __future__ import annotations

import functools
import subprocess
from typing import TYPE_CHECKING

import pytest

from actors.tool_executor.sandbox.locate import find_bwrap
from actors.tool_executor.sandbox.probe import TRIAL_ARGS

if TYPE_CHECKING:
    from pathlib import Path

# What bwrap says where unprivileged user namespaces are turned off.
REFUSAL = "bwrap: setting up uid map: Permission denied"


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


def failing_bwrap(folder: Path, *, release: Path | None = None) -> str:
    """A bwrap (in ``folder``/bin) that cannot make a sandbox. With ``release``, its trial fails
    only once that file exists: until the test creates it, the session's trial is not over."""
    path = folder / "bin" / "bwrap"
    path.parent.mkdir()
    wait = "" if release is None else f"while [ ! -e {release} ]; do sleep 0.01; done\n"
    path.write_text(
        f"#!/bin/sh\n[ \"$1\" = --version ] && exit 1\n{wait}echo '{REFUSAL}' >&2\nexit 1\n"
    )
    path.chmod(0o755)
    return str(path)
