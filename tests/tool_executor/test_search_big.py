"""The Python matcher (Grep's fallback where rg cannot run, or reads a pattern otherwise) on a
file at the size limit: its memory follows the file, not five times it, and a full output
stops it where it is."""

from __future__ import annotations

import os
import threading
import tracemalloc
from typing import TYPE_CHECKING

import pytest

from actors.tool_executor import regexes
from actors.tool_executor.search import MAX_FILE_BYTES, Query, Searcher
from actors.tool_executor.walk import Found

if TYPE_CHECKING:
    from actors.tool_executor.schemas import GrepMode

LINE = "a short line of text\r\n"
NEEDLE = "a short line, a needle\r\n"  # every thousandth line
LINES = (MAX_FILE_BYTES - 1024) // len(LINE)


@pytest.fixture(scope="module")
def big(tmp_path_factory: pytest.TempPathFactory) -> Found:
    """A file just under the limit, of short CRLF lines."""
    path = tmp_path_factory.mktemp("big") / "log.txt"
    with open(path, "w", newline="") as file:
        file.write((LINE * 999 + NEEDLE) * (LINES // 1000))
    size = os.path.getsize(path)
    return Found(str(path), "log.txt", 0.0, size, str(path), 1)


def _search(found: Found, pattern: str, mode: GrepMode, *, multiline: bool = False) -> str:
    regex = regexes.compile_pattern(pattern, multiline=multiline)
    query = Query(regex, mode, None, None, multiline, True, 1, 1, None)
    searcher = Searcher(query, 30_000, threading.Event())
    searcher.search(found, named=True)
    return searcher.report("the tree")


@pytest.mark.parametrize(
    ("pattern", "mode", "multiline"),
    [
        ("(?<=a )needle", "content", False),  # look-behind: rg reads it otherwise
        ("(?<=a )needle", "count", False),
        ("needle", "count", False),  # a plain word
        ("line, a.needle", "content", True),
        ("line, a.needle", "count", True),
    ],
)
def test_a_file_at_the_limit_takes_little_more_memory_than_itself(
    big: Found, pattern: str, mode: GrepMode, multiline: bool
) -> None:
    tracemalloc.start()
    try:
        said = _search(big, pattern, mode, multiline=multiline)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # The bytes read, and the text they decode to where a match may span lines: a list of its
    # 870,000 lines would be over 60 MB more.
    assert peak < (2.3 if multiline else 1.3) * big.size
    if mode == "count":
        assert said == f"{big.path}:{LINES // 1000}"
    else:
        needle = NEEDLE.rstrip()
        assert said.startswith(
            f"{big.path}-999-{LINE.rstrip()}\n{big.path}:1000:{needle}\n"
            f"{big.path}-1001-{LINE.rstrip()}\n--\n{big.path}-1999-"
        )
        assert said.endswith(
            "(Output cut at 30000 characters; narrow the search with path, glob, type or "
            "head_limit.)"
        )
