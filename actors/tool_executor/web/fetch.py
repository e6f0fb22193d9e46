"""The request loop: one GET, the https upgrade, redirects followed one by one (each a new URL:
asked about and its addresses judged again), and every cap a page can break (redirects, total
time, time between bytes, body size, decompressed size), each ending with a message that names
the cap.

Requests go straight to a transport, not through an ``httpx.AsyncClient``: there is no cookie
jar, no authentication and nothing read from the process's environment to send. The headers
sent are the ones written below, and only those.
"""

from __future__ import annotations

import zlib
from contextlib import aclosing
from typing import TYPE_CHECKING

import anyio
import httpx
import msgspec

from actors.errors import FetchFailed
from actors.proxies import certificates, proxy_for
from actors.tool_executor.web.address import first_local, resolve
from actors.tool_executor.web.transport import GuardedBackend, guarded_transport
from actors.visible import escape_controls

if TYPE_CHECKING:
    from collections.abc import Awaitable, Callable, Mapping

    # Asked before each connection: the URL, its host and the first address it resolved to
    # that is on this machine or its networks (None: all public). Raises to refuse.
    Check = Callable[[str, str, str | None], Awaitable[None]]

MB = 1 << 20
REDIRECTS = (301, 302, 303, 307, 308)
USER_AGENT = "Legato-WebFetch/1 (a coding assistant fetching a page its user asked about)"
ACCEPT = (
    "text/html, text/markdown;q=0.9, text/plain;q=0.9, application/json;q=0.8, "
    "application/pdf;q=0.7, */*;q=0.1"
)


class Limits(msgspec.Struct, frozen=True):
    redirects: int = 10
    total: float = 30.0  # seconds for the whole fetch, every hop and byte included
    idle: float = 10.0  # seconds without a byte (or a connection) before giving up
    upgrade: float = 3.0  # seconds the https attempt of an http URL may take to connect
    body: int = 10 * MB  # bytes of the body kept, after decompression


class Fetched(msgspec.Struct, frozen=True):
    url: str  # where the page came from, after redirects
    status: int
    reason: str
    content_type: str
    body: bytes
    cut: bool  # the body went on past the size cap; ``body`` is its beginning
    elapsed: float


def parse(raw: str) -> httpx.URL:
    """The model's URL, or a FetchFailed naming what is wrong with it."""
    shown = escape_controls(raw, newlines=True)
    try:
        url = httpx.URL(raw.strip())
    except httpx.InvalidURL as exc:
        raise FetchFailed(f"url is not a valid URL ({exc}): {shown}", remedy="") from None
    if url.scheme not in ("http", "https"):
        raise FetchFailed(
            f"url must be an http or https URL, not {url.scheme or 'a relative one'}: {shown}",
            remedy="Give a full URL such as https://example.com/page",
        )
    if not url.host:
        raise FetchFailed(f"url has no host: {shown}", remedy="")
    if url.userinfo:
        raise FetchFailed(
            "url holds a user name or password; WebFetch never sends credentials.",
            remedy="Give the URL without the user:password@ part",
        )
    return url.copy_with(fragment=None)


async def fetch(
    url: httpx.URL,
    check: Check,
    *,
    env: Mapping[str, str],
    limits: Limits = Limits(),  # noqa: B008 (frozen)
    ports: Mapping[int, int] | None = None,
) -> Fetched:
    started = anyio.current_time()
    hop = _Hops(check, env, limits, ports)
    try:
        with anyio.fail_after(limits.total):
            page = await hop.follow(url)
    except TimeoutError:
        raise FetchFailed(
            f"{_shown(url)} took longer than {limits.total:g} s (WebFetch's limit for a page)."
        ) from None
    except httpx.TimeoutException:
        raise FetchFailed(
            f"{_shown(url)} sent nothing for {limits.idle:g} s (WebFetch's limit between bytes)."
        ) from None
    except httpx.HTTPError as exc:
        raise FetchFailed(f"Fetching {_shown(url)} failed: {_reason(exc)}") from None
    return msgspec.structs.replace(page, elapsed=anyio.current_time() - started)


