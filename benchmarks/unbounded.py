"""``legato``, its searches' bounds left out: what they cost, measured by
``benchmarks.search_turns --unbounded``; nothing else is changed (a file over Grep's size cap
with a match in it would be shown).

    python -m benchmarks.unbounded PROJECT -p PROMPT ...

rg is run without the arguments ``search_turns.capped`` names: ``--max-filesize`` (a stat of
every file, to rg) and the ``--glob=!folder/`` that keep it out of the folders a walk skips.
Only what a turn would load anyway is loaded here before legato.
"""

from __future__ import annotations

import sys
from typing import Any

from benchmarks.search_timeline import when_loaded


def _unbounded(ripgrep: Any) -> None:
    running = ripgrep.running

    def unbounded(rg: str, args: list[str], cwd: str) -> Any:
        kept = [arg for arg in args if not arg.startswith(("--max-filesize=", "--glob=!"))]
        return running(rg, kept, cwd)

    ripgrep.running = unbounded


if __name__ == "__main__":
    when_loaded("actors.tool_executor.ripgrep", _unbounded)
    from frontends.cli import main

    main(sys.argv[1:])
