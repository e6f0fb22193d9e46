"""Confining Bash commands with the kernel: bubblewrap on Linux.

``session.Sandbox`` is a session's: it tries bubblewrap once, keeps a private TMPDIR and the
project's blocked files, and gives each command the argv that confines it (``layout.py`` says
what is writable, read-only and hidden; ``places.py`` decides it from the settings).
``refusals.py`` tells the model which paths that layout refused a command that failed.
"""

from __future__ import annotations

from actors.tool_executor.sandbox.session import Sandbox

__all__ = ["Sandbox"]
