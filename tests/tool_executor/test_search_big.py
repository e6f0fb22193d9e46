"""The Python matcher (Grep's fallback where rg cannot run, or reads a pattern otherwise) on a
file at the size limit: its memory follows the file, not five times it, and a full output
stops it where it is."""

from __future__ import annotations

import os
import threading
import tracemalloc
from typing import TYPE_CHECKING

import pytest

from actors.tool_executor import search
from actors.tool_executor.search import MAX_FILE_BYTES, Query, Searcher
from actors.tool_executor.walk import Found

if TYPE_CHECKING:
    from pathlib import Path

    from actors.tool_executor.schemas import GrepMode

LINE = "a short line of text\r\n"
NEEDLE = "a short line, a needle\r\n"  # every thousandth line
BLOCK = LINE * 999 + NEEDLE
# A count reads every line, which tracemalloc makes slow: a whole file at the real limit takes
# seconds. The memory a search takes is the file's and a line's, whatever the size, so a count
# is checked at a limit a tenth as large; a content search (its list of lines, if it made one,
# comes before its first match) and a multiline count are checked at the real one.
SMALL_LIMIT = MAX_FILE_BYTES // 10
LIMITS = {"big": MAX_FILE_BYTES, "small": SMALL_LIMIT}  # a fixture's name, and its file's limit


def _file_at(limit: int, folder: Path) -> Found:
    """A file just under ``limit``, of short CRLF lines."""
    path = folder / "log.txt"
    with open(path, "w", newline="") as file:
        file.write(BLOCK * ((limit - 1024) // len(BLOCK)))
    size = os.path.getsize(path)
    return Found(str(path), "log.txt", 0.0, size, str(path), 1)


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Found:
    return _file_at(MAX_FILE_BYTES, tmp_path_factory.mktemp("big"))


@pytest.fixture(scope="module")
def small(tmp_path_factory: pytest.TempPathFactory) -> Found:
    return _file_at(SMALL_LIMIT, tmp_path_factory.mktemp("small"))


def _search(found: Found, pattern: str, mode: GrepMode, *, multiline: bool = False) -> str:
    query = Query(pattern, mode, None, None, multiline, True, 1, 1, None)
    searcher = Searcher(query, 30_000, threading.Event())
    searcher.search(found, named=True)
    return searcher.report("the tree")


@pytest.mark.parametrize(
    ("pattern", "mode", "multiline", "file"),
    [
        ("(?<=a )needle", "content", False, "big"),  # look-behind: rg reads it otherwise
        ("(?<=a )needle", "count", False, "small"),
        ("needle", "count", False, "small"),  # a plain word
        ("line, a.needle", "content", True, "big"),
        ("line, a.needle", "count", True, "big"),
    ],
)
def test_a_file_at_the_limit_takes_little_more_memory_than_itself(
    request: pytest.FixtureRequest,
    monkeypatch: pytest.MonkeyPatch,
    pattern: str,
    mode: GrepMode,
    multiline: bool,
    file: str,
) -> None:
    monkeypatch.setattr(search, "MAX_FILE_BYTES", LIMITS[file])
    found: Found = request.getfixturevalue(file)
    tracemalloc.start()
    try:
        said = _search(found, pattern, mode, multiline=multiline)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # The bytes read, and the text they decode to where a match may span lines: a list of its
    # lines (870,000 at the real limit) would be over three times the file's size more.
    assert peak < (2.3 if multiline else 1.3) * found.size
    if mode == "count":
        assert said == f"{found.path}:{found.size // len(BLOCK)}"
    else:
        needle = NEEDLE.rstrip()
        assert said.startswith(
            f"{found.path}-999-{LINE.rstrip()}\n{found.path}:1000:{needle}\n"
            f"{found.path}-1001-{LINE.rstrip()}\n--\n{found.path}-1999-"
        )
        assert said.endswith(
            "(Output cut at 30000 characters; narrow the search with path, glob, type or "
            "head_limit.)"
        )
