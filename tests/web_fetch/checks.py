"""A permission double for the parts below the executor: records each question and allows it,
except an address on this machine for a host no rule names (as a rule naming the host would
allow it: ``WebFetch(domain:127.0.0.1)``)."""

from __future__ import annotations

from actors.errors import PermissionDenied


class Checks:
    def __init__(self, named: tuple[str, ...] = ("127.0.0.1",)) -> None:
        self.named = named
        self.asked: list[tuple[str, str, str | None]] = []

    async def __call__(self, url: str, host: str, local_address: str | None) -> None:
        self.asked.append((url, host, local_address))
        if local_address is not None and host not in self.named:
            raise PermissionDenied(f"{host} is on this machine ({local_address})")
