"""The search behind Grep: blocking, run in worker threads a batch of files at a time, stopping
when asked to."""

from __future__ import annotations

import bisect
import os
import re
import stat
from dataclasses import dataclass
from typing import TYPE_CHECKING

from actors.tool_executor import door, regexes
from actors.tool_executor.files import SNIFF_BYTES, is_binary
from actors.tool_executor.walk import Found, glob_matcher

if TYPE_CHECKING:
    import threading
    from collections.abc import Callable, Iterable

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


@dataclass(frozen=True, slots=True)
class Query:
    regex: regex.Pattern[str]
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
        call's."""
        query = self.query
        if found.size > MAX_FILE_BYTES:
            return
        text = _text(found, named=named)
        if text is None or (query.literal is not None and query.literal not in text):
            return
        if query.mode == "files_with_matches":
            if _any_match(query, text):
                self.matched.append(found)
            return
        lines = _split(text)
        hits = _hits(query, text, lines)
        if not hits:
            return
        if query.mode == "count":
            self.out.add(f"{found.path}:{len(hits)}")
        else:
            _render(found.path, lines, hits, query, self.out)

    def report(self, shown: str) -> str:
        add_newest_first(self.matched, self.out)
        return report(shown, self.query, self.out)


def add_newest_first(matched: list[Found], out: Output) -> None:
    """Files with matches newest first (ties by path), like Glob: the files being worked on
    come up before old ones."""
    for found in sorted(matched, key=lambda hit: (-hit.mtime, hit.path)):
        out.add(found.path)


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


def _text(found: Found, *, named: bool) -> str | None:
    """The file as text; ``None`` for binary files, which a search passes over.

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
        if not stat.S_ISREG(os.fstat(file.fileno()).st_mode):
            return None
        # The head first: a binary file (a shared library, an image) is not read whole.
        head = file.read(SNIFF_BYTES)
        if is_binary(head):
            return None
        data = head + file.read(MAX_FILE_BYTES + 1 - len(head))
    return data.decode("utf-8", errors="replace")


def _split(text: str) -> list[str]:
    """Lines split on "\\n" only (as Read numbers them), without their line ends."""
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    return [line.removesuffix("\r") for line in lines]


def _any_match(query: Query, text: str) -> bool:
    if query.literal is not None:
        return query.literal in text  # a plain word matches where its text is, on one line
    if query.multiline:
        return regexes.search(query.regex, text) is not None
    return any(regexes.search(query.regex, line) for line in _split(text))


def _hits(query: Query, text: str, lines: list[str]) -> list[int]:
    """The indexes of the lines a match touches."""
    if query.literal is not None and not query.multiline:
        word = query.literal
        return [index for index, line in enumerate(lines) if word in line]
    if not query.multiline:
        return [index for index, line in enumerate(lines) if regexes.search(query.regex, line)]
    starts = [0] + [newline.end() for newline in re.finditer("\n", text)]
    hits: set[int] = set()
    for match in regexes.finditer(query.regex, text):
        first = bisect.bisect_right(starts, match.start()) - 1
        last = bisect.bisect_right(starts, max(match.end() - 1, match.start())) - 1
        hits.update(range(first, last + 1))
    return sorted(hit for hit in hits if hit < len(lines))


def _render(path: str, lines: list[str], hits: list[int], query: Query, out: Output) -> None:
    wanted = set(hits)
    shown: set[int] = set()
    for hit in hits:
        shown.update(range(max(hit - query.before, 0), min(hit + query.after, len(lines) - 1) + 1))
    render(path, [(index, lines[index], index in wanted) for index in sorted(shown)], query, out)


def render(path: str, rows: list[tuple[int, str, bool]], query: Query, out: Output) -> None:
    """ripgrep's layout: ``path:12:text`` for matches, ``path-11-text`` for context, ``--``
    between runs of lines that are not adjacent. ``rows``: a file's lines to show, by index
    (from 0), each with whether it is a match."""
    previous: int | None = None
    with_context = bool(query.before or query.after)
    for index, text, matched in rows:
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
        return "\n".join([f"No matches for {query.regex.pattern!r} in {shown}.", *notes])
    return "\n".join([*out.lines, *notes])
