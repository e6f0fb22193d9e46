"""Write and Edit: read first, refuse stale files, replace atomically, report a diff."""

from __future__ import annotations

import os
import stat
import threading
from typing import TYPE_CHECKING

import anyio

from tests.tool_executor.harness import call, session

if TYPE_CHECKING:
    from pathlib import Path


def leftovers(folder: Path) -> list[str]:
    return [name for name in os.listdir(folder) if name.endswith(".legato-tmp")]


async def test_write_creates_a_file_and_its_folders(tmp_path: Path) -> None:
    path = tmp_path / "new" / "deep" / "hello.py"
    async with session(tmp_path) as s:
        done = await s.one("Write", file_path=str(path), content="print('hi')\n")
    assert not done.result.is_error
    assert done.result.content == f"Created {path} (1 line)."
    assert path.read_text() == "print('hi')\n"
    request = s.broker.requests[0]
    assert (request.tool, request.kind, request.paths) == ("Write", "create", (str(path),))
    assert request.preview == done.diff
    assert done.diff is not None and done.diff.startswith(f"--- /dev/null\n+++ {path}\n")
    assert "+print('hi')" in done.diff
    # A new file gets the usual 0o666 minus the umask, not mkstemp's 0o600.
    umask = os.umask(0)
    os.umask(umask)
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~umask
    assert leftovers(path.parent) == []


async def test_write_over_a_file_needs_a_read_first(tmp_path: Path) -> None:
    path = tmp_path / "keep.txt"
    path.write_text("precious\n")
    async with session(tmp_path) as s:
        blind = await s.one("Write", file_path=str(path), content="gone\n")
        assert blind.result.is_error
        assert blind.result.content == (
            f"{path} has not been read in this session. Read it first, then write it."
        )
        assert path.read_text() == "precious\n"
        await s.read(path)
        done = await s.one("Write", file_path=str(path), content="replaced\n")
    assert not done.result.is_error and done.result.content == f"Wrote {path} (1 line)."
    assert path.read_text() == "replaced\n"
    assert s.broker.requests[-1].kind == "write"
    assert done.diff == f"--- {path}\n+++ {path}\n@@ -1 +1 @@\n-precious\n+replaced\n"


async def test_write_keeps_the_mode_and_the_symlink(tmp_path: Path) -> None:
    target = tmp_path / "run.sh"
    target.write_text("echo 1\n")
    target.chmod(0o751)
    link = tmp_path / "link.sh"
    link.symlink_to(target)
    async with session(tmp_path) as s:
        await s.read(link)
        done = await s.one("Write", file_path=str(link), content="echo 2\n")
    assert not done.result.is_error
    assert link.is_symlink() and target.read_text() == "echo 2\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o751
    # The broker sees both the path named and where it really leads.
    assert s.broker.requests[-1].paths == (str(link), str(target))
    assert leftovers(tmp_path) == []


async def test_a_file_changed_since_it_was_read_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_text("alpha\n")
    async with session(tmp_path) as s:
        await s.read(path)
        path.write_text("alpha, changed by the user\n")
        edit = await s.one("Edit", file_path=str(path), old_string="alpha", new_string="beta")
        write = await s.one("Write", file_path=str(path), content="beta\n")
        assert edit.result.is_error and write.result.is_error
        assert edit.result.content == (
            f"{path} has changed on disk since it was last read (by the user or another "
            "program). Read it again, then edit it."
        )
        assert "Read it again, then write it." in write.result.content
        assert path.read_text() == "alpha, changed by the user\n"
        await s.read(path)
        again = await s.one("Edit", file_path=str(path), old_string="alpha", new_string="beta")
    assert not again.result.is_error
    assert path.read_text() == "beta, changed by the user\n"


async def test_a_touched_but_unchanged_file_is_not_stale(tmp_path: Path) -> None:
    path = tmp_path / "a.txt"
    path.write_text("alpha\n")
    async with session(tmp_path) as s:
        await s.read(path)
        os.utime(path, ns=(1, 1))
        done = await s.one("Edit", file_path=str(path), old_string="alpha", new_string="beta")
    assert not done.result.is_error, done.result.content
    assert path.read_text() == "beta\n"


async def test_edit_replaces_exactly_one_occurrence_and_reports_a_diff(tmp_path: Path) -> None:
    path = tmp_path / "m.py"
    path.write_text("def f():\n    return 1\n")
    async with session(tmp_path) as s:
        await s.read(path)
        done = await s.one("Edit", file_path=str(path), old_string="1", new_string="2")
    assert not done.result.is_error
    assert done.result.content == f"Edited {path}: replaced 1 occurrence of old_string."
    assert path.read_text() == "def f():\n    return 2\n"
    assert done.diff == (
        f"--- {path}\n+++ {path}\n@@ -1,2 +1,2 @@\n def f():\n-    return 1\n+    return 2\n"
    )
    request = s.broker.requests[-1]
    assert (request.kind, request.preview) == ("write", done.diff)


