"""The cycle collector, held off while a process starts.

Start-up creates hundreds of thousands of long-lived objects (modules, classes, functions), and
every full collection meanwhile walks them all: in a one-turn run that is tens of milliseconds
spent finding no garbage. A program's entry point switches the collector off first thing
(``gc.disable()``: importing this package would itself be start-up work).
``release_collector``, called once the program's start is over (the first model turn; in the
terminal, the prompt shown with its completions, whichever comes first), moves everything
alive into the permanent generation (``gc.freeze``: later collections do not walk it again)
and switches the collector back on, for the garbage a long run does make.
"""

from __future__ import annotations

import gc

_released = False


def release_collector() -> None:
    """Freeze what start-up made and switch a held collector back on; the first call only."""
    global _released
    if not _released:
        _released = True
        if not gc.isenabled():
            gc.freeze()
            gc.enable()
