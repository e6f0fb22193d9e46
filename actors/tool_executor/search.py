"""The search behind Grep: blocking, run in worker threads a batch of files at a time, stopping
when asked to.

Of Grep's two engines this one (Python's regex syntax, run by ``regexes``, over the files of
``walk.py``'s walk) is the reference: its results define the right answer, and the pattern's
syntax is the one the tool documents. ripgrep (``search_rg.py``) gives the same answer faster
and runs first, except for a single file, a pattern it would read otherwise or refuses, a
record too long to hold, and where rg is missing or cannot run; then this search answers.
The differential tests (``test_differential_*`` in ``tests/tool_executor/``) run both on the
same cases.
"""

from __future__ import annotations

import functools
import io
import os
import stat
from collections import deque
from typing import TYPE_CHECKING

import msgspec

from actors import door
from actors.tool_executor import regexes
from actors.tool_executor.files import SNIFF_BYTES, is_binary
from actors.tool_executor.walk import Found, glob_matcher

if TYPE_CHECKING:
    import threading
    from collections.abc import Callable, Iterable, Iterator

    import regex

    from actors.tool_executor.schemas import GrepMode

# ripgrep's names for the common types, so that the model's habits carry over.
TYPES: dict[str, tuple[str, ...]] = {
    "c": (".c", ".h"),
    "cpp": (".cpp", ".cc", ".cxx", ".hpp", ".hh", ".hxx", ".h"),
    "css": (".css", ".scss"),
    "go": (".go",),
    "html": (".html", ".htm"),
    "java": (".java",),
    "js": (".js", ".mjs", ".cjs", ".jsx"),
    "json": (".json",),
    "md": (".md", ".markdown"),
    "py": (".py", ".pyi"),
    "ruby": (".rb",),
    "rust": (".rs",),
    "sh": (".sh", ".bash", ".zsh"),
    "sql": (".sql",),
    "toml": (".toml",),
    "ts": (".ts", ".tsx", ".mts", ".cts"),
    "txt": (".txt",),
    "yaml": (".yaml", ".yml"),
}
# Larger files are mostly logs and data; reading them whole would stall the search.
MAX_FILE_BYTES = 20 * 1024 * 1024
MAX_LINE_CHARS = 500


class Query(msgspec.Struct, frozen=True, dict=True):  # dict: for the cached regex
    pattern: str  # checked (``regexes.check_pattern``)
    mode: GrepMode
    glob: str | None
    type: str | None
    multiline: bool
    numbers: bool
    before: int
    after: int
    head_limit: int | None
    # The text every match contains, when the pattern is a plain word with no line end in it:
    # a file without it is passed over without matching line by line, the slow part.
    literal: str | None = None
    ignore_case: bool = False

    @functools.cached_property
    def regex(self) -> regex.Pattern[str]:
        """The pattern compiled for this search, the first time it is wanted: a Grep that
        ripgrep answers never loads ``regex``. Raises regexes.BadPattern."""
        return regexes.compile_pattern(
            self.pattern, ignore_case=self.ignore_case, multiline=self.multiline
        )


# What makes a pattern more than its own text in Python's syntax (VERSION0, without VERBOSE).
_SPECIAL = frozenset(".^$*+?{}[]\\|()\n\r")


def literal_of(pattern: str, *, ignore_case: bool) -> str | None:
    """The text a pattern matches when it matches only itself, else None."""
    if ignore_case or not pattern or not _SPECIAL.isdisjoint(pattern):
        return None
    return pattern


class Output:
    """Result lines up to ``head_limit`` of them and ``cap`` characters in all."""

    def __init__(self, limit: int | None, cap: int) -> None:
        self.lines: list[str] = []
        self.limit = limit
        self.cap = cap
        self.chars = 0
        self.limited = False  # head_limit stopped it
        self.capped = False  # the character cap stopped it

    @property
    def full(self) -> bool:
        return self.limited or self.capped

    def add(self, line: str) -> None:
        if self.limit is not None and len(self.lines) >= self.limit:
            self.limited = True
        elif self.chars + len(line) > self.cap:
            self.capped = True
        else:
            self.lines.append(line)
            self.chars += len(line) + 1


