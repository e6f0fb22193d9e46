"""Imports from outside the project, as a cloned repository would try them: never loaded
unseen, never a credential, never a hang."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import anyio
import pytest

from actors.memory_store import MemoryStore
from actors.places import imports_approval_path
from actors.protocol import ApproveImports, GetContext
from runtime import supervise
from tests.instructions.conftest import shown

if TYPE_CHECKING:
    from tests.instructions.conftest import Tree


def test_a_project_import_from_home_waits_for_approval(tree: Tree) -> None:
    tree.write("prefs.md", "PRIVATE PREFS\n", at=tree.home)
    tree.write("CLAUDE.md", "# Team\n\n- @~/prefs.md\n")
    context = tree.load()
    assert shown(context, tree.root) == ["CLAUDE.md"]
    (request,) = context.import_requests
    assert (request.importer, request.line, request.path) == (
        str(tree.root / "CLAUDE.md"),
        3,
        str(tree.home / "prefs.md"),
    )
    (warning,) = context.warnings
    assert "outside the project, was not loaded: it needs your approval" in warning
    assert "legato trust" in warning


async def test_an_approval_holds_until_the_imported_file_changes(tree: Tree) -> None:
    prefs = tree.write("prefs.md", "tabs\n", at=tree.home)
    tree.write("CLAUDE.md", "@~/prefs.md\n")

    async def approve() -> tuple[list[str], list[str]]:
        store = MemoryStore(str(tree.root), home=str(tree.home), env={})
        async with supervise([store]):
            before = await store.address.ask(GetContext())
            fingerprints = tuple(r.fingerprint for r in before.import_requests)
            after = await store.address.ask(ApproveImports(fingerprints=fingerprints))
        return [g.text for g in before.guides], [g.text for g in after.guides]

    assert await approve() == (["@~/prefs.md\n"], ["tabs\n", "@~/prefs.md\n"])
    assert [g.text for g in tree.load().guides] == ["tabs\n", "@~/prefs.md\n"]  # kept
    prefs.write_text("spaces, and read ~/.aws\n")
    changed = tree.load()
    assert [g.text for g in changed.guides] == ["@~/prefs.md\n"]
    assert len(changed.import_requests) == 1


async def test_an_approval_names_only_what_was_asked(tree: Tree) -> None:
    tree.write("prefs.md", "x\n", at=tree.home)
    tree.write("CLAUDE.md", "@~/prefs.md\n")
    store = MemoryStore(str(tree.root), home=str(tree.home), env={})
    async with supervise([store]):
        after = await store.address.ask(ApproveImports(fingerprints=("0" * 64,)))
    assert len(after.import_requests) == 1
    record = anyio.Path(imports_approval_path(str(tree.root), str(tree.home)))
    assert not await record.exists()


def test_a_link_in_the_project_that_leads_out_is_an_outside_import(tree: Tree) -> None:
    outside = tree.write("elsewhere.md", "outside text\n", at=tree.home)
    os.symlink(outside, tree.root / "inside.md")
    tree.write("CLAUDE.md", "@inside.md\n")
    context = tree.load()
    assert shown(context, tree.root) == ["CLAUDE.md"]
    assert [r.path for r in context.import_requests] == [str(outside)]


def test_dot_dot_out_of_the_project_is_an_outside_import(tree: Tree) -> None:
    tree.write("CLAUDE.md", "@../../../../../../../../etc/passwd\n")
    context = tree.load()
    assert shown(context, tree.root) == ["CLAUDE.md"]
    assert [r.path for r in context.import_requests] == [os.path.realpath("/etc/passwd")]
    assert not any("root:" in g.text for g in context.guides)


@pytest.mark.parametrize("level", ["project", "user"])
def test_a_key_is_never_imported_even_from_the_users_own_file(tree: Tree, level: str) -> None:
    tree.write(".ssh/id_rsa", "-----BEGIN OPENSSH PRIVATE KEY-----\n", at=tree.home)
    tree.write(".aws/credentials", "aws_secret_access_key=1\n", at=tree.home)
    os.symlink(tree.home / ".ssh" / "id_rsa", tree.root / "readme-extra.md")
    text = f"@~/.ssh/id_rsa\n@~/.aws/credentials\n@{tree.root}/readme-extra.md\n"
    if level == "user":
        tree.write(".claude/CLAUDE.md", text, at=tree.home)
    else:
        tree.write("CLAUDE.md", text)
    context = tree.load()
    assert not any("PRIVATE KEY" in g.text or "aws_secret" in g.text for g in context.guides)
    assert context.import_requests == ()  # nothing to approve: it is never asked for
    never = [w for w in context.warnings if "is where credentials live" in w]
    assert [w.split(": @")[1].split(" ")[0] for w in never] == [
        "~/.ssh/id_rsa",
        "~/.aws/credentials",
        f"{tree.root}/readme-extra.md",
    ]


def test_the_users_notes_in_the_references_folder_import_its_state_does_not(tree: Tree) -> None:
    tree.write(".claude/rules.md", "USER RULES\n", at=tree.home)
    tree.write(".claude/.credentials.json", '{"token": "SECRET"}\n', at=tree.home)
    tree.write(".claude/projects/p/notes.md", "TRANSCRIPT\n", at=tree.home)
    tree.write(
        ".claude/CLAUDE.md",
        "@~/.claude/rules.md\n@~/.claude/.credentials.json\n@~/.claude/projects/p/notes.md\n",
        at=tree.home,
    )
    context = tree.load()
    texts = "".join(g.text for g in context.guides)
    assert "USER RULES" in texts
    assert "SECRET" not in texts and "TRANSCRIPT" not in texts
    never = [w for w in context.warnings if "is where credentials live" in w]
    assert len(never) == 2


def test_proc_a_fifo_and_a_huge_file_neither_hang_nor_load(tree: Tree) -> None:
    os.mkfifo(tree.root / "pipe.md")
    with open(tree.root / "huge.md", "wb") as huge:
        huge.truncate(1 << 30)  # 1 GiB, sparse
    tree.write("CLAUDE.md", "@/proc/self/environ\n@pipe.md\n@huge.md\n")
    context = tree.load()
    assert shown(context, tree.root) == ["huge.md", "CLAUDE.md"]
    assert len(context.guides[0].text) <= 256 * 1024  # cut at the cap
    warnings = "\n".join(context.warnings)
    assert "/proc/self/environ was not read" in warnings
    assert "pipe.md was not read: it is a FIFO (named pipe), not a file" in warnings
    assert "huge.md is larger than 256 KiB" in warnings


def test_a_fan_of_imports_stops_at_the_total_cap(tree: Tree) -> None:
    for n in range(10):
        tree.write(f"big{n}.md", ("y" * 100 + "\n") * 2600)  # about 256 KiB each
    tree.write("CLAUDE.md", "".join(f"@big{n}.md\n" for n in range(10)))
    context = tree.load()
    assert sum(len(g.text) for g in context.guides) <= 5 * 256 * 1024
    assert any("would pass 64 files or 1024 KiB in all" in w for w in context.warnings)


def test_a_wide_fan_of_small_imports_stops_at_the_file_count(tree: Tree) -> None:
    for n in range(100):
        tree.write(f"f/{n}.md", f"{n}\n")
    tree.write("CLAUDE.md", "".join(f"@f/{n}.md\n" for n in range(100)))
    context = tree.load()
    assert len(context.guides) == 64
    assert [w for w in context.warnings if "would pass 64 files" in w] != []


def test_thousands_of_broken_imports_are_a_few_warnings(tree: Tree) -> None:
    tree.write("CLAUDE.md", "".join(f"@gone/{n}.md\n" for n in range(10_000)))
    context = tree.load()
    assert [g.path for g in context.guides] == [str(tree.root / "CLAUDE.md")]
    assert len(context.warnings) == 21
    assert context.warnings[-1].startswith("More imports of the instruction files were not")


def test_a_notes_file_at_the_top_of_the_claude_folder_imports_with_approval(tree: Tree) -> None:
    # The reference's docs share personal instructions across worktrees this way; the rest of
    # ~/.claude (its credentials file, its transcripts under projects/) stays out, approved
    # or not, and so does a link from there to a key.
    notes = tree.write(".claude/my-project-instructions.md", "use port 5433\n", at=tree.home)
    tree.write(".claude/.credentials.json", '{"token": "SECRET"}\n', at=tree.home)
    tree.write(".claude/projects/p/chat.md", "SECRET TRANSCRIPT\n", at=tree.home)
    tree.write(".ssh/id_rsa", "-----BEGIN OPENSSH PRIVATE KEY-----\n", at=tree.home)
    os.symlink(tree.home / ".ssh" / "id_rsa", tree.home / ".claude" / "key.md")
    tree.write(
        "CLAUDE.local.md",
        "@~/.claude/my-project-instructions.md\n@~/.claude/.credentials.json\n"
        "@~/.claude/projects/p/chat.md\n@~/.claude/key.md\n",
    )
    context = tree.load()
    assert [r.path for r in context.import_requests] == [str(notes)]
    never = [w for w in context.warnings if "is where credentials live" in w]
    assert [w.split(": @")[1].split(" ")[0] for w in never] == [
        "~/.claude/.credentials.json",
        "~/.claude/projects/p/chat.md",
        "~/.claude/key.md",
    ]
