"""Whether an address is on this machine or its networks, where a fetch the model asks for
could reach what the internet cannot: loopback, the private ranges, carrier-grade NAT, link-local
(with the cloud metadata service at 169.254.169.254), IPv6 unique-local and link-local,
unspecified, multicast and reserved addresses. An IPv6 address carrying an IPv4 one (mapped,
6to4, Teredo, NAT64) is judged by the IPv4 address it leads to.
"""

from __future__ import annotations

import ipaddress
import socket

import anyio

_NAT64 = ipaddress.ip_network("64:ff9b::/96")


def is_local(ip: str) -> bool:
    """Whether ``ip`` (a literal address, as DNS gave it) is one a fetch may reach only with a
    rule naming its host. Anything that is not an address counts as local: refused."""
    try:
        address = ipaddress.ip_address(ip.split("%", 1)[0])  # a zone id: fe80::1%eth0
    except ValueError:
        return True
    if isinstance(address, ipaddress.IPv6Address):
        inner = address.ipv4_mapped or address.sixtofour
        if inner is None and address.teredo is not None:
            inner = address.teredo[1]
        if inner is None and address in _NAT64:
            inner = ipaddress.IPv4Address(int(address) & 0xFFFFFFFF)
        if inner is not None:
            return _local(inner)
    return _local(address)


def _local(address: ipaddress.IPv4Address | ipaddress.IPv6Address) -> bool:
    # ``is_global`` is False for loopback, private, CGNAT (100.64/10), link-local, unspecified
    # and reserved ranges; multicast is not "on this network" by that test, but never a page.
    return not address.is_global or address.is_multicast


async def resolve(host: str, port: int) -> tuple[str, ...]:
    """Every address ``host`` resolves to, in the resolver's order, without repeats. A literal
    address (decimal, hex or dotted-octal IPv4 included) comes back as the address it means."""
    found = await anyio.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    return tuple(dict.fromkeys(str(sockaddr[0]) for *_, sockaddr in found))


def first_local(addresses: tuple[str, ...]) -> str | None:
    return next((ip for ip in addresses if is_local(ip)), None)
