"""Grep by ripgrep: rg walks and matches, Legato checks each file it reports with the
permission broker before a line of it is shown, and lays the output out as the Python search
(``search.py``) does.

The Python search is the reference, whose results define the right answer; this is the fast
engine, run first wherever it gives that same answer (the differential tests,
``test_differential_*``, run both on the same cases).

rg reads the pattern in its own syntax, which is Python's for nearly all a model writes. Where
the two differ, rg is not asked: ``alike`` passes over what rg would read otherwise
(look-around, backreferences, POSIX classes), and what rg refuses (``\\Z``, ``{,3}``) raises
``ripgrep.Rejected``, as does a JSON record too long to hold; the Python matcher then takes the
call. Nothing is shown before either is known.
"""

from __future__ import annotations

import base64
import contextlib
import os
import re
import sys
from typing import TYPE_CHECKING, Any

import anyio.to_thread
import msgspec

from actors.tool_executor import ripgrep
from actors.tool_executor.search import (
    MAX_FILE_BYTES,
    TYPES,
    Output,
    render,
    report,
    wanted,
)
from actors.tool_executor.walk import BATCH, Found, allowed, named_dirs

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence
    from contextlib import AbstractAsyncContextManager

    from actors.tool_executor.search import Query
    from actors.tool_executor.walk import Readable

_NAME = re.compile(r"[\w.*?{},@+=~-]+")
# Inline flags both syntaxes read alike; verbose mode (x) and the others differ.
_FLAGS = re.compile(r"\(\?(?::|P<|<(?![=!])|[ims]+[):]|[ims]*-[ims]+[):])")


def alike(pattern: str) -> bool:
    """Whether rg reads ``pattern`` as Python does, as far as a quick look can tell: no
    ``\\<`` ``\\>`` (word boundaries to rg), no backreference or octal escape, no ``[`` or set
    operation inside a class (POSIX classes, nesting to rg), only the plain inline flags."""
    if "\0" in pattern:
        return False  # no argument can hold it
    index, in_class = 0, False
    while index < len(pattern):
        char = pattern[index]
        if char == "\\":
            following = pattern[index + 1 : index + 2]
            if following in ("<", ">") or following.isdigit():
                return False
            index += 2
            continue
        if in_class:
            if char == "[" or pattern[index : index + 2] in ("&&", "--", "~~"):
                return False
            if char == "]":
                in_class = False
        elif char == "[":
            in_class = True
            # A ] right after [ or [^ is a literal one in both syntaxes.
            index += 2 if pattern[index + 1 : index + 2] == "^" else 1
            if pattern[index : index + 1] == "]":
                index += 1
            continue
        elif char == "(" and pattern.startswith("(?", index) and not _FLAGS.match(pattern, index):
            return False
        index += 1
    return True


def rg_filters(query: Query) -> list[str]:
    """A name filter for rg that lets through every file ``query``'s glob or type does (its
    output is then held to the glob and type exactly, ``search.wanted``)."""
    glob = query.glob
    if glob is not None:
        # A glob's last part, where no brace alternative spans a "/" into it.
        name = glob if "/" not in glob else None if "{" in glob else glob.rsplit("/", 1)[1]
        if name is not None and _NAME.fullmatch(name) and "**" not in name:
            return ripgrep.name_filter([name])
    if query.type is not None:
        return ripgrep.name_filter([f"*{extension}" for extension in TYPES[query.type]])
    return []


async def grep(
    rg: str,
    query: Query,
    root: str,
    top: str,
    readable: Readable,
    cap: int,
) -> str | None:
    """Grep ``root`` with rg, or None where rg cannot do it as the Python search would (the
    caller runs that). Raises ripgrep.Rejected and ripgrep.Unavailable before anything is
    shown, for the same."""
    if not alike(query.pattern):
        return None
    filters = rg_filters(query)
    walk = await anyio.to_thread.run_sync(
        ripgrep.walk_args, root, top, named_dirs(query.glob or "")
    )
    if walk is None:
        return None
    args = [*walk, *filters, f"--max-filesize={MAX_FILE_BYTES}"]
    args.append("--ignore-case" if query.ignore_case else "--case-sensitive")
    if query.multiline:
        args += ["--multiline", "--multiline-dotall"]
    else:
        args.append("--crlf")  # "$" before "\r\n" too, as lines are split for Read
    real = await anyio.to_thread.run_sync(os.path.realpath, root)
    search = _Search(rg, query, (root, real), readable, cap, wanted(query))
    if query.mode == "files_with_matches":
        await search.files(args)
    elif query.mode == "count" and not query.multiline:
        await search.counts(args)
    else:
        await search.lines(args)
    return report(root, query, search.out)


