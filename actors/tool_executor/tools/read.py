"""Read: a text file's lines, numbered like ``cat -n``, and a stamp for Edit's staleness check."""

from __future__ import annotations

import hashlib
import os
import stat
from typing import TYPE_CHECKING

import anyio

from actors.counts import counted
from actors.errors import ToolFailure
from actors.tool_executor import door
from actors.tool_executor.context import Access, Tool, ToolOutcome
from actors.tool_executor.files import (
    SNIFF_BYTES,
    FileStamp,
    is_binary,
    resolve_path,
    shown_path,
)
from actors.tool_executor.schemas import DEFAULT_READ_LIMIT, ReadInput

if TYPE_CHECKING:
    from actors.tool_executor.context import CallContext
    from actors.tool_executor.door import Target

MAX_LINE_CHARS = 2000
# A whole 2000-line window of long lines would flood the context; stop adding lines past this.
MAX_CHARS = 100_000
# Reading in pieces keeps memory flat on a file that is one enormous line.
PIECE = 1 << 20


async def run(args: ReadInput, ctx: CallContext) -> ToolOutcome:
    target = await anyio.to_thread.run_sync(door.locate, args.file_path, ctx.project_root)
    await ctx.check("read", ctx.paths(target.shown, target.real), hard_links=target.links)
    start = max(args.offset or 1, 1)
    limit = args.limit or DEFAULT_READ_LIMIT
    text, stamp = await anyio.to_thread.run_sync(_read, target, start, limit)
    ctx.files_read.record(target.real, stamp)
    return ToolOutcome(text)


def _read(target: Target, start: int, limit: int) -> tuple[str, FileStamp]:
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
        if is_binary(file.read(SNIFF_BYTES)):
            raise ToolFailure(f"{shown} is a binary file; Read shows text files only.")
        file.seek(0)
        window = _Window(start, limit)
        hasher = hashlib.sha256()
        while piece := file.readline(PIECE):
            hasher.update(piece)
            window.feed(piece)
    stamp = FileStamp(st.st_mtime_ns, st.st_size, hasher.digest())
    return window.render(shown), stamp


class _Window:
    """The lines from ``start`` on, at most ``limit`` of them, counting every line of the file."""

    def __init__(self, start: int, limit: int) -> None:
        self.start = start
        self.end = start + limit
        self.total = 0
        self.lines: list[str] = []
        self.chars = 0
        self.full = False  # MAX_CHARS reached: the window ends early
        self.cut: list[int] = []  # numbers of lines longer than MAX_LINE_CHARS
        self._in_line = False  # the last piece did not end its line

    def feed(self, piece: bytes) -> None:
        ends_short = len(piece) == PIECE and not piece.endswith(b"\n")  # readline hit its limit
        if self._in_line:  # the rest of a line longer than a piece: already cut
            self._in_line = ends_short
            return
        self._in_line = ends_short
        self.total += 1
        if not self.start <= self.total < self.end or self.full:
            return
        line = piece.decode("utf-8", errors="replace").rstrip("\n").removesuffix("\r")
        if len(line) > MAX_LINE_CHARS or self._in_line:
            line = line[:MAX_LINE_CHARS]
            self.cut.append(self.total)
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


def _access(args: ReadInput, root: str) -> Access:
    return Access(resolve_path(args.file_path, root), writes=False)


TOOL = Tool(
    name="Read",
    description=(
        "Read a text file. Lines come numbered like cat -n; up to 2000 from offset "
        "(use offset/limit for more)."
    ),
    input_type=ReadInput,
    run=run,
    summary=lambda args, root: shown_path(args.file_path, root),
    access=_access,
    read_only=True,
)
