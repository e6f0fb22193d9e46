"""Confining Bash commands with the kernel: bubblewrap on Linux, Landlock where it cannot run,
sandbox-exec on macOS (``seatbelt.py`` writes its profile from the same layout).

``session.Sandbox`` is a session's: it tries bubblewrap once (``probe.py``), and Landlock if
that fails, keeps a private TMPDIR and the project's blocked files, and gives each command what
confines it. ``places.py`` decides from the settings what is writable, read-only and hidden;
``layout.py`` says it to bubblewrap; ``landlock.py`` builds it as a Landlock ruleset, which
``launcher.py`` applies in the process that becomes the command; ``words.py`` says what each
enforces, and what the fallback does not.
``limits.py`` says how many processes and how much memory a command may take.
``refusals.py`` tells the model which paths that layout refused a command that failed.
"""

from __future__ import annotations

from actors.tool_executor.sandbox.session import Sandbox

__all__ = ["Sandbox"]
