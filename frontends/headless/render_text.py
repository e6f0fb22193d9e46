"""``--output-format text``: the assistant's words stream to stdout as they arrive; tool
activity, retries and errors go to stderr, so ``legato --headless ... > answer.txt`` keeps
only the answer."""

from __future__ import annotations

import contextlib
from typing import IO, TYPE_CHECKING

import msgspec

from actors.counts import counted
from actors.protocol import (
    BlockFinished,
    MessageFinished,
    Notice,
    Retrying,
    TextDelta,
    ToolFinished,
    ToolStarted,
    TurnOutcome,
)
from actors.visible import project_relative
from frontends.headless.guarded import OutputClosed
from frontends.headless.render import HeadlessRenderer, named_call, short

if TYPE_CHECKING:
    from actors.protocol import UiEvent

_encoder = msgspec.json.Encoder()


class TextRenderer(HeadlessRenderer):
    def __init__(self, stdout: IO[str], stderr: IO[str], *, root: str = "") -> None:
        super().__init__(stdout, stderr)
        self.root = root  # the project's folder, left out of the paths in tool lines
        self._ends_with_newline = True
        # Notes that came while a text block streamed (a call starts as soon as its block is
        # complete, and the text goes on): a note ends stdout's line, which would put a line
        # break in the middle of the answer, so they wait for the block's end.
        self._held: list[str] | None = None

    def render(self, event: UiEvent) -> None:
        match event:
            case TextDelta(text=text) if text:
                self.stdout.write(text)
                self.stdout.flush()
                self._ends_with_newline = text.endswith("\n")
                if self._held is None:
                    self._held = []
            case BlockFinished(block=block) if block.get("type") == "text":
                self._release()
            case MessageFinished():
                self._release()
                self._end_line()
            case ToolStarted(name=name, summary=summary):
                self._note(f"⏺ {named_call(name, short(summary))}")
            case ToolFinished(result=result, elapsed=elapsed, remedy=remedy):
                lines = result.content.strip().splitlines()
                first = project_relative(lines[0].strip(), self.root) if lines else ""
                more = f" (+{counted(len(lines) - 1, 'line')})" if len(lines) > 1 else ""
                status = "✗" if result.is_error else "✓"
                name = (
                    f"{named_call(self.finished[0], _tail(self.finished[1], 40))} "
                    if self.finished
                    else ""
                )
                if result.denied:
                    # Whole: a denial's remedy comes last, where a cut would fall.
                    first, more = " ".join(result.content.split()), ""
                else:
                    first = short(first, 80)
                self._note(f"  ⎿ {status} {name}{elapsed:.1f}s: {first}{more}")
                if remedy:
                    self._note("    → " + "\n      ".join(remedy.split("\n")))
            case Retrying(attempt=attempt, delay=delay, reason=reason):
                self._note(f"legato: {reason}; retrying in {delay:.1f} s (attempt {attempt})")
            case Notice(level=level, text=text):
                self._note(f"legato: {level}: {text}")
            case TurnOutcome(structured_output=value) if value is not None:
                # The value is what a script reads: on stdout, as JSON, on a line of its own.
                self._end_line()
                self.stdout.write(_encoder.encode(value).decode() + "\n")
                self.stdout.flush()
            case _:
                pass

    def _end_line(self) -> None:
        if not self._ends_with_newline:
            self.stdout.write("\n")
            self.stdout.flush()
            self._ends_with_newline = True

    def _note(self, line: str) -> None:
        if self._held is not None:
            self._held.append(line)
            return
        self._end_line()
        self.stderr.write(line + "\n")
        self.stderr.flush()

    def _release(self) -> None:
        held, self._held = self._held or [], None
        for line in held:
            self._note(line)

    async def close(self) -> None:
        self._release()
        self._end_line()
        with contextlib.suppress(OutputClosed):  # already reported by the write that found it
            await self.stdout.drain()


def _tail(text: str, width: int) -> str:
    """The end of a long path or command, which is the part that tells calls apart."""
    line = " ".join(text.split())
    return line if len(line) <= width else "…" + line[-(width - 1) :]
