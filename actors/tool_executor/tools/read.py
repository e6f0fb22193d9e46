"""Read: a text file's lines, numbered like ``cat -n``, and a stamp for Edit's staleness check;
an image, a PDF or a notebook as the model takes it (``read_media.py``)."""

from __future__ import annotations

import hashlib
import os
import stat
from typing import TYPE_CHECKING

import anyio

from actors import door
from actors.counts import counted
from actors.errors import ToolFailure
from actors.tool_executor.context import Access, Tool, ToolOutcome
from actors.tool_executor.files import (
    SNIFF_BYTES,
    FileStamp,
    is_binary,
    resolve_path,
    shown_path,
)
from actors.tool_executor.schemas import DEFAULT_READ_LIMIT, ReadInput
from actors.tool_executor.tools import read_media

if TYPE_CHECKING:
    from actors.door import Target
    from actors.tool_executor.context import CallContext

MAX_LINE_CHARS = 2000
# A whole 2000-line window of long lines would flood the context; stop adding lines past this.
MAX_CHARS = 100_000
# The file is read in pieces, hashed and its lines counted piece by piece, so a big file costs
# little memory; lines are split out only until the window is complete.
PIECE = 1 << 20
# The head of a line kept to show it: a UTF-8 character is at most four bytes, so a line longer
# than this has more than MAX_LINE_CHARS characters whatever it holds.
KEEP = 4 * MAX_LINE_CHARS + 4


async def run(args: ReadInput, ctx: CallContext) -> ToolOutcome:
    target = await anyio.to_thread.run_sync(door.locate, args.file_path, ctx.project_root)
    await ctx.check("read", ctx.paths(target.shown, target.real), hard_links=target.links)
    start = max(args.offset or 1, 1)
    limit = args.limit or DEFAULT_READ_LIMIT
    got, stamp = await anyio.to_thread.run_sync(_read, target, start, limit)
    if isinstance(got, read_media.Whole):
        if args.pages is not None and got.kind != "pdf":
            raise ToolFailure(f"pages is for PDFs; {target.shown} is {got.kind_in_words}.")
        outcome, line = await read_media.give(got, target.shown, args.pages)
        ctx.files_read.record(target.real, stamp)
        await ctx.emit(line + "\n")  # with the call's line: what the model got and its cost
        return outcome
    if args.pages is not None:
        raise ToolFailure(f"pages is for PDFs; {target.shown} is text: use offset and limit.")
    ctx.files_read.record(target.real, stamp)
    return ToolOutcome(got)


def _read(target: Target, start: int, limit: int) -> tuple[str | read_media.Whole, FileStamp]:
    """The window of a text file's lines, or a file of another kind read whole to decode."""
    shown = target.shown
    try:
        file = door.open_read(target)
    except FileNotFoundError:
        raise ToolFailure(f"File does not exist: {shown}. Use Glob to find it.") from None
    except IsADirectoryError:
        raise ToolFailure(
            f"{shown} is a directory, not a file. Use Glob to list its files."
        ) from None
    with file:
        st = os.fstat(file.fileno())
        if not stat.S_ISREG(st.st_mode):
            raise ToolFailure(f"{shown} is not a regular file (a device, pipe or socket).")
        head = file.read(SNIFF_BYTES)
        kind = read_media.kind_of(head, shown)
        file.seek(0)
        if kind is not None:
            whole = read_media.read_whole(file, kind, shown)
            if whole is not None:
                return whole, FileStamp.of(st, whole.data)
            file.seek(0)
        elif is_binary(head):
            raise ToolFailure(
                f"{shown} is a binary file; Read shows text, images (PNG, JPEG, GIF, WebP), "
                "PDFs and notebooks."
            )
        window = _Window(start, limit)
        # The whole file is hashed even when the window ends early: Edit's staleness check
        # compares the content, not only the window the model saw.
        hasher = hashlib.sha256()
        while piece := file.read(PIECE):
            hasher.update(piece)
            window.feed(piece)
        window.finish()
    stamp = FileStamp(st.st_mtime_ns, st.st_size, hasher.digest())
    return window.render(shown), stamp


