"""Whether bubblewrap, and Landlock, can confine commands here, found once for the test run: the
sandbox's tests skip, saying why, only where one genuinely cannot. And a bwrap that cannot, for
the tests of what a session says then."""

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


def failing_bwrap(folder: Path, *, release: Path | None = None) -> str:
    """A bwrap (in ``folder``/bin) that fails as one does where unprivileged user namespaces are
    turned off. With ``release``, its trial fails
    only once that file exists: until the test creates it, the session's trial is not over."""
    path = folder / "bin" / "bwrap"
    path.parent.mkdir(parents=True, exist_ok=True)
    wait = "" if release is None else f"while [ ! -e {release} ]; do sleep 0.01; done\n"
    path.write_text(
        f"#!/bin/sh\n[ \"$1\" = --version ] && exit 1\n{wait}echo '{REFUSAL}' >&2\nexit 1\n"
    )
    path.chmod(0o755)
    return str(path)
