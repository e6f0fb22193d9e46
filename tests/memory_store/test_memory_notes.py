"""``#text`` saved to an instruction or memory file: appended as a bullet, written whole, and
never through what a hostile repository put in its place (a link out, a folder, a FIFO, a
second name, a read-only file), with a message naming the file."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

from actors.errors import LegatoError, UsageError
from actors.memory_store.memory_notes import append, bullet, target_path
from actors.places import memory_dir


@pytest.fixture
def places(tmp_path: Path) -> tuple[Path, Path]:
    root, home = tmp_path / "project", tmp_path / "home"
    root.mkdir()
    home.mkdir()
    return root.resolve(), home.resolve()


def test_a_new_guide_is_made_and_an_old_one_appended_to(places: tuple[Path, Path]) -> None:
    root, home = places
    added = append("project", str(root), str(home), "run tests with make check")
    assert added.path == str(root / "LEGATO.md") and added.created
    (root / "CLAUDE.local.md").write_text("# Mine\nno newline at the end")
    again = append("local", str(root), str(home), "  use tabs\nnot spaces  ")
    assert not again.created
    assert (root / "LEGATO.md").read_text() == "- run tests with make check\n"
    assert (root / "CLAUDE.local.md").read_text() == (
        "# Mine\nno newline at the end\n- use tabs\n  not spaces\n"
    )


def test_memory_and_the_user_guide_live_in_the_home_folder(places: tuple[Path, Path]) -> None:
    root, home = places
    memory = append("memory", str(root), str(home), "prefers short answers")
    assert memory.path == os.path.join(memory_dir(str(root), str(home)), "MEMORY.md")
    assert Path(memory.path).read_text() == "- prefers short answers\n"
    assert stat.S_IMODE(os.stat(os.path.dirname(memory.path)).st_mode) == 0o700
    user = append("user", str(root), str(home), "British spelling")
    assert user.path == str(home / ".legato" / "LEGATO.md")
    assert (home / ".legato" / "LEGATO.md").read_text() == "- British spelling\n"


def test_control_characters_are_left_out() -> None:
    assert bullet("say \x1b]0;owned\x07hi\x9b") == "- say ]0;ownedhi\n"


def test_nothing_to_remember_is_a_usage_error(places: tuple[Path, Path]) -> None:
    root, home = places
    with pytest.raises(UsageError, match="nothing to remember"):
        append("project", str(root), str(home), "   ")


def refused(root: Path, home: Path, match: str) -> None:
    with pytest.raises(LegatoError, match=match) as caught:
        append("project", str(root), str(home), "x")
    assert caught.value.message.startswith(f"{root / 'LEGATO.md'} was not written")
    assert caught.value.remedy


def test_a_link_out_of_the_project_is_refused(places: tuple[Path, Path]) -> None:
    root, home = places
    bashrc = home / ".bashrc"
    bashrc.write_text("export PATH\n")
    (root / "LEGATO.md").symlink_to(bashrc)
    refused(root, home, "outside")
    assert bashrc.read_text() == "export PATH\n"
    assert (root / "LEGATO.md").is_symlink()


def test_a_dangling_link_out_is_refused_and_makes_nothing(places: tuple[Path, Path]) -> None:
    root, home = places
    (root / "LEGATO.md").symlink_to(home / ".profile")
    refused(root, home, "outside")
    assert not (home / ".profile").exists()


def test_a_link_inside_the_project_is_written_through(places: tuple[Path, Path]) -> None:
    root, home = places
    (root / "docs").mkdir()
    (root / "docs" / "guide.md").write_text("# Guide\n")
    (root / "LEGATO.md").symlink_to("docs/guide.md")
    append("project", str(root), str(home), "kept")
    assert (root / "docs" / "guide.md").read_text() == "# Guide\n- kept\n"
    assert (root / "LEGATO.md").is_symlink()


def test_a_folder_a_fifo_and_a_second_name_are_refused(places: tuple[Path, Path]) -> None:
    root, home = places
    guide = root / "LEGATO.md"
    guide.mkdir()
    refused(root, home, "directory")
    guide.rmdir()
    os.mkfifo(guide)
    refused(root, home, "not a regular file|FIFO")
    guide.unlink()
    elsewhere = home / "notes.md"
    elsewhere.write_text("mine\n")
    os.link(elsewhere, guide)
    refused(root, home, "hard links")
    assert elsewhere.read_text() == "mine\n"


def test_a_read_only_guide_stays_as_it_is(places: tuple[Path, Path]) -> None:
    root, home = places
    guide = root / "LEGATO.md"
    guide.write_text("# Fixed\n")
    guide.chmod(0o444)
    refused(root, home, "read-only")
    assert guide.read_text() == "# Fixed\n"


def test_the_user_guide_may_not_lead_to_where_credentials_live(
    places: tuple[Path, Path],
) -> None:
    root, home = places
    (home / ".ssh").mkdir()
    (home / ".ssh" / "config").write_text("Host *\n")
    (home / ".legato").mkdir()
    (home / ".legato" / "LEGATO.md").symlink_to(home / ".ssh" / "config")
    with pytest.raises(LegatoError, match="credentials"):
        append("user", str(root), str(home), "x")
    assert (home / ".ssh" / "config").read_text() == "Host *\n"


def test_each_target_names_a_file_the_session_loads(places: tuple[Path, Path]) -> None:
    from actors.instructions.loading import PROJECT_FILES, user_files

    root, home = places
    loaded = {os.path.join(str(root), name) for name, _ in PROJECT_FILES}
    assert target_path("project", str(root), str(home)) in loaded
    assert target_path("local", str(root), str(home)) in loaded
    assert target_path("user", str(root), str(home)) in user_files(str(home))


def test_a_new_personal_guide_is_kept_out_of_git(places: tuple[Path, Path]) -> None:
    import subprocess

    root, home = places
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    added = append("local", str(root), str(home), "mine alone")
    assert added.excluded == str(root / ".git" / "info" / "exclude")
    assert "/CLAUDE.local.md\n" in (root / ".git" / "info" / "exclude").read_text()
    status = subprocess.run(
        ["git", "-C", str(root), "status", "--porcelain"], capture_output=True, text=True
    )
    assert status.stdout == ""
    assert append("local", str(root), str(home), "again").excluded is None
