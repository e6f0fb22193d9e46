"""The HTTP client's proxies and certificates, from the session's environment.

httpx's ``trust_env`` reads the process's own ``os.environ``; a session may be given another
environment (``legato --demo`` talks to its loopback server with the proxy variables taken
out; tests give each session its own). So the variables are read here, from the environment
the model client was given, with the meaning curl and httpx give them: ``HTTPS_PROXY``,
``HTTP_PROXY`` and ``ALL_PROXY`` (lower case wins over upper case), ``NO_PROXY`` naming hosts,
domains (``.example.com`` or ``example.com``), addresses and ``*`` that go direct, and
``SSL_CERT_FILE`` / ``SSL_CERT_DIR`` for the certificates to trust. ``proxy_for`` says which
proxy (and which variable) a request goes through, so that a failure there names the proxy.
"""

from __future__ import annotations

import ipaddress
import ssl
from typing import TYPE_CHECKING, NamedTuple

from actors.visible import without_password

if TYPE_CHECKING:
    from collections.abc import Mapping

    import httpx


class Proxy(NamedTuple):
    variable: str  # the variable that named it, as set: HTTPS_PROXY, https_proxy, ALL_PROXY
    url: str

    def __str__(self) -> str:
        """The URL without its password, fit for a message."""
        return without_password(self.url)


def proxy_routes(env: Mapping[str, str]) -> dict[str, str | None]:
    """URL pattern -> proxy URL, or None for the hosts ``NO_PROXY`` sends direct."""
    return {
        pattern: None if proxy is None else proxy.url for pattern, proxy in _routes(env).items()
    }


def proxy_for(url: str, env: Mapping[str, str]) -> Proxy | None:
    """The proxy a request to ``url`` goes through, or None when it goes direct: decided by
    httpx's own pattern matching, most specific pattern first, as the client decides it."""
    import httpx

    # Not httpx's public API, but the matcher its client applies to the mounts made below: a
    # rule of our own could name a proxy the request never went through. uv.lock pins httpx.
    from httpx._utils import URLPattern

    target = httpx.URL(url)
    patterns = sorted(
        ((URLPattern(pattern), proxy) for pattern, proxy in _routes(env).items()),
        key=lambda item: item[0].priority,
    )
    for pattern, proxy in patterns:
        if pattern.matches(target):
            return proxy
    return None


def _routes(env: Mapping[str, str]) -> dict[str, Proxy | None]:
    found: dict[str, tuple[str, str]] = {}
    for name, value in env.items():  # upper case first, so that lower case overrides it
        if name.isupper() and value and name.lower().endswith("_proxy"):
            found[name[:-6].lower()] = (name, value)
    for name, value in env.items():
        if name.islower() and value and name.endswith("_proxy"):
            found[name[:-6]] = (name, value)
    routes: dict[str, Proxy | None] = {}
    for scheme in ("http", "https", "all"):
        if scheme in found:
            name, url = found[scheme]
            routes[f"{scheme}://"] = Proxy(name, url if "://" in url else f"http://{url}")
    for host in (part.strip() for part in found.get("no", ("", ""))[1].split(",")):
        if host == "*":
            return {}
        if host:
            routes[_direct_pattern(host)] = None
    return routes


def _direct_pattern(host: str) -> str:
    if "://" in host:
        return host
    try:
        address = ipaddress.ip_address(host)
    except ValueError:
        if host.lower() == "localhost":
            return f"all://{host}"
        return f"all://*{host}"
    return f"all://[{host}]" if address.version == 6 else f"all://{host}"


def certificates(env: Mapping[str, str]) -> ssl.SSLContext | bool:
    """What to verify servers against: ``SSL_CERT_FILE`` or ``SSL_CERT_DIR`` when set, else
    httpx's own bundle (``True``)."""
    if env.get("SSL_CERT_FILE"):
        return ssl.create_default_context(cafile=env["SSL_CERT_FILE"])
    if env.get("SSL_CERT_DIR"):
        return ssl.create_default_context(capath=env["SSL_CERT_DIR"])
    return True


def http_client(env: Mapping[str, str], *, verify: bool) -> httpx.AsyncClient:
    """The session's HTTP client; ``verify=False`` only for a plain-http endpoint with no
    proxy, where no certificate is ever checked (and loading the store would be wasted)."""
    import httpx

    trusted = certificates(env) if verify else False
    mounts = {
        pattern: None if url is None else httpx.AsyncHTTPTransport(proxy=url, verify=trusted)
        for pattern, url in proxy_routes(env).items()
    }
    # trust_env=False: everything above came from ``env``, nothing from the process's own.
    return httpx.AsyncClient(trust_env=False, verify=trusted, mounts=mounts)
