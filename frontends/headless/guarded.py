"""Headless output's streams: written without making the session wait on their reader, and
ended cleanly when that reader leaves (``OutputClosed``)."""

from __future__ import annotations

import contextlib
from typing import IO

import anyio

from actors.errors import EXIT_OUTPUT_CLOSED, LegatoError
from actors.visible import escape_controls


class OutputClosed(LegatoError):
    """Whoever read stdout stopped reading (``legato ... | head``): the run stops, cleanly."""

    exit_code = EXIT_OUTPUT_CLOSED


class Guarded:
    """Output that never makes the session wait on its reader, and survives it leaving.

    Writes are collected and leave in ``drain``, in a worker thread: a reader that is slow or
    stalled (a pager nobody scrolls) holds up that thread, never the event loop, so tools,
    streaming and Ctrl-C go on (``abandon_on_cancel``: a cancelled run does not wait for it).
    Python ignores SIGPIPE, so a reader that went away shows as ``BrokenPipeError``: on stdout
    that ends the run as SIGPIPE would (``OutputClosed``, once; later output is dropped); on
    stderr, where only notes go, the notes are dropped.

    ``visible``: what is written has its control characters escaped (actors/visible.py), for
    output a terminal shows: the model's text, a tool's output, a file's name. Legato's own
    headless output has no escape sequences, so nothing of its own is lost.
    """

    def __init__(self, stream: IO[str], *, fatal: bool, visible: bool = True) -> None:
        self._stream = stream
        self._fatal = fatal
        self._visible = visible
        self._pending: list[str] = []
        self._in_flight = False  # a worker thread is writing (perhaps blocked on a full pipe)
        self._draining: anyio.Lock | None = None  # one writer at a time keeps lines in order
        self.closed_by_reader = False

    def write(self, text: str) -> None:
        if not self.closed_by_reader:
            self._pending.append(text)  # escaped as it leaves, all pending text at once

    def _taken(self) -> str:
        """What is pending, joined and taken; escaped once for it all (the escape is made
        character by character, so this is what escaping each piece would give)."""
        text = "".join(self._pending)
        self._pending.clear()
        return escape_controls(text) if self._visible else text

    def flush(self) -> None:
        """Nothing to do here: output leaves in ``drain`` (or ``flush_now`` at the very end)."""

    async def drain(self) -> None:
        if not self._pending:
            return
        if self._draining is None:
            self._draining = anyio.Lock()
        # The UI actor and the control channel (stream-json input) both drain: one at a time,
        # each taking what is pending when its turn comes, so lines leave in the order written.
        async with self._draining:
            if not self._pending:
                return
            text = self._taken()
            self._in_flight = True
            try:
                await anyio.to_thread.run_sync(self._write_out, text, abandon_on_cancel=True)
            finally:
                self._in_flight = False

    def flush_now(self) -> None:
        """Write what is pending from this thread; for the last words, once the session is over.

        Skipped while an abandoned write is still blocked: the stream is not ours to use then.
        """
        if self._in_flight:
            return
        text = self._taken()
        with contextlib.suppress(OutputClosed):
            self._write_out(text)

    def _write_out(self, text: str) -> None:
        if self.closed_by_reader or not text:
            return
        try:
            self._stream.write(text)
            self._stream.flush()
        except (BrokenPipeError, ValueError):  # ValueError: the stream itself was closed
            self.closed_by_reader = True
            if self._fatal:
                raise OutputClosed(
                    "stdout was closed before the answer ended (its reader stopped reading); "
                    "the run was stopped",
                    remedy="Read the whole output, or use --output-format json and parse it",
                ) from None