class _Hops:
    def __init__(
        self,
        check: Check,
        env: Mapping[str, str],
        limits: Limits,
        ports: Mapping[int, int] | None,
    ) -> None:
        self._check = check
        self._env = env
        self._limits = limits
        self._local_allowed: set[str] = set()  # hosts whose permission knew they are local
        self._backend = GuardedBackend(self._local_allowed.__contains__, ports=ports)

    async def follow(self, url: httpx.URL) -> Fetched:
        seen: set[str] = set()
        for hop in range(self._limits.redirects + 1):
            if str(url) in seen:
                raise FetchFailed(f"Redirect loop: {_shown(url)} redirects back to itself.")
            seen.add(str(url))
            await self._permit(url)
            # An http URL is tried on https first, as the reference does, unless it names a
            # port: a server on :8000 speaks plain http. Only the URL asked for: a server that
            # redirects https to http means it.
            upgrade = hop == 0 and url.scheme == "http" and url.port is None
            async with await self._get(url, upgrade) as (response, got):
                if response.status_code in REDIRECTS and "location" in response.headers:
                    url = self._next(got, response.headers["location"])
                    continue
                return await self._page(got, response)
        raise FetchFailed(
            f"More than {self._limits.redirects} redirects, the last to {_shown(url)}.",
            remedy="Fetch the final URL directly if you know it",
        )

    async def _permit(self, url: httpx.URL) -> None:
        raw_host = url.raw_host.decode("ascii")
        try:
            addresses = await resolve(raw_host, url.port or (443 if url.scheme == "https" else 80))
        except OSError as exc:
            raise FetchFailed(
                f"The host {url.host} could not be resolved: {exc.strerror}."
            ) from None
        local = first_local(addresses)
        await self._check(str(url), url.host, local)
        if local is not None:
            self._local_allowed.add(raw_host)

    def _next(self, url: httpx.URL, location: str) -> httpx.URL:
        try:
            target = url.join(location)
        except httpx.InvalidURL:
            raise FetchFailed(
                f"{_shown(url)} redirects to an invalid URL: {escape_controls(location)}"
            ) from None
        return parse(str(target))

    async def _get(self, url: httpx.URL, upgrade: bool) -> _Open:
        if upgrade:
            secure = url.copy_with(scheme="https")
            try:
                return await self._open(secure, connect=self._limits.upgrade)
            except (httpx.ConnectError, httpx.ConnectTimeout):
                pass  # no TLS on 443 (refused, a handshake failure or silence): plain http
        return await self._open(url, connect=self._limits.idle)

    async def _open(self, url: httpx.URL, *, connect: float) -> _Open:
        idle = self._limits.idle
        headers = {
            "User-Agent": USER_AGENT,
            "Accept": ACCEPT,
            "Accept-Encoding": "gzip, deflate",
        }
        timeout = {"connect": connect, "read": idle, "write": idle, "pool": idle}
        request = httpx.Request("GET", url, headers=headers, extensions={"timeout": timeout})
        transport = self._transport(url)
        try:
            response = await transport.handle_async_request(request)
        except BaseException:
            with anyio.CancelScope(shield=True), anyio.move_on_after(2):
                await transport.aclose()
            raise
        return _Open(url, response, transport)

    def _transport(self, url: httpx.URL) -> httpx.AsyncBaseTransport:
        verify = certificates(self._env)
        proxy = proxy_for(str(url), self._env)
        if proxy is not None:
            # The proxy connects and makes the final DNS lookup; the target's addresses were
            # judged before the permission was asked (``_permit``).
            return httpx.AsyncHTTPTransport(proxy=proxy.url, verify=verify, trust_env=False)
        return guarded_transport(self._backend, verify)

    async def _page(self, url: httpx.URL, response: httpx.Response) -> Fetched:
        status, reason = response.status_code, response.reason_phrase
        if status >= 400:
            raise FetchFailed(f"{_shown(url)} answered {status} {reason}.")
        cap = self._limits.body
        length = response.headers.get("content-length", "")
        if length.isdigit() and int(length) > cap:
            raise FetchFailed(
                f"{_shown(url)} is {shown_size(int(length))}; WebFetch reads at most "
                f"{shown_size(cap)} of a page.",
                remedy="Find a smaller page, or download the file with Bash if it is needed",
            )
        decoder = _decoder(response.headers.get("content-encoding", ""), url)
        body = bytearray()
        cut = False
        stream = response.stream
        assert isinstance(stream, httpx.AsyncByteStream)  # an async transport's
        # Closed at once when the cap stops the reading, not when the collector gets to it.
        async with aclosing(aiter(stream)) as chunks:  # type: ignore[type-var]
            async for chunk in chunks:
                body += decoder(chunk, cap + 1 - len(body))
                if len(body) > cap:
                    del body[cap:]
                    cut = True
                    break
        return Fetched(
            url=str(url),
            status=status,
            reason=reason,
            content_type=response.headers.get("content-type", ""),
            body=bytes(body),
            cut=cut,
            elapsed=0.0,
        )


