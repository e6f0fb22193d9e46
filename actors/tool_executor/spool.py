"""A background command's output: the newest bytes in memory, all of it in a file past a size.

A command left running may print for hours, so memory holds at most ``buffer`` bytes, the
newest. Once the output has outgrown that, everything it printed, from its first byte, is also
in a file in the session's private folder (not the project), so that nothing a read leaves out
is lost: a read returns at most ``buffer`` bytes of what is new and names the file for the rest.
The file stops growing at ``SPILL_CAP``; past it, output is counted and dropped.

Reads go by offsets into the whole output, so the read tool gives only what is new since the
last read, and costs what is new, not what was printed before.
"""

from __future__ import annotations

import contextlib
import os
from typing import TYPE_CHECKING, BinaryIO

import msgspec

if TYPE_CHECKING:
    from collections.abc import Callable

# The most a spill file holds: a command that floods its output must not fill the disk.
SPILL_CAP = 256 * 1024 * 1024


class Chunk(msgspec.Struct, frozen=True):
    """New output from one read: the bytes a read may show, and what it had to leave out."""

    data: bytes
    skipped: int  # new bytes before ``data`` that only the file holds
    end: int  # the offset to read from next time


class Spool:
    def __init__(self, buffer: int, spill_path: Callable[[], str]) -> None:
        self._buffer = buffer
        self._spill_path = spill_path  # called once, when the output first outgrows the buffer
        self._tail = bytearray()
        self.total = 0  # every byte the command printed
        self.dropped = 0  # bytes past SPILL_CAP, in neither memory nor the file
        self.path: str | None = None
        self._file: BinaryIO | None = None
        self._written = 0
        self.unspillable = ""  # why no file could be made: the output is kept in memory only

    def feed(self, data: bytes) -> None:
        self.total += len(data)
        self._tail += data
        if self._file is not None:
            self._write(data)
        elif len(self._tail) > self._buffer and not self.unspillable:
            try:
                self._open_spill()
            except OSError as exc:  # no room, or the temporary folder is gone: memory only
                self.unspillable = exc.strerror or str(exc)
        if len(self._tail) > 2 * self._buffer:  # trim in batches: amortised O(1) a byte
            self._trim()

    def _open_spill(self) -> None:
        path = self._spill_path()
        # Written from the event loop: appends of at most one read's bytes to a fresh local
        # file land in the page cache, cheaper than a hop to a worker thread for each.
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND, 0o600)
        self._file = os.fdopen(fd, "ab", buffering=0)
        self.path = path
        # Nothing was trimmed before this moment: the tail is everything printed so far.
        self._write(bytes(self._tail))

    def _write(self, data: bytes) -> None:
        assert self._file is not None
        room = SPILL_CAP - self._written
        kept = data[: max(room, 0)]
        self.dropped += len(data) - len(kept)
        if kept:
            try:
                self._file.write(kept)
            except OSError:  # the disk is full: what is in memory still reads
                self.dropped += len(kept)
                return
            self._written += len(kept)

    def _trim(self) -> None:
        excess = len(self._tail) - self._buffer
        if excess > 0:
            del self._tail[:excess]

    def read(self, since: int, *, final: bool) -> Chunk:
        """What was printed from offset ``since`` on, at most ``buffer`` bytes of it (the newest).
        While the command runs (``final`` False), a character cut at the end is held back
        for the next read."""
        self._trim()
        start = self.total - len(self._tail)
        skipped = max(start - since, 0)
        data = bytes(self._tail[max(since - start, 0) :])
        end = self.total
        if not final:
            whole = _complete(data)
            end -= len(data) - whole
            data = data[:whole]
        if skipped:
            # The cut may fall inside a UTF-8 character: its orphaned bytes go with the skip.
            orphans = _orphans(data)
            data, skipped = data[orphans:], skipped + orphans
        return Chunk(data, skipped, end)

    def last_line(self) -> str:
        """The last line with something on it, for a listing of the commands."""
        for line in reversed(bytes(self._tail[-4096:]).splitlines()):
            text = line.decode("utf-8", errors="replace").strip()
            if text:
                return text
        return ""

    def text(self) -> str:
        """The newest output, for ``run_group``'s result (the reads are what the model sees)."""
        return self.read(0, final=True).data.decode("utf-8", errors="replace")

    def close(self) -> None:
        if self._file is not None:
            with contextlib.suppress(OSError):
                self._file.close()
            self._file = None


def _orphans(data: bytes) -> int:
    """How many continuation bytes open ``data`` (a cut inside a character)."""
    count = 0
    while count < min(3, len(data)) and 0x80 <= data[count] < 0xC0:
        count += 1
    return count


def _complete(data: bytes) -> int:
    """The length of ``data`` without a UTF-8 character cut at its end."""
    for back in range(1, min(4, len(data)) + 1):
        byte = data[-back]
        if byte < 0x80:
            return len(data)  # ASCII: nothing is cut
        if byte >= 0xC0:  # a lead byte: is its character whole?
            need = 2 if byte < 0xE0 else 3 if byte < 0xF0 else 4
            return len(data) if back >= need else len(data) - back
    return len(data)
