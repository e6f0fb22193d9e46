"""The one door: the path that was checked is the path that is opened.

A command of the same turn can swap a file or a folder for a symlink between the broker's check
and the open. Here the broker stub does the swapping itself, at the moment it is asked, which is
exactly that window; the reads and writes that follow are real.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from actors import door
from tests.tool_executor.harness import session

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    import pytest

    from actors.protocol import PermissionRequest


def swap_when(kind: str, swap: Callable[[], None]) -> Callable[[PermissionRequest], None]:
    """A broker that allows everything, and performs ``swap`` when asked about ``kind``."""

    def decide(request: PermissionRequest) -> None:
        if request.kind == kind:
            swap()

    return decide


def folders(tmp_path: Path) -> tuple[Path, Path]:
    root, outside = tmp_path / "project", tmp_path / "outside"
    (root / "src").mkdir(parents=True)
    outside.mkdir()
    return root, outside


def link_folder(root: Path, outside: Path) -> Callable[[], None]:
    def swap() -> None:
        (root / "src").rename(root / "src-before")
        (root / "src").symlink_to(outside)

    return swap


async def test_a_folder_swapped_for_a_symlink_after_the_check_gets_no_new_file(
    tmp_path: Path,
) -> None:
    root, outside = folders(tmp_path)
    async with session(root, deny=swap_when("create", link_folder(root, outside))) as s:
        done = await s.one("Write", file_path="src/new.py", content="print('hi')\n")
    assert list(outside.iterdir()) == []
    assert done.result.is_error
    assert done.result.content == (
        f"{root / 'src' / 'new.py'} changed while it was being checked (the folder "
        f"{root / 'src'} is now a symlink to {outside}); nothing was written."
    )


async def test_a_folder_swapped_for_a_symlink_after_the_check_gets_no_edit(
    tmp_path: Path,
) -> None:
    root, outside = folders(tmp_path)
    (root / "src" / "a.py").write_text("x = 1\n")
    (outside / "a.py").write_text("x = 1\n")  # the same bytes: only the place differs
    async with session(root, deny=swap_when("write", link_folder(root, outside))) as s:
        await s.read(root / "src" / "a.py")
        done = await s.one("Edit", file_path="src/a.py", old_string="1", new_string="2")
    assert (outside / "a.py").read_text() == "x = 1\n"
    assert (root / "src-before" / "a.py").read_text() == "x = 1\n"
    assert done.result.is_error
    assert done.result.content.endswith(f"is now a symlink to {outside}); nothing was written.")


async def test_a_folder_swapped_for_a_symlink_after_the_check_is_not_read(
    tmp_path: Path,
) -> None:
    root, outside = folders(tmp_path)
    (root / "src" / "a.py").write_text("public\n")
    (outside / "a.py").write_text("SECRET\n")
    async with session(root, deny=swap_when("read", link_folder(root, outside))) as s:
        done = await s.one("Read", file_path="src/a.py")
    assert done.result.is_error
    assert done.result.content == (
        f"{root / 'src' / 'a.py'} changed while it was being checked (the folder "
        f"{root / 'src'} is now a symlink to {outside}); nothing was read."
    )


async def test_without_proc_the_swap_is_still_seen(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Where the kernel cannot name an open file (no /proc), the inode and a fresh realpath do.
    monkeypatch.setattr(door, "_opened", lambda fd: None)
    root, outside = folders(tmp_path)
    (root / "src" / "a.py").write_text("public\n")
    (outside / "a.py").write_text("SECRET\n")
    async with session(root, deny=swap_when("read", link_folder(root, outside))) as s:
        done = await s.one("Read", file_path="src/a.py")
    assert done.result.is_error and "SECRET" not in done.result.content
    assert done.result.content.endswith(f"is now a symlink to {outside}); nothing was read.")


async def test_a_file_swapped_for_a_symlink_after_the_check_is_not_read(tmp_path: Path) -> None:
    root, outside = folders(tmp_path)
    (root / "notes.txt").write_text("public\n")
    secret = outside / "secret.txt"
    secret.write_text("SECRET\n")

    def swap() -> None:
        (root / "notes.txt").unlink()
        (root / "notes.txt").symlink_to(secret)

    async with session(root, deny=swap_when("read", swap)) as s:
        done = await s.one("Read", file_path="notes.txt")
    assert done.result.content == (
        f"{root / 'notes.txt'} changed while it was being checked (it is now a symlink to "
        f"{secret}); nothing was read."
    )


async def test_a_name_added_after_the_check_is_not_read(tmp_path: Path) -> None:
    # The broker was told the file has one name; a second one may be a blocked file's.
    root, _ = folders(tmp_path)
    (root / "notes.txt").write_text("public\n")
    swap = swap_when("read", lambda: os.link(root / "notes.txt", root / "other.txt"))
    async with session(root, deny=swap) as s:
        done = await s.one("Read", file_path="notes.txt")
    assert s.broker.requests[0].hard_links == 1
    assert done.result.content == (
        f"{root / 'notes.txt'} changed while it was being checked (it has 2 names now, hard "
        "links); nothing was read."
    )


async def test_writing_through_a_symlink_names_the_real_file(tmp_path: Path) -> None:
    root, _ = folders(tmp_path)
    (root / "src" / "real.py").write_text("x = 1\n")
    (root / "link.py").symlink_to(root / "src" / "real.py")
    async with session(root) as s:
        await s.read(root / "link.py")
        done = await s.one("Write", file_path="link.py", content="x = 2\n")
    assert (root / "link.py").is_symlink()
    assert (root / "src" / "real.py").read_text() == "x = 2\n"
    assert done.result.content == (
        f"Wrote {root / 'src' / 'real.py'} through {root / 'link.py'} (1 line)."
    )


async def test_a_write_makes_missing_folders_inside_the_checked_one(tmp_path: Path) -> None:
    root, _ = folders(tmp_path)
    async with session(root) as s:
        done = await s.one("Write", file_path="src/a/b/c.txt", content="deep\n")
    assert done.result.content == f"Created {root / 'src' / 'a' / 'b' / 'c.txt'} (1 line)."
    assert (root / "src" / "a" / "b" / "c.txt").read_text() == "deep\n"
