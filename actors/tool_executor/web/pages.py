"""A session's fetched pages: each fetched once, its text kept for 15 minutes (a model that
reads a page, then asks a second question of it, does not fetch it twice), at most 50 MB of
text in all, the least recently used page out first.

The cache never stands in for a permission: on a hit, every URL the fetch went through is
asked about again, as a fetch would be (a rule may have changed since, a domain been refused).

The fast model that answers a prompt over a page is plugged in from outside (``summary.py``'s
``FastModel``); the shape of its ``Answer`` is defined here, where it is called.
"""

from __future__ import annotations

from collections import OrderedDict
from typing import TYPE_CHECKING, NamedTuple

import anyio
import msgspec

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Mapping

    from actors.protocol import Usage
    from actors.tool_executor.web.fetch import Check, Limits

TTL = 15 * 60.0
CACHE_BYTES = 50 << 20


class Answer(NamedTuple):
    """The small model's answer (None when there is none), why it failed (None when it did not
    or there is no small model), and the request's usage with the model that priced it."""

    text: str | None
    failure: str | None
    spent: tuple[tuple[str, Usage], ...] = ()


if TYPE_CHECKING:
    # The fast model's answer to a prompt over a page: (url, text, prompt) -> its answer, or
    # None and why it failed (both None: there is no fast model), and what it cost.
    Summarise = Callable[[str, str, str], Awaitable[Answer]]


class Page(msgspec.Struct, frozen=True):
    """A page as text, and where it came from."""

    url: str  # after redirects
    status: int
    reason: str
    kind: str  # "html", "text", "pdf"
    text: str
    size: int  # bytes received, after decompression
    cut: bool  # the body went on past the size cap
    elapsed: float
    asked: tuple[tuple[str, str, str | None], ...]  # the checks it took: url, host, local
    cached: bool = False


class WebPages:
    """Fetches pages for one session's WebFetch calls, and keeps them a while."""

    def __init__(
        self,
        env: Mapping[str, str],
        *,
        limits: Limits | None = None,
        ports: Mapping[int, int] | None = None,  # for tests: a server standing in for 80/443
        ttl: float = TTL,
        capacity: int = CACHE_BYTES,
    ) -> None:
        self._env = env
        self._limits = limits
        self._ports = ports
        self._ttl = ttl
        self._capacity = capacity
        self._cache: OrderedDict[str, tuple[float, Page]] = OrderedDict()
        self._bytes = 0
        self.summarise: Summarise | None = None  # None: no fast model, the page's text is given
        # What the fast model may still spend (--max-budget-usd); None: no budget.
        self.spend_left: float | None = None

    def allow(self, left: float) -> None:
        """The run may spend at most ``left`` more. Never raised: what the calls already
        running have taken is not in ``left`` until their results are counted."""
        self.spend_left = left if self.spend_left is None else min(self.spend_left, left)

    def take(self, cost: float | None) -> bool:
        """Whether a request costing at most ``cost`` (None: unknown prices) may go; if so,
        that much is taken from what is left."""
        if self.spend_left is None:
            return True
        if cost is None or cost > self.spend_left:
            return False
        self.spend_left -= cost
        return True

    async def get(self, raw_url: str, check: Check) -> Page:
        from actors.tool_executor.web.fetch import Limits, fetch, parse
        from actors.tool_executor.web.page import to_text

        url = parse(raw_url)
        key = str(url)
        hit = self._cached(key)
        if hit is not None:
            for hop in hit.asked:
                await check(*hop)
            return msgspec.structs.replace(hit, cached=True)
        asked: list[tuple[str, str, str | None]] = []

        async def recorded(url: str, host: str, local: str | None) -> None:
            await check(url, host, local)
            asked.append((url, host, local))

        fetched = await fetch(
            url, recorded, env=self._env, limits=self._limits or Limits(), ports=self._ports
        )
        text, kind = await anyio.to_thread.run_sync(to_text, fetched, abandon_on_cancel=True)
        page = Page(
            url=fetched.url,
            status=fetched.status,
            reason=fetched.reason,
            kind=kind,
            text=text,
            size=len(fetched.body),
            cut=fetched.cut,
            elapsed=fetched.elapsed,
            asked=tuple(asked),
        )
        self._keep(key, page)
        return page

    def _cached(self, key: str) -> Page | None:
        entry = self._cache.get(key)
        if entry is None:
            return None
        stored, page = entry
        if anyio.current_time() - stored > self._ttl:
            self._drop(key)
            return None
        self._cache.move_to_end(key)
        return page

    def _keep(self, key: str, page: Page) -> None:
        cost = _cost(page)
        if cost > self._capacity:
            return
        if key in self._cache:
            self._drop(key)
        while self._bytes + cost > self._capacity:
            self._drop(next(iter(self._cache)))
        self._cache[key] = (anyio.current_time(), page)
        self._bytes += cost

    def _drop(self, key: str) -> None:
        _, page = self._cache.pop(key)
        self._bytes -= _cost(page)


def _cost(page: Page) -> int:
    return len(page.text.encode("utf-8", errors="replace"))
