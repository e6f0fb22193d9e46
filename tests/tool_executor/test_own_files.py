"""The door for what Legato reads for itself (``own_files.read_own``), on real files: what it
reads, and each kind of file it refuses, with the words that name why."""

from __future__ import annotations

import os
import socket
from typing import TYPE_CHECKING

import pytest

from actors import door
from actors.own_files import OwnFile, Refused, read_own, user_folders

if TYPE_CHECKING:
    from collections.abc import Iterator
    from pathlib import Path
    from typing import BinaryIO


@pytest.fixture
def root(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    return folder


def read(path: Path, root: Path, cap: int = 1024, **options: object) -> OwnFile | None:
    return read_own(str(path), inside=(str(root),), cap=cap, **options)  # type: ignore[arg-type]


def refusal(path: Path, root: Path, cap: int = 1024, **options: object) -> str:
    with pytest.raises(Refused) as caught:
        read(path, root, cap, **options)
    assert caught.value.path == str(path)
    return caught.value.why


def test_a_file_of_the_folder_is_read_and_an_absent_one_is_none(root: Path) -> None:
    (root / "LEGATO.md").write_text("guide\n")
    assert read(root / "LEGATO.md", root) == OwnFile(b"guide\n")
    assert read(root / "absent.md", root) is None
    (root / "dangling.md").symlink_to("nowhere.md")  # a link to nothing inside: absent too
    assert read(root / "dangling.md", root) is None


def test_a_link_inside_the_folder_is_followed(root: Path) -> None:
    (root / "docs").mkdir()
    (root / "docs" / "guide.md").write_text("the real guide")
    (root / "LEGATO.md").symlink_to("docs/guide.md")
    assert read(root / "LEGATO.md", root) == OwnFile(b"the real guide")


def test_a_link_out_of_the_folder_is_refused_even_to_nothing(root: Path, tmp_path: Path) -> None:
    (tmp_path / "id_rsa").write_text("key")
    (root / "LEGATO.md").symlink_to(tmp_path / "id_rsa")
    assert refusal(root / "LEGATO.md", root) == f"leads to {tmp_path}/id_rsa, outside {root}"
    (root / "gone.md").symlink_to(tmp_path / "gone")
    assert refusal(root / "gone.md", root) == f"leads to {tmp_path}/gone, outside {root}"


def test_a_folder_linked_out_leads_its_files_out_too(root: Path, tmp_path: Path) -> None:
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "a.md").write_text("x")
    (root / ".legato").symlink_to(tmp_path / "elsewhere")
    assert refusal(root / ".legato" / "a.md", root).startswith(
        f"leads to {tmp_path}/elsewhere/a.md through the symlinked folder {root}/.legato, outside"
    )


@pytest.mark.parametrize("target", ["/proc/self/environ", "/dev/zero", "/sys/kernel/notes"])
def test_kernel_interfaces_are_refused_as_named_and_through_a_link(root: Path, target: str) -> None:
    (root / "LEGATO.md").symlink_to(target)
    assert "Legato reads no file in /proc, /dev or /sys for itself" in refusal(
        root / "LEGATO.md", root
    )
    with pytest.raises(Refused, match="reads no file in /proc, /dev or /sys"):
        read_own(target, inside=("/",), cap=10)


def test_a_fifo_is_refused_without_waiting_for_a_writer(root: Path) -> None:
    os.mkfifo(root / "LEGATO.md")
    assert refusal(root / "LEGATO.md", root) == "is a FIFO (named pipe), not a file"


@pytest.fixture
def listening(root: Path) -> Iterator[Path]:
    path = root / "sock.md"
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(path))
        yield path


def test_a_socket_is_refused(root: Path, listening: Path) -> None:
    assert refusal(listening, root) == "is not a regular file"


def test_a_folder_is_refused(root: Path) -> None:
    (root / "LEGATO.md").mkdir()
    assert refusal(root / "LEGATO.md", root) == "is a directory, not a file"


def test_a_file_with_a_second_name_is_refused(root: Path, tmp_path: Path) -> None:
    (tmp_path / "secret").write_text("key")
    os.link(tmp_path / "secret", root / "LEGATO.md")  # as a command could, on the same disk
    assert refusal(root / "LEGATO.md", root).startswith("has 2 names (hard links)")


def test_over_the_cap_is_refused_or_cut(root: Path) -> None:
    (root / "big.md").write_bytes(b"x" * 2049)
    assert refusal(root / "big.md", root, cap=2048) == (
        "is larger than 2 KiB, the most Legato reads of such a file"
    )
    assert read(root / "big.md", root, cap=2048, cut=True) == OwnFile(b"x" * 2048, cut=True)
    (root / "fits.md").write_bytes(b"x" * 2048)
    assert read(root / "fits.md", root, cap=2048) == OwnFile(b"x" * 2048)


def test_a_link_to_a_blocked_file_is_refused_the_blocked_file_itself_is_not(root: Path) -> None:
    (root / ".env").write_text("TOKEN=1")
    (root / "LEGATO.md").symlink_to(".env")

    def blocked(path: str) -> str | None:
        return "the blockedPaths entry '.env'" if path.endswith("/.env") else None

    assert refusal(root / "LEGATO.md", root, blocked=blocked) == (
        f"leads to {root}/.env, which the blockedPaths entry '.env' blocks"
    )
    assert read(root / ".env", root, blocked=blocked) == OwnFile(b"TOKEN=1")


def test_the_users_own_folders(tmp_path: Path) -> None:
    home = str(tmp_path)
    assert user_folders(home) == (f"{home}/.legato", f"{home}/.config/legato")


def test_a_loop_of_links_is_refused(root: Path) -> None:
    (root / "LEGATO.md").symlink_to("other.md")
    (root / "other.md").symlink_to("LEGATO.md")
    assert refusal(root / "LEGATO.md", root) == "is a loop of symlinks that reaches no file"


def test_a_file_swapped_for_a_link_after_the_check_is_not_read(
    root: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "id_rsa").write_text("key")
    guide = root / "LEGATO.md"
    guide.write_text("guide")
    opening = door.open_read

    def swapped_first(target: door.Target, purpose: door.Purpose = "read") -> BinaryIO:
        guide.unlink()  # as a command running alongside could, between the check and the open
        guide.symlink_to(tmp_path / "id_rsa")
        return opening(target, purpose)

    monkeypatch.setattr(door, "open_read", swapped_first)
    assert refusal(guide, root) == "became a symlink while it was being opened"


def test_a_name_no_file_can_have_is_refused_saying_so(root: Path) -> None:
    why = refusal(root / ("x" * 300), root)
    assert why.startswith("has no name a file can have: Invalid path: the name 'xxxx")
