"""Leaving the terminal as we found it, whatever happens (even on a crash)."""

from __future__ import annotations

import contextlib
import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator

# Cursor shown, bracketed paste off, normal cursor keys, keypad off: the modes a full-screen
# or raw-mode program may have left switched on.
_RESET_MODES = "\x1b[?25h\x1b[?2004l\x1b[?1l\x1b>"


@contextlib.contextmanager
def restored_terminal() -> Iterator[None]:
    """Saves the tty's settings (echo, canonical mode) and puts them back on the way out."""
    fd = sys.stdin.fileno() if sys.stdin is not None and sys.stdin.isatty() else None
    if fd is None:
        yield
        return
    import termios

    saved = termios.tcgetattr(fd)
    try:
        yield
    finally:
        with contextlib.suppress(termios.error, OSError):
            termios.tcsetattr(fd, termios.TCSADRAIN, saved)
        if sys.stdout is not None and sys.stdout.isatty():
            with contextlib.suppress(OSError):
                os.write(sys.stdout.fileno(), _RESET_MODES.encode())
