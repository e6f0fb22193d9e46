"""An incremental decoder for server-sent events: byte chunks in, ``(event, data)`` pairs out.

It follows the WHATWG event-stream rules (lines end in CRLF, LF or a lone CR; ``:`` starts a
comment; several ``data:`` lines join with newlines; a blank line dispatches) and keeps no
assumption about where the network splits the bytes: a chunk may end inside a UTF-8 character,
inside a field name, or between the CR and LF of one line ending.
"""

from __future__ import annotations

import re
from typing import NamedTuple

from actors.errors import StreamFailed

_LINE_END = re.compile(rb"\r\n|\r|\n")
# The most one event may hold, its unfinished line included. The API's largest events (a server
# tool's whole result) are far smaller; past it a broken server is sending one endless line, and
# keeping it would take memory until the process dies.
MAX_EVENT = 64 * 1024 * 1024


class ServerSentEvent(NamedTuple):
    event: str  # "message" when the event named none (the standard's default type)
    data: str


class SSEDecoder:
    __slots__ = ("_after_cr", "_data", "_event", "_held", "_partial", "_started")

    def __init__(self) -> None:
        self._partial = bytearray()  # the unfinished line, kept as bytes until its end arrives
        self._after_cr = False  # the last chunk ended in CR: a leading LF now belongs to it
        self._event = ""
        self._data: list[str] = []
        self._held = 0  # the characters in ``_data``
        self._started = False  # a byte order mark is allowed only before the first line

    def feed(self, chunk: bytes) -> list[ServerSentEvent]:
        """Decode one chunk; returns the events it completed (often none, sometimes several).

        Raises StreamFailed when the event being read grows past MAX_EVENT."""
        out = self._feed(chunk)
        if len(self._partial) + self._held > MAX_EVENT:
            raise StreamFailed(
                f"The answer stream broke: an event longer than {MAX_EVENT // (1024 * 1024)} MiB "
                "(the server sent no end of line or event)"
            )
        return out

    def _feed(self, chunk: bytes) -> list[ServerSentEvent]:
        out: list[ServerSentEvent] = []
        start = 0
        if self._after_cr and chunk:
            self._after_cr = False
            if chunk[0] == 0x0A:
                start = 1
        if b"\r" not in chunk:
            # The common case, LF line ends only: split the complete lines in one go. An LF byte
            # never occurs inside a UTF-8 sequence, so everything up to the last one decodes.
            last = chunk.rfind(b"\n")
            if last >= start:
                head = bytes(self._partial) + chunk[start:last]
                self._partial = bytearray(chunk[last + 1 :])
                for line in head.decode("utf-8", errors="replace").split("\n"):
                    self._text_line(line, out)
            else:
                self._partial += chunk[start:]
            return out
        for end in _LINE_END.finditer(chunk, start):
            self._partial += chunk[start : end.start()]
            start = end.end()
            self._line(bytes(self._partial), out)
            self._partial.clear()
        self._partial += chunk[start:]
        if chunk.endswith(b"\r"):
            self._after_cr = True
        return out

    def finish(self) -> list[ServerSentEvent]:
        """The end of the stream: returns the last event if its lines were complete.

        The standard drops an event that no blank line ended. Documented streams are often
        copied without that final blank line, so complete ``data:`` lines still count; an
        unfinished line is a stream cut mid-write and is dropped.
        """
        out: list[ServerSentEvent] = []
        self._partial.clear()
        self._line(b"", out)
        return out

    def _line(self, raw: bytes, out: list[ServerSentEvent]) -> None:
        self._text_line(raw.decode("utf-8", errors="replace"), out)

    def _text_line(self, line: str, out: list[ServerSentEvent]) -> None:
        if line.startswith("data: ") and self._started:
            self._data.append(line[6:])  # the hot path: one per event
            self._held += len(line)
            return
        if not self._started:
            self._started = True
            line = line.removeprefix("\ufeff")
        if not line:
            if self._data:
                out.append(ServerSentEvent(self._event or "message", "\n".join(self._data)))
            self._event = ""
            self._data = []
            self._held = 0
            return
        if line.startswith(":"):
            return  # a comment, used as a keep-alive
        field, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if field == "event":
            self._event = value
        elif field == "data":
            self._data.append(value)
            self._held += len(value)
        # "id" and "retry" serve reconnecting browsers; the Messages API never resumes a stream.
