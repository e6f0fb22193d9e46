"""The one place a fetch connects: the host is resolved here, every address it resolves to is
judged, and the connection goes to an address that was judged, never to a name the system
resolves again behind the check (a DNS answer that changes between the permission's lookup and
the connection, "DNS rebinding", meets the same judgement).

TLS still verifies the URL's host name: httpcore hands the name from the URL to ``start_tls``,
whatever address the stream was opened to.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import httpcore

from actors.errors import FetchFailed
from actors.tool_executor.web.address import first_local, resolve

if TYPE_CHECKING:
    from collections.abc import Callable, Iterable, Mapping

    import httpx


class GuardedBackend(httpcore.AsyncNetworkBackend):
    """httpcore's network backend that connects only where the permission given allows.

    ``local_allowed(host)`` says whether the permission for ``host`` was given knowing it is on
    this machine or its networks (a rule naming that very host). ``ports`` maps a port to
    another, for tests that stand a server in for 80 or 443.
    """

    def __init__(
        self, local_allowed: Callable[[str], bool], *, ports: Mapping[int, int] | None = None
    ) -> None:
        self._local_allowed = local_allowed
        self._ports = dict(ports or {})
        self._inner = httpcore.AnyIOBackend()

    async def connect_tcp(
        self,
        host: str,
        port: int,
        timeout: float | None = None,  # noqa: ASYNC109 (httpcore's interface)
        local_address: str | None = None,
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        port = self._ports.get(port, port)
        try:
            addresses = await resolve(host, port)
        except OSError as exc:
            raise FetchFailed(f"The host {host} could not be resolved: {exc.strerror}.") from None
        local = first_local(addresses)
        if local is not None and not self._local_allowed(host):
            raise FetchFailed(
                f"{host} resolved to {local}, an address on this machine or its network; "
                "WebFetch reaches such addresses only with an allow rule naming the host.",
                remedy=f"Add the rule WebFetch(domain:{host}) if this host is meant to be reached.",
            )
        failure: httpcore.ConnectError | httpcore.ConnectTimeout | None = None
        for address in addresses:
            try:
                return await self._inner.connect_tcp(
                    address, port, timeout, local_address, socket_options
                )
            except (httpcore.ConnectError, httpcore.ConnectTimeout) as exc:
                failure = exc  # the next address may answer, as the system's own connect does
        assert failure is not None  # getaddrinfo answers at least one address or raises
        raise failure

    async def connect_unix_socket(
        self,
        path: str,
        timeout: float | None = None,  # noqa: ASYNC109 (httpcore's interface)
        socket_options: Iterable[Any] | None = None,
    ) -> httpcore.AsyncNetworkStream:
        raise FetchFailed("WebFetch does not connect to sockets.")

    async def sleep(self, seconds: float) -> None:
        await self._inner.sleep(seconds)


def guarded_transport(backend: GuardedBackend, verify: Any) -> httpx.AsyncHTTPTransport:
    """httpx's transport, its connection pool given the guarded backend."""
    import httpx

    transport = httpx.AsyncHTTPTransport(verify=verify, trust_env=False)
    # httpx takes no network backend of its own; its pool does. Not httpx's public API, but the
    # attribute its transport sends every request through; uv.lock pins httpx.
    transport._pool = httpcore.AsyncConnectionPool(
        ssl_context=httpx.create_ssl_context(verify=verify, trust_env=False),
        network_backend=backend,
        max_connections=4,
    )
    return transport
