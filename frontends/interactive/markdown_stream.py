"""Cutting a streamed answer into markdown blocks that are finished and will not change.

The terminal prints a finished block once into its scrollback and never redraws it;
only the block still in progress is live. A block is finished when a blank line, a heading or a
code fence ends it. Code inside a fence is finished line by line, and a paragraph that grows
past ``MAX_LIVE_LINES`` lines is cut there: so the live part, and the work of redrawing it per
token, stays bounded however long the answer gets.
"""

from __future__ import annotations

from dataclasses import dataclass

MAX_LIVE_LINES = 16
MAX_LIVE_CHARS = 800  # a paragraph written as one endless line is cut at a space past this


@dataclass(frozen=True, slots=True)
class Prose:
    """Markdown source of one finished block (paragraph, list, heading, table...)."""

    source: str
    continued: bool = False  # cut from a paragraph that goes on in the next piece


@dataclass(frozen=True, slots=True)
class Code:
    """Finished lines of a fenced code block; ``last`` is set on the block's closing fence."""

    language: str
    lines: tuple[str, ...]
    first: bool = False
    last: bool = False


Piece = Prose | Code


class MarkdownStream:
    def __init__(self) -> None:
        self._partial = ""  # the current line, not yet ended by a newline
        self._lines: list[str] = []  # finished lines of the block in progress
        self._fence: str | None = None  # the opening fence while inside a code block
        self._language = ""
        self._code_started = False

    @property
    def in_code(self) -> bool:
        return self._fence is not None

    @property
    def language(self) -> str:
        return self._language

    def feed(self, text: str) -> list[Piece]:
        out: list[Piece] = []
        if "\n" not in text:
            self._partial += text
            if len(self._partial) > MAX_LIVE_CHARS and self._fence is None:
                self._cut(out)
            return out
        head, *rest = text.split("\n")
        lines = [self._partial + head, *rest[:-1]]
        self._partial = rest[-1]
        code: list[str] = []
        for line in lines:
            if self._fence is not None:
                if _closes(line, self._fence):
                    out.append(self._code(code, last=True))
                    code = []
                    self._fence = None
                else:
                    code.append(line)
                continue
            self._prose_line(line, out)
            if self._fence is not None:
                self._code_started = False
        if code:
            out.append(self._code(code))
        return out

    def finish(self) -> list[Piece]:
        """The answer ended (or was interrupted): everything left is finished as it stands."""
        out: list[Piece] = []
        if self._fence is not None:
            lines = [self._partial] if self._partial else []
            out.append(self._code(lines, last=True))
            self._fence = None
        else:
            if self._partial:
                self._lines.append(self._partial)
            self._flush(out)
        self._partial = ""
        return out

    def live(self) -> str:
        """The block in progress: markdown source, or the current code line inside a fence."""
        if self._fence is not None:
            return self._partial
        if not self._lines:
            return self._partial
        return "\n".join([*self._lines, self._partial])

    def _prose_line(self, line: str, out: list[Piece]) -> None:
        stripped = line.strip()
        fence = _opens(stripped)
        if fence is not None:
            self._flush(out)
            self._fence = fence
            self._language = stripped[len(fence) :].strip().split(" ")[0]
        elif not stripped:
            self._flush(out)
        elif stripped.startswith("#"):
            self._flush(out)
            out.append(Prose(line))
        else:
            self._lines.append(line)
            if len(self._lines) >= MAX_LIVE_LINES:
                self._flush(out)

    def _cut(self, out: list[Piece]) -> None:
        at = self._partial.rfind(" ", 0, MAX_LIVE_CHARS)
        at = at if at > 0 else MAX_LIVE_CHARS
        self._lines.append(self._partial[:at])
        self._partial = self._partial[at:].lstrip(" ")
        out.append(Prose("\n".join(self._lines), continued=True))
        self._lines = []

    def _flush(self, out: list[Piece]) -> None:
        if self._lines:
            out.append(Prose("\n".join(self._lines)))
            self._lines = []

    def _code(self, lines: list[str], *, last: bool = False) -> Code:
        first = not self._code_started
        self._code_started = True
        return Code(self._language, tuple(lines), first=first, last=last)


def _opens(stripped: str) -> str | None:
    for mark in ("```", "~~~"):
        if stripped.startswith(mark):
            width = len(stripped) - len(stripped.lstrip(mark[0]))
            return mark[0] * width
    return None


def _closes(line: str, fence: str) -> bool:
    stripped = line.strip()
    return stripped.startswith(fence) and not stripped.lstrip(fence[0])