class _Search:
    def __init__(
        self,
        rg: str,
        query: Query,
        root: tuple[str, str],  # as given, and resolved
        readable: Readable,
        cap: int,
        keep: Callable[[str], bool] | None,
    ) -> None:
        self.rg = rg
        self.query = query
        self.root, self.real = root
        # What a file's path from the root is put after: paths built by concatenation, as
        # thousands of files may match.
        self._prefixes = tuple(path if path.endswith(os.sep) else path + os.sep for path in root)
        self.readable = readable
        self.keep = keep
        self.out = Output(query.head_limit, cap)

    def _run(self, args: Sequence[str]) -> AbstractAsyncContextManager[ripgrep.Run]:
        return ripgrep.running(self.rg, [*args, "-e", self.query.pattern, "--", "./"], self.root)

    async def _allowed(self, rels: list[str]) -> set[str]:
        """Those of ``rels`` the permission rules let tools read."""
        if self.keep is not None:
            rels = [rel for rel in rels if self.keep(rel)]
        kept: set[str] = set()
        for start in range(0, len(rels), BATCH):
            batch = [self._found(rel) for rel in rels[start : start + BATCH]]
            kept.update(found.rel for found in await allowed(self.readable, self.root, batch))
        return kept

    def _found(self, rel: str) -> Found:
        # rg follows no symlink: the file is where the root's real path and rel put it.
        shown, real = self._prefixes
        return Found(shown + rel, rel, 0.0, 0, real + rel, 1)

    async def files(self, args: list[str]) -> None:
        """files_with_matches: each read's files are dated while rg goes on searching; once
        the newest are known, they are judged a batch at a time, only as far as the output
        takes them (a full output is a few hundred paths, a match may be in thousands)."""
        dated: list[tuple[float, str]] = []
        async with self._run([*args, "--files-with-matches", "--null"]) as run:
            async with contextlib.aclosing(run.records(b"\0")) as chunks:
                async for records in chunks:
                    rels = [_rel(record) for record in records]
                    if self.keep is not None:
                        rels = [rel for rel in rels if self.keep(rel)]
                    dated += await anyio.to_thread.run_sync(self._dates, rels)
            await run.ended()
        dated.sort(key=lambda date: (-date[0], date[1]))  # newest first, ties by path
        for start in range(0, len(dated), BATCH):
            batch = [self._found(rel) for _, rel in dated[start : start + BATCH]]
            for found in await allowed(self.readable, self.root, batch):
                self.out.add(found.path)
                if self.out.full:
                    return

    def _dates(self, rels: list[str]) -> list[tuple[float, str]]:
        real = self._prefixes[1]
        dated = []
        for rel in rels:
            try:
                dated.append((os.stat(real + rel, follow_symlinks=False).st_mtime, rel))
            except OSError:
                continue  # gone since
        return dated

    async def counts(self, args: list[str]) -> None:
        counted: dict[str, int] = {}
        carried = b""  # a path with a newline in it, up to that newline
        async with self._run([*args, "--count", "--null"]) as run:
            async with contextlib.aclosing(run.records(b"\n")) as chunks:
                async for records in chunks:
                    for record in records:
                        record, carried = carried + record, b""
                        path, nul, count = record.rpartition(b"\0")
                        if not nul:
                            carried = record + b"\n"
                            continue
                        counted[_rel(path)] = int(count)
            await run.ended()
        kept = await self._allowed(list(counted))
        for rel in sorted(kept):
            self.out.add(f"{os.path.join(self.root, rel)}:{counted[rel]}")

    async def lines(self, args: list[str]) -> None:
        """content, and count in multiline mode (the lines each match spans, as the Python
        search counts them): rg's JSON, a file at a time, checked a read's worth at a time."""
        query = self.query
        args = [*args, "--json", "--sort=path"]
        if query.mode == "content":
            args += [f"--before-context={query.before}", f"--after-context={query.after}"]
        done: list[tuple[str, dict[int, tuple[str, bool]]]] = []  # files read to their end
        # The lines and characters of ``done``: content's files go to the permission broker
        # once they could fill the output, not at every read of rg's output (a round trip
        # each, which the whole search would otherwise wait on a dozen times).
        done_rows = done_chars = 0
        rows: dict[int, tuple[str, bool]] = {}
        chars = 0  # in ``rows``
        async with self._run(args) as run:
            async with contextlib.aclosing(run.records(b"\n", _LONGEST)) as chunks:
                async for records in chunks:
                    for record in records:
                        # Lines past those that would fill the output are passed over unread;
                        # the file's end still says whether it was binary.
                        if record.startswith(_LINES) and self._enough(len(rows), chars):
                            continue
                        event = _EVENT.decode(record)
                        if event.type == "begin":
                            rows, chars = {}, 0
                        elif event.type in ("match", "context"):
                            chars += _add_rows(rows, event.data, matched=event.type == "match")
                        elif event.type == "end" and event.data.get("binary_offset") is None:
                            done.append((_rel_of(event.data), rows))
                            done_rows, done_chars = done_rows + len(rows), done_chars + chars
                    # Counts hold every line until shown: those go at every read.
                    counted = query.mode != "content"
                    if done and (counted or self._enough(done_rows, done_chars)):
                        if await self._show(done):
                            return
                        done, done_rows, done_chars = [], 0, 0
            await run.ended()
        if done:
            await self._show(done)

    def _enough(self, rows: int, chars: int) -> bool:
        """Whether a file's ``rows`` lines of ``chars`` characters would fill the output."""
        out = self.out
        if self.query.mode != "content":
            return False  # counted: every line counts
        if out.limit is not None and rows > out.limit - len(out.lines):
            return True
        return chars > out.cap - out.chars

    async def _show(self, done: list[tuple[str, dict[int, tuple[str, bool]]]]) -> bool:
        """Show the files of ``done`` the rules let tools read; True once the output is full."""
        kept = await self._allowed([rel for rel, _ in done])
        for rel, rows in done:
            if rel not in kept or not rows:
                continue
            path = os.path.join(self.root, rel)
            if self.query.mode == "count":
                self.out.add(f"{path}:{sum(matched for _, matched in rows.values())}")
            else:
                render(
                    path, [(index, *rows[index]) for index in sorted(rows)], self.query, self.out
                )
            if self.out.full:
                return True
        return False


