"""A sub-folder's files, as the conductor finds them for a call: which folders, once, and the
same guards as the files at start (real files; the session's use is in test_session.py)."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from actors.instructions import NestedGuides

if TYPE_CHECKING:
    from tests.instructions.conftest import Tree


def given(guides: NestedGuides, **call: object) -> tuple[list[str], list[str]]:
    """What one call's input is given: (the files' texts, the warnings)."""
    warnings: list[str] = []
    files = guides.load(guides.folders([call]), warnings)
    return [file.text for file in files], warnings


def test_only_folders_below_the_root_count_and_each_once(tree: Tree) -> None:
    tree.write("CLAUDE.md", "root\n")
    tree.write("a/CLAUDE.md", "a\n")
    tree.write("a/b/AGENTS.md", "b agents\n")
    tree.write("a/b/LEGATO.md", "b legato\n")
    guides = NestedGuides(str(tree.root), str(tree.home), loaded=[str(tree.root / "CLAUDE.md")])
    assert given(guides, file_path=str(tree.root / "x.py")) == ([], [])
    assert given(guides, file_path="/etc/passwd") == ([], [])
    assert given(guides, file_path=str(tree.root / "a/../../outside/x")) == ([], [])
    assert given(guides, path="a/b") == (["a\n", "b agents\n", "b legato\n"], [])
    assert given(guides, file_path=str(tree.root / "a/b/c.py")) == ([], [])
    guides.forget()  # the conversation was cleared: given again
    assert given(guides, file_path=str(tree.root / "a/c.py")) == (["a\n"], [])


def test_a_sub_folder_linked_out_of_the_project_gives_nothing(tree: Tree) -> None:
    elsewhere = tree.home / "elsewhere"
    tree.write("CLAUDE.md", "OUTSIDE RULES\n", at=elsewhere)
    os.symlink(elsewhere, tree.root / "vendor")
    guides = NestedGuides(str(tree.root), str(tree.home))
    files, warnings = given(guides, file_path=str(tree.root / "vendor/lib.py"))
    assert files == []
    assert "through the symlinked folder" in warnings[0]


def test_a_fifo_or_a_link_to_a_key_in_a_sub_folder_neither_hangs_nor_loads(tree: Tree) -> None:
    (tree.root / "src").mkdir()
    os.mkfifo(tree.root / "src" / "CLAUDE.md")
    key = tree.write(".ssh/id_rsa", "KEY\n", at=tree.home)
    os.symlink(key, tree.root / "src" / "AGENTS.md")
    tree.write("src/LEGATO.md", "@~/.ssh/id_rsa\n@../../../../../../../../etc/hostname\n")
    guides = NestedGuides(str(tree.root), str(tree.home))
    files, warnings = given(guides, file_path=str(tree.root / "src/main.py"))
    assert files == ["@~/.ssh/id_rsa\n@../../../../../../../../etc/hostname\n"]
    said = "\n".join(warnings)
    assert "AGENTS.md was not read: it leads to" in said
    assert "CLAUDE.md was not read: it is a FIFO" in said
    assert "is where credentials live" in said
    assert "a sub-folder's file may not import a file outside the project" in said


def test_a_blocked_sub_folder_file_is_not_given_through_a_link(tree: Tree) -> None:
    tree.write("secret/plan.md", "SECRET PLAN\n")
    (tree.root / "docs").mkdir()
    os.symlink(tree.root / "secret" / "plan.md", tree.root / "docs" / "CLAUDE.md")

    def blocked(path: str) -> str | None:
        return "the blockedPaths entry 'secret/**'" if "/secret/" in path else None

    guides = NestedGuides(str(tree.root), str(tree.home), blocked=blocked)
    files, warnings = given(guides, file_path=str(tree.root / "docs/a.md"))
    assert files == []
    assert "blockedPaths entry 'secret/**'" in warnings[0]