class _Open:
    """A response being read, and its transport: both closed on leaving, whatever happens
    (an interrupted fetch leaves no connection open), with httpx's errors as FetchFailed."""

    def __init__(
        self, url: httpx.URL, response: httpx.Response, transport: httpx.AsyncBaseTransport
    ) -> None:
        self.url = url
        self.response = response
        self.transport = transport

    async def __aenter__(self) -> tuple[httpx.Response, httpx.URL]:
        return self.response, self.url

    async def __aexit__(self, *exc: object) -> None:
        with anyio.CancelScope(shield=True), anyio.move_on_after(2):
            await self.response.aclose()
            await self.transport.aclose()


def _decoder(encoding: str, url: httpx.URL) -> Callable[[bytes, int], bytes]:
    """Decompresses a body piece by piece, never more than ``room`` bytes at a time: a small
    gzip bomb is stopped at the size cap without being inflated whole in memory."""
    encoding = encoding.strip().lower()
    if encoding in ("", "identity"):
        return lambda chunk, room: chunk[:room]
    if encoding not in ("gzip", "x-gzip", "deflate"):
        raise FetchFailed(
            f"{_shown(url)} is compressed with {encoding}, which WebFetch cannot read."
        )
    inflater = zlib.decompressobj(zlib.MAX_WBITS | 32)  # a gzip or zlib header, told apart

    def decode(chunk: bytes, room: int) -> bytes:
        try:
            return inflater.decompress(chunk, max(room, 1))
        except zlib.error as exc:
            raise FetchFailed(f"{_shown(url)} sent a corrupt {encoding} body ({exc}).") from None

    return decode


def _shown(url: httpx.URL) -> str:
    return escape_controls(str(url), newlines=True)


def _reason(exc: httpx.HTTPError) -> str:
    kinds: dict[type[httpx.HTTPError], str] = {
        httpx.ConnectError: "could not connect",
        httpx.ProxyError: "the proxy refused it",
        httpx.RemoteProtocolError: "the server broke the HTTP protocol",
        httpx.ReadError: "the connection broke",
    }
    kind = kinds.get(type(exc), type(exc).__name__)
    detail = str(exc)
    return f"{kind} ({escape_controls(detail, newlines=True)})." if detail else f"{kind}."


def shown_size(count: int) -> str:
    """``532 bytes``, ``12.3 KB``, ``5.0 GB``."""
    if count < 1024:
        return f"{count} bytes"
    value = count / 1024
    units = ["KB", "MB", "GB", "TB"]
    while value >= 1024 and len(units) > 1:
        value /= 1024
        units.pop(0)
    return f"{value:.1f} {units[0]}"
