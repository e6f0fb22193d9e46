"""Read: numbered lines, windows, limits, and the files it refuses."""

from __future__ import annotations

from typing import TYPE_CHECKING

from actors.protocol import PermissionRequest
from tests.tool_executor.harness import call, session

if TYPE_CHECKING:
    from pathlib import Path


async def test_lines_are_numbered_like_cat_n(tmp_path: Path) -> None:
    path = tmp_path / "poem.txt"
    path.write_bytes(b"first\r\n\tsecond\n\nfourth")
    read = call("Read", file_path=str(path))
    async with session(tmp_path) as s:
        done = (await s.finished(read))[read.id]
    assert not done.result.is_error
    assert done.result.content == "     1\tfirst\n     2\t\tsecond\n     3\t\n     4\tfourth"
    assert s.broker.requests == [
        PermissionRequest(
            tool="Read", kind="read", paths=(str(path),), tool_use_id=read.id, tool_input=read.input
        )
    ]


async def test_offset_and_limit_pick_a_window_and_say_so(tmp_path: Path) -> None:
    path = tmp_path / "n.txt"
    path.write_text("".join(f"line {i}\n" for i in range(1, 11)))
    async with session(tmp_path) as s:
        done = await s.one("Read", file_path=str(path), offset=4, limit=2)
        past = await s.one("Read", file_path=str(path), offset=20)
    assert done.result.content == (
        "     4\tline 4\n     5\tline 5\n"
        "(Showing lines 4-5 of 10. Use offset and limit to read the rest.)"
    )
    assert not past.result.is_error
    assert past.result.content == f"(The file {path} has 10 lines; offset 20 is past its end.)"


async def test_at_most_2000_lines_and_2000_characters_a_line(tmp_path: Path) -> None:
    path = tmp_path / "big.txt"
    lines = [f"{i}" for i in range(1, 2501)]
    lines[2] = "x" * 5000
    path.write_text("\n".join(lines) + "\n")
    async with session(tmp_path) as s:
        done = await s.one("Read", file_path=str(path))
    out = done.result.content.split("\n")
    assert out[1999] == "  2000\t2000"
    assert out[2] == "     3\t" + "x" * 2000
    assert out[2000] == "(Showing lines 1-2000 of 2500. Use offset and limit to read the rest.)"
    assert out[2001].startswith("(Lines longer than 2000 characters were cut: 3.")


async def test_relative_paths_are_taken_from_the_project_root(tmp_path: Path) -> None:
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / "a.py").write_text("x = 1\n")
    async with session(tmp_path) as s:
        done = await s.one("Read", file_path="src/a.py")
    assert done.result.content == "     1\tx = 1"
    assert s.broker.requests[0].paths == (str(tmp_path / "src" / "a.py"),)


async def test_missing_directory_binary_and_empty_files(tmp_path: Path) -> None:
    (tmp_path / "blob.bin").write_bytes(b"PK\x03\x04\x00\x00binary")
    (tmp_path / "empty.txt").write_bytes(b"")
    async with session(tmp_path) as s:
        missing = await s.one("Read", file_path=str(tmp_path / "nope.txt"))
        folder = await s.one("Read", file_path=str(tmp_path))
        binary = await s.one("Read", file_path=str(tmp_path / "blob.bin"))
        empty = await s.one("Read", file_path=str(tmp_path / "empty.txt"))
    assert missing.result.is_error
    assert (
        missing.result.content
        == f"File does not exist: {tmp_path / 'nope.txt'}. Use Glob to find it."
    )
    assert folder.result.is_error and f"{tmp_path} is a directory" in folder.result.content
    assert binary.result.is_error and "binary file" in binary.result.content
    assert not empty.result.is_error and "is empty" in empty.result.content


async def test_a_refusal_reads_nothing(tmp_path: Path) -> None:
    secret = tmp_path / ".env"
    secret.write_text("KEY=hunter2\n")
    async with session(tmp_path, deny=lambda request: "the path is blocked") as s:
        done = await s.one("Read", file_path=str(secret))
    assert done.result.is_error and done.result.denied
    # The broker's reason is all: no general advice that may not fit (answer 'always').
    assert done.result.content == "Permission denied: the path is blocked"
    assert "hunter2" not in done.result.content
