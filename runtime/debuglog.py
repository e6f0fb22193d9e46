"""An opt-in debug log: one line per event, with secrets cut out.

Off by default: ``active`` is ``None`` and every call site tests it before building a line, so
a normal run pays one attribute read per event and imports nothing (the standard ``logging``
package is not used: its import and handler machinery would cost every run, and the log needs
none of it). The kernel logs each message an actor handles, by type only (messages carry file
contents and conversation text, which do not belong in a log); other layers log what they do.

Writes are line-buffered appends to a local file: one short ``write`` per event, cheap enough to
make on the event loop, and nothing is lost when the process ends with ``os._exit``.
"""

from __future__ import annotations

import os
import time
from typing import IO, TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterable, Mapping

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

    def write(self, event: str, **fields: object) -> None:
        elapsed = time.monotonic() - self._started
        now = time.time()
        # time, not datetime: the kernel imports this module, and datetime costs every run ~2 ms.
        stamp = f"{time.strftime('%H:%M:%S', time.gmtime(now))}.{int(now % 1 * 1000):03d}"
        parts = [f"{stamp} +{elapsed:.3f}s {event}"]
        parts += [f"{name}={self._show(name, value)}" for name, value in fields.items()]
        self._file.write(self.redact(" ".join(parts)) + "\n")

    def redact(self, text: str) -> str:
        for secret in self._secrets:
            text = text.replace(secret, REDACTED)
        return text

    def close(self) -> None:
        self._file.close()

    def _show(self, name: str, value: object) -> str:
        if name.lower() in SENSITIVE:
            return REDACTED
        if isinstance(value, dict):
            return repr({k: self._show(str(k), v) for k, v in value.items()})
        return str(value)


active: DebugLog | None = None


def enable(path: str, secrets: Iterable[str] = ()) -> DebugLog:
    """Start logging to ``path`` (appended to; its folder is created, private to the user)."""
    global active
    os.makedirs(os.path.dirname(path) or ".", mode=0o700, exist_ok=True)
    # 0o600: even redacted, requests name files and commands of the user's projects.
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    # The file stays open for the process: closed by disable(), or by the exit.
    file = open(fd, "a", buffering=1, encoding="utf-8")  # noqa: SIM115
    active = DebugLog(file, secrets)
    active.write("start", pid=os.getpid())
    return active


def disable() -> None:
    global active
    if active is not None:
        active.close()
        active = None


def secrets_in(env: Mapping[str, str]) -> list[str]:
    """The values of the environment's credential variables, to redact from the start."""
    return [
        value
        for name, value in env.items()
        if value and any(word in name.upper() for word in ("KEY", "SECRET", "TOKEN", "PASSWORD"))
    ]
