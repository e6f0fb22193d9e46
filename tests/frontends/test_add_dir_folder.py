"""``/add-dir``'s reading of what the person typed, below the session: the real folder it names,
and each refusal with the value it names (frontends/interactive/add_dir.py)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import pytest

from actors.errors import UsageError
from frontends.interactive.add_dir import folder_to_add

if TYPE_CHECKING:
    from pathlib import Path


@pytest.fixture
def places(tmp_path: Path) -> tuple[str, str]:
    home = tmp_path / "home" / "me"
    root = home / "work" / "project"
    root.mkdir(parents=True)
    (home / "shared").mkdir()
    (root / "link").symlink_to(home / "shared")
    return str(root.resolve()), str(home.resolve())


def test_relative_paths_start_at_the_root_and_tilde_at_home(places: tuple[str, str]) -> None:
    root, home = places
    shared = os.path.join(home, "shared")
    assert folder_to_add("../../shared", root, home) == shared
    assert folder_to_add("~/shared", root, home) == shared
    assert folder_to_add(f"  {shared}  ", root, home) == shared


def test_a_symlink_adds_the_real_folder(places: tuple[str, str]) -> None:
    root, home = places
    assert folder_to_add("link", root, home) == os.path.join(home, "shared")


@pytest.mark.parametrize(
    ("typed", "said"),
    [
        ("", "/add-dir needs a folder"),
        ("nowhere", "/add-dir nowhere: no such folder"),
        ("/", "the whole file system, too broad"),
        ("~", "that is your home folder, too broad"),
        ("~/..", "a folder that holds your home folder, too broad"),
        ("~/shared/\x1b[31mred", "/add-dir ~/shared/\\x1b[31mred: no such folder"),
    ],
)
def test_what_it_refuses_is_named_with_a_remedy(
    places: tuple[str, str], typed: str, said: str
) -> None:
    root, home = places
    with pytest.raises(UsageError) as refused:
        folder_to_add(typed, root, home)
    assert said in refused.value.describe()
    assert refused.value.remedy


@pytest.mark.parametrize(
    "typed", ["~/.legato", "~/.legato/projects", "~/.config", "~/.config/legato"]
)
def test_legatos_own_folders_are_not_opened_to_the_tools(
    places: tuple[str, str], typed: str
) -> None:
    root, home = places
    for own in (".legato/projects", ".config/legato"):
        os.makedirs(os.path.join(home, own), exist_ok=True)
    with pytest.raises(UsageError, match="would open Legato's own folder"):
        folder_to_add(typed, root, home)
    # Through a link too: the real folder is what is judged.
    os.symlink(os.path.join(home, ".legato"), os.path.join(root, "records"))
    with pytest.raises(UsageError, match="would open Legato's own folder"):
        folder_to_add("records", root, home)


def test_a_file_is_not_a_folder(places: tuple[str, str]) -> None:
    root, home = places
    with open(os.path.join(root, "notes.txt"), "w") as file:
        file.write("x")
    with pytest.raises(UsageError, match="is a file, not a folder"):
        folder_to_add("notes.txt", root, home)


def test_a_name_with_control_characters_is_shown_escaped(places: tuple[str, str]) -> None:
    # A cloned project's file named to rewrite the terminal: shown, never sent as it is.
    root, home = places
    name = "x\x1b]0;owned\x07"
    with open(os.path.join(root, name), "w") as file:
        file.write("x")
    with pytest.raises(UsageError) as refused:
        folder_to_add(name, root, home)
    said = refused.value.describe()
    assert "\x1b" not in said and "\x07" not in said
    assert "is a file, not a folder" in said
