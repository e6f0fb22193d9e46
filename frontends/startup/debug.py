"""``ASSISTANT_LOG=debug``: the debug log, where it goes, and what it never shows.

The log is ``~/.legato/logs/legato-<YYYY-MM-DD>.log`` (UTC date; one file a day, appended to,
readable only by the user). It is the session's tracer (``runtime/tracing.py``): it records
requests (headers with the key redacted), responses, retries, every message an actor handled
with its time, and the provider chosen; never the conversation's text, and never a key: every
credential variable's value, and any value sent under a secret's name (``api_key``, an
``authorization`` header), is cut out of each line from then on.

Off by default, and then nothing here is even imported on the hot path. Writes are
line-buffered appends to a local file: one short ``write`` per event, cheap enough to make on
the event loop, and nothing is lost when the process ends with ``os._exit``.
"""

from __future__ import annotations

import os
import sys
import time
from typing import IO, TYPE_CHECKING

from actors.places import logs_dir
from frontends.errors_out import warn

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping
    from datetime import datetime

    from runtime import Tracer

LEVEL_VARIABLE = "ASSISTANT_LOG"
REDACTED = "[redacted]"
# Names whose values are never written, whatever they hold (headers and fields alike).
SENSITIVE = frozenset(
    {
        "x-api-key",
        "authorization",
        "proxy-authorization",
        "x-amz-security-token",
        "api_key",
        "apikey",
        "secret",
    }
)
_MIN_SECRET = 4  # shorter "secrets" would shred ordinary words


class DebugLog:
    def __init__(self, file: IO[str], secrets: Iterable[str] = ()) -> None:
        self._file = file
        self._secrets: set[str] = set()
        self._started = time.monotonic()
        for secret in secrets:
            self.add_secret(secret)

    def add_secret(self, secret: str | None) -> None:
        """Cut this value out of every later line (an API key, a cloud secret)."""
        if secret and len(secret.strip()) >= _MIN_SECRET:
            self._secrets.add(secret.strip())

    def trace(self, event: str, fields: Mapping[str, object]) -> None:
        """The session's tracer: one line per event."""
        self.write(event, **fields)

    def write(self, event: str, **fields: object) -> None:
        for name, value in fields.items():
            if name.lower() in SENSITIVE and isinstance(value, str):
                self.add_secret(value)
        elapsed = time.monotonic() - self._started
        now = time.time()
        stamp = f"{time.strftime('%H:%M:%S', time.gmtime(now))}.{int(now % 1 * 1000):03d}"
        parts = [f"{stamp} +{elapsed:.3f}s {event}"]
        parts += [f"{name}={self._show(name, value)}" for name, value in fields.items()]
        self._file.write(self.redact(" ".join(parts)) + "\n")

    def redact(self, text: str) -> str:
        for secret in self._secrets:
            text = text.replace(secret, REDACTED)
        return text

    def _show(self, name: str, value: object) -> str:
        if name.lower() in SENSITIVE:
            return REDACTED
        if isinstance(value, dict):
            return repr({k: self._show(str(k), v) for k, v in value.items()})
        return str(value)


_active: DebugLog | None = None


def tracer() -> Tracer | None:
    """The tracer to give the session's supervisor: the debug log's, when it is on."""
    return None if _active is None else _active.trace


def secrets_in(env: Mapping[str, str]) -> list[str]:
    """The values of the environment's credential variables, to redact from the start."""
    return [
        value
        for name, value in env.items()
        if value and any(word in name.upper() for word in ("KEY", "SECRET", "TOKEN", "PASSWORD"))
    ]


def log_path(home: str, now: datetime | None = None) -> str:
    # Imported here: datetime costs every start ~2 ms, and only a debug run needs it.
    from datetime import UTC, datetime

    day = (now or datetime.now(UTC)).strftime("%Y-%m-%d")
    return os.path.join(logs_dir(home), f"legato-{day}.log")


def open_log(path: str, secrets: Iterable[str] = ()) -> DebugLog:
    """A log appending to ``path`` (its folder is created, private to the user)."""
    os.makedirs(os.path.dirname(path) or ".", mode=0o700, exist_ok=True)
    # 0o600: even redacted, requests name files and commands of the user's projects.
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    # The file stays open for the process, and is closed by its exit.
    file = open(fd, "a", buffering=1, encoding="utf-8")  # noqa: SIM115
    log = DebugLog(file, secrets)
    log.write("start", pid=os.getpid())
    return log


def start_debug_log(env: Mapping[str, str], home: str | None = None) -> str | None:
    """Start the debug log when ``ASSISTANT_LOG=debug``; returns its path, or None."""
    global _active
    level = (env.get(LEVEL_VARIABLE) or "").strip().lower()
    if not level:
        return None
    if level != "debug":
        warn(
            f"{LEVEL_VARIABLE}={level!r} is not a log level Legato knows; "
            f"set {LEVEL_VARIABLE}=debug for the debug log"
        )
        return None
    path = log_path(home if home is not None else os.path.expanduser("~"))
    try:
        _active = open_log(path, secrets_in(env))
    except OSError as error:
        warn(f"cannot write the debug log {path}: {error.strerror}")
        return None
    _active.write("session", cwd=os.getcwd(), python=sys.version.split()[0])
    print(f"legato: debug log: {path}", file=sys.stderr)
    return path
