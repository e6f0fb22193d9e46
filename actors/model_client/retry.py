"""When to retry a failed request and how long to wait, as the official SDKs do.

Connection errors, timeouts, 408, 409, 429 and every 5xx are retried; the server's
``x-should-retry`` header overrides that. The wait is the server's ``retry-after-ms`` or
``retry-after`` when it is in (0, 60] seconds, otherwise ``min(0.5 * 2**n, 8)`` seconds less up
to 25% jitter (n counts the retries already made), so that many clients do not retry in step.
"""

from __future__ import annotations

import email.utils
import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Mapping

INITIAL_DELAY = 0.5
MAX_DELAY = 8.0
MAX_RETRY_AFTER = 60.0


def status_is_retryable(status: int, headers: Mapping[str, str]) -> bool:
    match headers.get("x-should-retry", "").strip().lower():
        case "true":
            return True
        case "false":
            return False
        case _:
            return status in (408, 409, 429) or status >= 500


def retry_after(
    headers: Mapping[str, str], *, now: Callable[[], float] = time.time
) -> float | None:
    """The server's requested wait in seconds, when it asked for a sensible one."""
    seconds: float | None = None
    if "retry-after-ms" in headers:
        seconds = _number(headers["retry-after-ms"])
        seconds = None if seconds is None else seconds / 1000
    if seconds is None and "retry-after" in headers:
        value = headers["retry-after"]
        seconds = _number(value)
        if seconds is None:  # the HTTP-date form
            try:
                seconds = email.utils.parsedate_to_datetime(value).timestamp() - now()
            except (TypeError, ValueError):
                seconds = None
    if seconds is not None and 0 < seconds <= MAX_RETRY_AFTER:
        return seconds
    return None


def backoff(retries_made: int, jitter: Callable[[], float]) -> float:
    """The wait before the next retry; ``jitter()`` returns a number in [0, 1)."""
    return min(INITIAL_DELAY * 2.0**retries_made, MAX_DELAY) * (1 - 0.25 * jitter())


def _number(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if value == value else None  # NaN is not a wait
