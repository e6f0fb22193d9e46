"""Which addresses are this machine's or its networks', however they are written."""

from __future__ import annotations

import pytest

from actors.tool_executor.web.address import is_local, resolve

LOCAL = [
    "127.0.0.1", "127.255.255.254", "0.0.0.0", "10.1.2.3", "172.16.0.1", "172.31.255.255",
    "192.168.1.1", "100.64.0.1", "100.127.255.255", "169.254.169.254", "169.254.0.1",
    "224.0.0.1", "239.255.255.250", "240.0.0.1", "255.255.255.255",
    "::1", "::", "fe80::1", "fe80::1%eth0", "fc00::1", "fd12:3456::1", "ff02::1",
    "::ffff:127.0.0.1", "::ffff:169.254.169.254", "::ffff:10.0.0.1",
    "2002:7f00:1::",  # 6to4 of 127.0.0.1
    "64:ff9b::a9fe:a9fe",  # NAT64 of 169.254.169.254
    "not an address",
]  # fmt: skip
PUBLIC = ["93.184.215.14", "8.8.8.8", "100.63.255.255", "172.32.0.1", "2606:4700::1111",
          "::ffff:8.8.8.8"]  # fmt: skip


@pytest.mark.parametrize("ip", LOCAL)
def test_local_addresses(ip: str) -> None:
    assert is_local(ip)


@pytest.mark.parametrize("ip", PUBLIC)
def test_public_addresses(ip: str) -> None:
    assert not is_local(ip)


@pytest.mark.parametrize("host", ["2130706433", "0x7f000001", "127.1", "0177.0.0.1", "localhost"])
async def test_odd_spellings_of_loopback_resolve_to_it(host: str) -> None:
    addresses = await resolve(host, 80)
    assert addresses and all(is_local(ip) for ip in addresses)