class Searcher:
    """One Grep's matching and output. ``feed`` is blocking (a worker thread's work) and may be
    called again with more files until it says the output is full."""

    def __init__(self, query: Query, cap: int, stop: threading.Event) -> None:
        self.query = query
        self.stop = stop
        self.out = Output(query.head_limit, cap)
        self.matched: list[Found] = []  # files_with_matches, in the order met

    def feed(self, files: Iterable[Found]) -> bool:
        """Search ``files``; True when the output is full and no more files are wanted."""
        for found in files:
            if self.stop.is_set() or self.out.full:
                break
            self.search(found)
        return self.out.full

    def search(self, found: Found, *, named: bool = False) -> None:
        """Search one file; ``named``: the one the call named, whose failure to open is the
        call's.

        The file is held as read (at most MAX_FILE_BYTES) and its lines are made one at a time
        as the search goes: a 20 MB file of short lines, split into a list, would take five
        times its size, and a full output stops the search where it is.
        """
        query = self.query
        if found.size > MAX_FILE_BYTES:
            return
        data = _read(found, named=named)
        if data is None or (query.literal is not None and not _may_hold(data, query.literal)):
            return
        if query.multiline:
            text = data.decode("utf-8", errors="replace")
            del data  # the text is what is searched now
            self._multiline(found, text)
            return
        matches = _matcher(query)
        lines = _byte_lines(data)
        if query.mode == "files_with_matches":
            if any(map(matches, lines)):
                self.matched.append(found)
        elif query.mode == "count":
            count = sum(1 for line in lines if matches(line))
            if count:
                self.out.add(f"{found.path}:{count}")
        else:
            hits = ((index, line, matches(line)) for index, line in enumerate(lines))
            render(found.path, _with_context(hits, query), query, self.out)

    def _multiline(self, found: Found, text: str) -> None:
        """A pattern that may span lines: matched against the whole text, and a line is a hit
        where a match touches it."""
        query = self.query
        if query.mode == "files_with_matches":
            if regexes.search(query.regex, text) is not None:
                self.matched.append(found)
            return
        spans = _hit_spans(query, text)
        if query.mode == "count":
            total = _line_count(text)
            count = sum(min(last, total - 1) - first + 1 for first, last in spans if first < total)
            if count:
                self.out.add(f"{found.path}:{count}")
            return
        spans_left = iter(spans)
        span = next(spans_left, None)

        def hit(index: int) -> bool:
            nonlocal span
            while span is not None and span[1] < index:
                span = next(spans_left, None)
            return span is not None and span[0] <= index

        hits = ((index, line, hit(index)) for index, line in enumerate(_text_lines(text)))
        render(found.path, _with_context(hits, query), query, self.out)

    def report(self, shown: str) -> str:
        add_newest_first(self.matched, self.out)
        return report(shown, self.query, self.out)


def add_newest_first(matched: list[Found], out: Output) -> None:
    """Files with matches newest first (ties by path), like Glob: the files being worked on
    come up before old ones."""
    for found in sorted(matched, key=lambda hit: (-hit.mtime, hit.path)):
        out.add(found.path)
        if out.full:
            return


def wanted(query: Query) -> Callable[[str], bool] | None:
    """The test of a file's path from the walk root that ``query``'s glob and type make."""
    matches = glob_matcher(query.glob, by_name=True) if query.glob else None
    extensions = TYPES[query.type] if query.type else None
    if matches is None and extensions is None:
        return None

    def test(rel: str) -> bool:
        if extensions is not None and not rel.endswith(extensions):
            return False
        return matches is None or matches(rel)

    return test


def _read(found: Found, *, named: bool) -> bytes | None:
    """The file's bytes, at most MAX_FILE_BYTES + 1; ``None`` for binary files, which a search
    passes over.

    Opened through the door at the real path the broker judged: a file swapped for a symlink
    meanwhile is not opened (``door.Changed``), nor is a pipe or device put in its place read.
    A walk passes over such a file, and over one it cannot open; for a file ``named`` directly
    the error is the result.
    """
    try:
        file = door.open_read(door.Target(found.path, found.real, found.links))
    except (OSError, door.Changed):
        if named:
            raise
        return None
    with file:
        st = os.fstat(file.fileno())
        if not stat.S_ISREG(st.st_mode):
            return None
        # The head first: a binary file (a shared library, an image) is not read whole.
        head = file.read(SNIFF_BYTES)
        if is_binary(head):
            return None
        if len(head) < SNIFF_BYTES:
            return head  # the whole file
        # Read again whole, in one buffer of the file's size: no copy joins the head to it.
        file.seek(0)
        return file.read(min(st.st_size, MAX_FILE_BYTES) + 1)


