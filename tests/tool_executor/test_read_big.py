"""Read of big files: the caps and notes, memory that does not grow with the file, and a stamp
that still covers every byte for Edit."""

from __future__ import annotations

import tracemalloc
from typing import TYPE_CHECKING, SupportsIndex

import pytest

from actors.tool_executor.tools.read import PIECE, _Window
from tests.tool_executor.harness import session

if TYPE_CHECKING:
    from pathlib import Path

MB = 1 << 20
SIZE = 50 * MB
LINE = b"x" * 79 + b"\n"  # 80 bytes
LINES = SIZE // len(LINE)


def write(path: Path, piece: bytes, times: int, tail: bytes = b"") -> None:
    with path.open("wb") as file:
        for _ in range(times):
            file.write(piece)
        file.write(tail)


@pytest.fixture(scope="module")
def short_lines(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("big") / "short.txt"
    write(path, LINE, LINES)
    return path


class Peak:
    """The peak of Python's allocations while the block ran, in bytes."""

    def __init__(self) -> None:
        self.bytes = 0

    def __enter__(self) -> Peak:
        tracemalloc.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.bytes = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()


async def test_the_default_read_of_50_mb_stops_at_the_character_cap(
    short_lines: Path, tmp_path: Path
) -> None:
    async with session(tmp_path) as s:
        with Peak() as used:
            done = await s.one("Read", file_path=str(short_lines))
    out = done.result.content.split("\n")
    # 1,149 entries of 87 characters (number, tab, line, newline) stay within 100,000.
    assert out[:-1] == [f"{n:>6}\t{'x' * 79}" for n in range(1, 1150)]
    assert out[-1] == f"(Showing lines 1-1149 of {LINES}. Use offset and limit to read the rest.)"
    assert used.bytes < 20 * MB


async def test_an_offset_near_the_end_of_50_mb(short_lines: Path, tmp_path: Path) -> None:
    async with session(tmp_path) as s:
        with Peak() as used:
            done = await s.one("Read", file_path=str(short_lines), offset=LINES - 2, limit=10)
    assert done.result.content == (
        f"{LINES - 2:>6}\t{'x' * 79}\n{LINES - 1:>6}\t{'x' * 79}\n{LINES:>6}\t{'x' * 79}\n"
        f"(Showing lines {LINES - 2}-{LINES} of {LINES}. Use offset and limit to read the rest.)"
    )
    assert used.bytes < 20 * MB


async def test_50_mb_in_one_line_is_cut_with_a_note(tmp_path: Path) -> None:
    path = tmp_path / "one.txt"
    write(path, b"y" * MB, 50)
    async with session(tmp_path) as s:
        with Peak() as used:
            done = await s.one("Read", file_path=str(path))
    assert done.result.content == (
        f"     1\t{'y' * 2000}\n"
        "(Lines longer than 2000 characters were cut: 1. Use Bash to see them whole.)"
    )
    assert used.bytes < 20 * MB


async def test_50_mb_of_long_lines_stops_at_the_character_cap(tmp_path: Path) -> None:
    path = tmp_path / "long.txt"
    write(path, b"z" * 9_999 + b"\n", SIZE // 10_000)
    async with session(tmp_path) as s:
        with Peak() as used:
            done = await s.one("Read", file_path=str(path))
    out = done.result.content.split("\n")
    # 49 entries of 2,008 characters stay within 100,000.
    assert out[:-2] == [f"{n:>6}\t{'z' * 2000}" for n in range(1, 50)]
    assert (
        out[-2]
        == f"(Showing lines 1-49 of {SIZE // 10_000}. Use offset and limit to read the rest.)"
    )
    assert out[-1].startswith("(Lines longer than 2000 characters were cut: 1, 2, 3,")
    assert used.bytes < 20 * MB


async def test_the_stamp_covers_the_bytes_past_the_window(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    write(path, LINE, 3 * PIECE // len(LINE), b"the end\n")
    async with session(tmp_path) as s:
        done = await s.one("Read", file_path=str(path), limit=1)
        assert done.result.content.startswith("     1\t")
        with path.open("r+b") as file:  # same size, one byte changed in the third piece
            file.seek(-2, 2)
            file.write(b"D")
        stale = await s.one("Edit", file_path=str(path), old_string="the enD", new_string="end")
        assert "has changed on disk since it was last read" in stale.result.content
        await s.read(path)
        edit = await s.one("Edit", file_path=str(path), old_string="the enD", new_string="end")
    assert not edit.result.is_error, edit.result.content
    assert path.read_bytes().endswith(LINE + b"end\n")


class Unsplittable(bytes):
    """A piece whose lines must not be looked for: only its newlines may be counted."""

    def find(self, *args: object) -> int:
        raise AssertionError("a piece past the window was split into lines")

    def __getitem__(self, index: SupportsIndex | slice) -> int | bytes:  # type: ignore[override]
        raise AssertionError("a piece past the window was sliced")


def test_past_the_window_pieces_are_only_counted() -> None:
    window = _Window(2, 2)
    window.feed(b"one\ntwo\nthree\nfo")
    window.feed(Unsplittable(b"ur\n" + b"more\n" * 1000))
    window.finish()
    assert window.render("f") == (
        "     2\ttwo\n     3\tthree\n"
        "(Showing lines 2-3 of 1004. Use offset and limit to read the rest.)"
    )


def test_before_the_window_pieces_are_only_counted() -> None:
    window = _Window(1003, 5)
    window.feed(Unsplittable(b"line\n" * 1000))
    window.feed(b"a\nb\nc\nd")
    window.finish()
    assert window.render("f") == (
        "  1003\tc\n  1004\td\n"
        "(Showing lines 1003-1004 of 1004. Use offset and limit to read the rest.)"
    )