class _Window:
    """The lines from ``start`` on, at most ``limit`` of them, counting every line of the file.

    Fed the file piece by piece; past the window, a piece only has its newlines counted.
    """

    def __init__(self, start: int, limit: int) -> None:
        self.start = start
        self.end = start + limit
        self.total = 0  # lines ended so far; the line being read is number total + 1
        self.lines: list[str] = []
        self.chars = 0
        self.full = False  # MAX_CHARS reached: the window ends early
        self.cut: list[int] = []  # numbers of lines longer than MAX_LINE_CHARS
        self._head = bytearray()  # the start of the line being read, at most KEEP bytes
        self._long = False  # the line being read is longer than KEEP bytes
        self._open = False  # the last piece did not end with a newline

    def feed(self, piece: bytes) -> None:
        self._open = not piece.endswith(b"\n")
        at = 0
        if self.total + 1 < self.start:  # before the window: skip whole lines
            skip = self.start - 1 - self.total
            newlines = piece.count(b"\n")
            if newlines < skip:
                self.total += newlines
                return
            at = _after_newlines(piece, skip)
            self.total += skip
        while not self.done:
            newline = piece.find(b"\n", at)
            if newline < 0:
                self._add(piece, at, len(piece))
                return
            self._add(piece, at, newline)
            self._end_line()
            at = newline + 1
        self.total += piece.count(b"\n", at)

    @property
    def done(self) -> bool:
        return self.full or self.total + 1 >= self.end

    def finish(self) -> None:
        """The file's last line, when it does not end with a newline."""
        if not self._open:
            return
        if self.done or self.total + 1 < self.start:
            self.total += 1
        else:
            self._end_line()

    def _add(self, piece: bytes, begin: int, end: int) -> None:
        room = KEEP - len(self._head)
        if end - begin > room:
            self._long = True
            end = begin + room
        self._head += piece[begin:end]

    def _end_line(self) -> None:
        self.total += 1
        line = self._head.decode("utf-8", errors="replace")
        if not self._long:
            line = line.removesuffix("\r")
        self._head.clear()
        if len(line) > MAX_LINE_CHARS or self._long:
            line = line[:MAX_LINE_CHARS]
            self.cut.append(self.total)
        self._long = False
        entry = f"{self.total:>6}\t{line}"
        if self.lines and self.chars + len(entry) > MAX_CHARS:
            self.full = True
            return
        self.lines.append(entry)
        self.chars += len(entry) + 1

    def render(self, shown: str) -> str:
        if self.total == 0:
            return f"(The file {shown} is empty.)"
        if not self.lines:
            size = counted(self.total, "line")
            return f"(The file {shown} has {size}; offset {self.start} is past its end.)"
        notes = []
        last = self.start + len(self.lines) - 1
        if self.start > 1 or last < self.total:
            notes.append(
                f"(Showing lines {self.start}-{last} of {self.total}. "
                "Use offset and limit to read the rest.)"
            )
        if self.cut:
            listed = ", ".join(map(str, self.cut[:10])) + (", ..." if len(self.cut) > 10 else "")
            notes.append(
                f"(Lines longer than {MAX_LINE_CHARS} characters were cut: {listed}. "
                "Use Bash to see them whole.)"
            )
        return "\n".join([*self.lines, *notes])


def _after_newlines(piece: bytes, count: int) -> int:
    """Where the line after the ``count``-th newline of ``piece`` starts (there are enough).

    Halving the range with ``bytes.count`` rather than finding newline after newline: a piece of
    a million empty lines costs two passes over it, not a million steps.
    """
    low, high = 0, len(piece)  # the newline sought lies in piece[low:high]
    while high - low > 1:
        middle = (low + high) // 2
        found = piece.count(b"\n", low, middle)
        if found >= count:
            high = middle
        else:
            count -= found
            low = middle
    return high


def _access(args: ReadInput, root: str) -> Access:
    return Access(resolve_path(args.file_path, root), writes=False)


TOOL = Tool(
    name="Read",
    description=(
        "Read a file: text (lines numbered like cat -n, up to 2000 from offset; use "
        "offset/limit for more), an image (you see it), a PDF (pages, at most 20 a call) or a "
        "notebook (cells and outputs)."
    ),
    input_type=ReadInput,
    run=run,
    summary=lambda args, root: shown_path(args.file_path, root),
    access=_access,
    read_only=True,
)
