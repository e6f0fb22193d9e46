"""Output kept in fixed memory, however much a program prints: its head and its tail.

A leaf: the executor's commands and the hooks both cap what their programs print this way, and
it imports no actor package.
"""

from __future__ import annotations

import re

# The line ``HeadTail.text`` puts where it cut, with how many bytes fell between.
_OMITTED = re.compile(r"^\.\.\. \[(\d+) bytes omitted\] \.\.\.$", re.MULTILINE)


class HeadTail:
    """The first and last bytes of a stream, ``cap`` in all, and a count of what fell between."""

    def __init__(self, cap: int) -> None:
        self._head_cap = cap // 2
        self._tail_cap = cap - self._head_cap
        self._head = bytearray()
        self._tail = bytearray()
        self.omitted = 0

    def feed(self, data: bytes) -> None:
        room = self._head_cap - len(self._head)
        if room > 0:
            self._head += data[:room]
            data = data[room:]
        if not data:
            return
        self._tail += data
        if len(self._tail) > 2 * self._tail_cap:  # trim in batches: amortised O(1) a byte
            self._trim()

    def _trim(self) -> None:
        excess = len(self._tail) - self._tail_cap
        if excess > 0:
            del self._tail[:excess]
            self.omitted += excess

    def text(self) -> str:
        self._trim()
        if not self.omitted:
            return bytes(self._head + self._tail).decode("utf-8", errors="replace")
        tail = bytes(self._tail)
        # The cut may fall inside a UTF-8 character: drop its orphaned continuation bytes.
        skip = 0
        while skip < min(3, len(tail)) and 0x80 <= tail[skip] < 0xC0:
            skip += 1
        head = bytes(self._head).decode("utf-8", errors="replace")
        rest = tail[skip:].decode("utf-8", errors="replace")
        return f"{head}\n... [{self.omitted + skip} bytes omitted] ...\n{rest}"


def omitted_bytes(text: str) -> int:
    """How many bytes the cut in ``text`` left out (``HeadTail.text``'s line); 0 if none."""
    found = _OMITTED.search(text)
    return int(found.group(1)) if found else 0