async def test_edit_refuses_ambiguous_missing_and_empty_changes(tmp_path: Path) -> None:
    path = tmp_path / "m.txt"
    path.write_text("x = 1\ny = 1\n")
    async with session(tmp_path) as s:
        await s.read(path)
        twice = await s.one("Edit", file_path=str(path), old_string="1", new_string="2")
        absent = await s.one("Edit", file_path=str(path), old_string="z", new_string="2")
        same = await s.one("Edit", file_path=str(path), old_string="1", new_string="1")
        everywhere = await s.one(
            "Edit", file_path=str(path), old_string="1", new_string="2", replace_all=True
        )
    assert twice.result.is_error and "old_string was found 2 times" in twice.result.content
    assert "set replace_all" in twice.result.content
    assert absent.result.is_error and "old_string was not found" in absent.result.content
    assert same.result.is_error and "the same" in same.result.content
    assert everywhere.result.content == f"Edited {path}: replaced 2 occurrences of old_string."
    assert path.read_text() == "x = 2\ny = 2\n"


async def test_edit_without_a_read_and_of_a_missing_file(tmp_path: Path) -> None:
    path = tmp_path / "m.txt"
    path.write_text("x\n")
    async with session(tmp_path) as s:
        unread = await s.one("Edit", file_path=str(path), old_string="x", new_string="y")
        missing = await s.one(
            "Edit", file_path=str(tmp_path / "no.txt"), old_string="x", new_string="y"
        )
    assert unread.result.is_error and "Read it first, then edit it" in unread.result.content
    assert path.read_text() == "x\n"
    assert missing.result.is_error
    assert missing.result.content.startswith(f"File does not exist: {tmp_path / 'no.txt'}.")
    assert s.broker.requests == []  # refused before anything was asked


async def test_edit_keeps_crlf_and_bytes_that_are_not_utf8(tmp_path: Path) -> None:
    path = tmp_path / "w.txt"
    path.write_bytes(b"caf\xe9\r\nline two\r\nend\r\n")
    async with session(tmp_path) as s:
        await s.read(path)
        done = await s.one(
            "Edit", file_path=str(path), old_string="line two\nend", new_string="line 2\nend"
        )
    assert not done.result.is_error, done.result.content
    assert path.read_bytes() == b"caf\xe9\r\nline 2\r\nend\r\n"


async def test_a_refused_edit_touches_nothing(tmp_path: Path) -> None:
    path = tmp_path / "m.txt"
    path.write_text("x\n")
    async with session(
        tmp_path, deny=lambda r: "writes are off" if r.kind == "write" else None
    ) as s:
        await s.read(path)
        done = await s.one("Edit", file_path=str(path), old_string="x", new_string="y")
    assert done.result.denied and done.result.is_error
    assert done.result.content == "Permission denied: writes are off"
    assert path.read_text() == "x\n" and leftovers(tmp_path) == []


async def test_readers_only_ever_see_a_whole_file(tmp_path: Path) -> None:
    path = tmp_path / "big.txt"
    old, new = "a" * 2_000_000, "b" * 2_000_000
    path.write_text(old)
    seen: set[int] = set()
    torn: list[int] = []
    stop = threading.Event()

    def poll() -> None:
        while not stop.is_set():
            data = path.read_bytes()
            if data in (old.encode(), new.encode()):
                seen.add(data[0])
            else:
                torn.append(len(data))

    reader = threading.Thread(target=poll)
    async with session(tmp_path) as s:
        await s.read(path)
        reader.start()
        try:
            for round in range(30):
                done = await s.one("Write", file_path=str(path), content=(new, old)[round % 2])
                assert not done.result.is_error, done.result.content
        finally:
            stop.set()
            await anyio.to_thread.run_sync(reader.join)
    assert torn == []
    assert seen == {ord("a"), ord("b")}  # the reader did see both versions
    assert leftovers(tmp_path) == []


async def test_edits_of_one_file_in_one_batch_keep_the_models_order(tmp_path: Path) -> None:
    path = tmp_path / "chain.txt"
    path.write_text("A\n")
    async with session(tmp_path) as s:
        await s.read(path)
        first = call("Edit", file_path=str(path), old_string="A", new_string="B")
        second = call("Edit", file_path=str(path), old_string="B", new_string="C")
        reread = call("Read", file_path=str(path))
        finished = await s.finished(first, second, reread)
    assert [finished[c.id].result.is_error for c in (first, second, reread)] == [False] * 3
    assert path.read_text() == "C\n"
    assert finished[reread.id].result.content == "     1\tC"
