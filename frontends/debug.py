"""``ASSISTANT_LOG=debug``: where the debug log goes, and turning it on (spec 7).

The log is ``~/.legato/logs/legato-<YYYY-MM-DD>.log`` (UTC date; one file a day, appended to,
readable only by the user). It records requests (headers with the key redacted), responses,
retries, every message an actor handled with its time, and the provider chosen; never the
conversation's text, and never a key: every credential variable's value is cut out of each line.
"""

from __future__ import annotations

import os
import sys
from datetime import UTC, datetime
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Mapping

LEVEL_VARIABLE = "ASSISTANT_LOG"


def log_path(home: str, now: datetime | None = None) -> str:
    day = (now or datetime.now(UTC)).strftime("%Y-%m-%d")
    return os.path.join(home, ".legato", "logs", f"legato-{day}.log")


def start_debug_log(env: Mapping[str, str], home: str | None = None) -> str | None:
    """Start the debug log when ``ASSISTANT_LOG=debug``; returns its path, or None."""
    level = (env.get(LEVEL_VARIABLE) or "").strip().lower()
    if not level:
        return None
    if level != "debug":
        print(
            f"legato: warning: {LEVEL_VARIABLE}={level!r} is not a log level Legato knows; "
            f"set {LEVEL_VARIABLE}=debug for the debug log",
            file=sys.stderr,
        )
        return None
    from runtime import debuglog

    path = log_path(home if home is not None else os.path.expanduser("~"))
    try:
        log = debuglog.enable(path, debuglog.secrets_in(env))
    except OSError as error:
        print(
            f"legato: warning: cannot write the debug log {path}: {error.strerror}", file=sys.stderr
        )
        return None
    log.write("session", cwd=os.getcwd(), python=sys.version.split()[0])
    print(f"legato: debug log: {path}", file=sys.stderr)
    return path