class _Event(msgspec.Struct):
    type: str
    data: dict[str, Any] = {}


_EVENT = msgspec.json.Decoder(_Event)
_LINES = (b'{"type":"match"', b'{"type":"context"')
# A JSON record this long is a long line, often with many matches in it (each one listed):
# the Python matcher, which reads the line once and shows 500 characters of it, takes over.
_LONGEST = 4 * 2**20


def _rel(record: bytes) -> str:
    return record.decode(_FS_ENCODING, _FS_ERRORS).removeprefix("./")  # as os.fsdecode


_FS_ENCODING, _FS_ERRORS = sys.getfilesystemencoding(), sys.getfilesystemencodeerrors()


def _text(value: dict[str, str]) -> str:
    """A path or line in rg's JSON: text, or base64 bytes where it is not UTF-8."""
    if "text" in value:
        return value["text"]
    return base64.b64decode(value["bytes"]).decode("utf-8", "replace")


def _rel_of(data: dict[str, Any]) -> str:
    path = data["path"]
    if "text" in path:
        return str(path["text"]).removeprefix("./")
    return _rel(base64.b64decode(path["bytes"]))


def _add_rows(rows: dict[int, tuple[str, bool]], data: dict[str, Any], *, matched: bool) -> int:
    """A match's lines (several, in multiline mode) or a context line, by index from 0; the
    characters they hold."""
    lines = _text(data["lines"]).split("\n")
    if lines[-1] == "":
        lines.pop()
    first = int(data["line_number"]) - 1
    for offset, line in enumerate(lines):
        index = first + offset
        if matched or index not in rows:
            rows[index] = (line.removesuffix("\r"), matched)
    return sum(map(len, lines))