def _may_hold(data: bytes, word: str) -> bool:
    """Whether a file may hold a plain word, looked for in its bytes (in C, without decoding):
    UTF-8 text holds a word where its bytes hold the word's. A word with the character that
    stands in for undecodable bytes is looked for line by line."""
    return "\ufffd" in word or word.encode() in data


def _matcher(query: Query) -> Callable[[str], bool]:
    word = query.literal
    if word is not None:
        return lambda line: word in line  # a plain word matches where its text is
    pattern = query.regex
    return lambda line: regexes.search(pattern, line) is not None


def _byte_lines(data: bytes) -> Iterator[str]:
    """Lines split on "\n" only (as Read numbers them), without their line ends, one at a
    time. Decoding a line alone gives what decoding the whole does: no byte of a UTF-8
    sequence is a newline."""
    for raw in io.BytesIO(data):
        yield raw.removesuffix(b"\n").removesuffix(b"\r").decode("utf-8", errors="replace")


def _text_lines(text: str) -> Iterator[str]:
    """``_byte_lines`` of a text already decoded."""
    start, size = 0, len(text)
    while start < size:
        end = text.find("\n", start)
        if end < 0:
            yield text[start:].removesuffix("\r")
            return
        yield text[start:end].removesuffix("\r")
        start = end + 1


def _line_count(text: str) -> int:
    return text.count("\n") + (0 if not text or text.endswith("\n") else 1)


def _hit_spans(query: Query, text: str) -> list[tuple[int, int]]:
    """The runs of lines (first and last index) the matches touch, in order, those that
    touch or overlap merged: the line numbers are counted as the matches come, in C."""
    spans: list[tuple[int, int]] = []
    at = line = 0  # a place in the text, and the index of its line
    for match in regexes.finditer(query.regex, text):
        start, end = match.start(), max(match.end() - 1, match.start())
        line += text.count("\n", at, start)
        last = line + text.count("\n", start, end)
        at = start
        if spans and line <= spans[-1][1] + 1:
            spans[-1] = (spans[-1][0], max(spans[-1][1], last))
        else:
            spans.append((line, last))
    return spans


def _with_context(
    lines: Iterable[tuple[int, str, bool]], query: Query
) -> Iterator[tuple[int, str, bool]]:
    """The hits of ``lines`` (index, text, whether a hit) with ``before`` lines ahead of each
    and ``after`` lines behind, each line once, in order."""
    before: deque[tuple[int, str, bool]] = deque(maxlen=query.before)
    after = 0
    for row in lines:
        if row[2]:
            yield from before
            before.clear()
            yield row
            after = query.after
        elif after:
            yield row
            after -= 1
        elif query.before:
            before.append(row)


def render(path: str, rows: Iterable[tuple[int, str, bool]], query: Query, out: Output) -> None:
    """ripgrep's layout: ``path:12:text`` for matches, ``path-11-text`` for context, ``--``
    between runs of lines that are not adjacent. ``rows``: a file's lines to show, by index
    (from 0), each with whether it is a match; taken until the output is full."""
    previous: int | None = None
    with_context = bool(query.before or query.after)
    for index, text, matched in rows:
        if out.full:
            return
        if with_context and out.lines and (previous is None or index > previous + 1):
            out.add("--")
        previous = index
        mark = ":" if matched else "-"
        line = text if len(text) <= MAX_LINE_CHARS else text[:MAX_LINE_CHARS] + " [...]"
        number = f"{index + 1}{mark}" if query.numbers else ""
        out.add(f"{path}{mark}{number}{line}")


def report(shown: str, query: Query, out: Output) -> str:
    """The result: the lines found and what cut them short.

    Nothing is said of files the permission rules keep from tools: a count of those that
    matched would tell whether a blocked file holds the pattern, and a count of all of them
    would mean judging every file of the tree for every search. The tool's description says
    that such files are not searched.
    """
    notes = []
    if out.limited:
        notes.append(f"(Showing the first {query.head_limit} results; there are more.)")
    if out.capped:
        notes.append(
            f"(Output cut at {out.cap} characters; narrow the search with path, glob, type or "
            "head_limit.)"
        )
    if not out.lines:
        return "\n".join([f"No matches for {query.pattern!r} in {shown}.", *notes])
    return "\n".join([*out.lines, *notes])
