"""The instruction files loaded at start: which, in what order, and what their imports bring."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import pytest

from actors.instructions import estimate_tokens
from tests.instructions.conftest import shown

if TYPE_CHECKING:
    from tests.instructions.conftest import Tree


def test_every_root_file_is_loaded_lowest_precedence_first(tree: Tree) -> None:
    for name in ("LEGATO.md", "CLAUDE.md", "CLAUDE.local.md", "AGENTS.md", ".claude/CLAUDE.md"):
        tree.write(name, f"from {name}\n")
    tree.write(".claude/CLAUDE.md", "user's claude\n", at=tree.home)
    tree.write(".legato/LEGATO.md", "user's legato\n", at=tree.home)
    context = tree.load()
    assert [(g.level, g.text) for g in context.guides] == [
        ("user", "user's claude\n"),
        ("user", "user's legato\n"),
        ("project", "from AGENTS.md\n"),
        ("project", "from CLAUDE.md\n"),
        ("project", "from .claude/CLAUDE.md\n"),
        ("local", "from CLAUDE.local.md\n"),
        ("project", "from LEGATO.md\n"),
    ]
    assert context.warnings == ()


def test_tokens_are_estimated_at_four_characters_each(tree: Tree) -> None:
    tree.write("CLAUDE.md", "x" * 4001)
    (guide,) = tree.load().guides
    assert guide.tokens == estimate_tokens("x" * 4001) == 1001


def test_imports_come_before_the_file_that_imports_them(tree: Tree) -> None:
    tree.write("CLAUDE.md", "@AGENTS.md\n\n## Ours\nSee @docs/style.md for style.\n")
    tree.write("AGENTS.md", "shared rules\n")
    tree.write("docs/style.md", "tabs\n")
    context = tree.load()
    # AGENTS.md is loaded once, where the import puts it (before CLAUDE.md), not twice.
    assert shown(context, tree.root) == ["AGENTS.md", "docs/style.md", "CLAUDE.md"]
    imported = {g.path: (g.imported_by, g.line) for g in context.guides if g.imported_by}
    claude = str(tree.root / "CLAUDE.md")
    assert imported == {str(tree.root / "docs/style.md"): (claude, 4)}
    assert context.warnings == ()


def test_an_import_is_relative_to_the_importing_file(tree: Tree) -> None:
    tree.write("LEGATO.md", "@docs/guide.md\n")
    tree.write("docs/guide.md", "see @api.md and @../top.md\n")
    tree.write("docs/api.md", "api\n")
    tree.write("top.md", "top\n")
    assert shown(tree.load(), tree.root) == ["docs/api.md", "top.md", "docs/guide.md", "LEGATO.md"]


def test_code_spans_blocks_and_comments_import_nothing(tree: Tree) -> None:
    for name in ("a.md", "b.md", "c.md", "d.md"):
        tree.write(name, f"{name}\n")
    tree.write(
        "CLAUDE.md",
        "Mention `@a.md` only.\n```\n@b.md\n```\n<!-- @c.md -->\nmail me@d.md\n",
    )
    assert shown(tree.load(), tree.root) == ["CLAUDE.md"]


def test_a_missing_import_is_a_warning_naming_file_and_line(tree: Tree) -> None:
    tree.write("CLAUDE.md", "# Rules\n\nRead @docs/gone.md first. Ask @alice.\n")
    context = tree.load()
    assert shown(context, tree.root) == ["CLAUDE.md"]
    # A word that is no path (a mention, a decorator) is not a broken import.
    assert context.warnings == (
        f"{tree.root / 'CLAUDE.md'}:3: @docs/gone.md was not imported: there is no such file. "
        "Fix the path",
    )


def test_imports_nest_five_deep_and_no_deeper(tree: Tree) -> None:
    tree.write("CLAUDE.md", "@n1.md\n")
    for n in range(1, 50):
        tree.write(f"n{n}.md", f"level {n}\n@n{n + 1}.md\n")
    context = tree.load()
    assert shown(context, tree.root) == [*(f"n{n}.md" for n in range(5, 0, -1)), "CLAUDE.md"]
    (warning,) = context.warnings
    assert warning.startswith(f"{tree.root / 'n5.md'}:2: @n6.md was not imported: imports nest")


def test_a_cycle_loads_each_file_once(tree: Tree) -> None:
    tree.write("CLAUDE.md", "@a.md\n")
    tree.write("a.md", "@b.md\n")
    tree.write("b.md", "@a.md\n@CLAUDE.md\n")
    context = tree.load()
    assert shown(context, tree.root) == ["b.md", "a.md", "CLAUDE.md"]
    assert context.warnings == ()


def test_a_blocked_path_is_never_imported(tree: Tree) -> None:
    tree.write(".legato/settings.json", '{"blockedPaths": ["secrets/**"]}')
    tree.write("secrets/keys.md", "KEY=1\n")
    tree.write("notes.md", "fine\n")
    os.symlink("secrets/keys.md", tree.root / "innocent.md")
    tree.write("CLAUDE.md", "@secrets/keys.md\n@innocent.md\n@notes.md\n")
    context = tree.load()
    assert shown(context, tree.root) == ["notes.md", "CLAUDE.md"]
    assert not any("KEY=1" in g.text for g in context.guides)
    blocked = [w for w in context.warnings if "blockedPaths entry 'secrets/**' blocks it" in w]
    assert [w.split(":")[1] for w in blocked] == ["1", "2"]


@pytest.mark.parametrize("settings", [".legato/settings.json", ".claude/settings.json"])
def test_a_deny_read_rule_keeps_a_file_out_as_blockedpaths_does(tree: Tree, settings: str) -> None:
    # Narrowing, so applied untrusted: a deny rule from either spelling holds for imports.
    tree.write(settings, '{"permissions": {"deny": ["Read(./secrets/**)"]}}')
    tree.write("secrets/keys.md", "KEY=1\n")
    tree.write("notes.md", "fine\n")
    os.symlink("secrets/keys.md", tree.root / "innocent.md")
    tree.write("CLAUDE.md", "@secrets/keys.md\n@innocent.md\n@notes.md\n")
    context = tree.load()
    assert shown(context, tree.root) == ["notes.md", "CLAUDE.md"]
    assert not any("KEY=1" in g.text for g in context.guides)
    rule = f"the deny rule 'Read(./secrets/**)' at {tree.root / settings}:1 blocks it"
    blocked = [w for w in context.warnings if rule in w]
    assert [w.split(":")[1] for w in blocked] == ["1", "2"]


def test_the_users_own_files_import_from_home_without_asking(tree: Tree) -> None:
    tree.write("notes/style.md", "my style\n", at=tree.home)
    tree.write(".claude/CLAUDE.md", "@~/notes/style.md\n", at=tree.home)
    context = tree.load()
    assert [g.text for g in context.guides] == ["my style\n", "@~/notes/style.md\n"]
    assert context.import_requests == ()


def test_the_users_file_may_be_a_link_into_a_dotfiles_folder_not_to_a_key(tree: Tree) -> None:
    dotfiles = tree.write("dotfiles/CLAUDE.md", "from dotfiles\n", at=tree.home)
    (tree.home / ".claude").mkdir()
    os.symlink(dotfiles, tree.home / ".claude" / "CLAUDE.md")
    assert [g.text for g in tree.load().guides] == ["from dotfiles\n"]
    key = tree.write(".ssh/id_ed25519", "KEY\n", at=tree.home)
    (tree.home / ".legato").mkdir()
    os.symlink(key, tree.home / ".legato" / "LEGATO.md")
    context = tree.load()
    assert [g.text for g in context.guides] == ["from dotfiles\n"]
    assert any("where credentials live" in w for w in context.warnings)


def test_a_project_file_linked_out_of_the_project_is_not_read(tree: Tree) -> None:
    outside = tree.write("notes.md", "outside\n", at=tree.home)
    os.symlink(outside, tree.root / "CLAUDE.md")
    context = tree.load()
    assert context.guides == ()
    assert any("CLAUDE.md was not read: it leads to" in w for w in context.warnings)
