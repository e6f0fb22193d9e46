"""``ListFiles``: the project's files ``@path`` completion may offer, from the one door to them.

The walk is Glob's (tool folders and what .gitignore excludes are left out) and every file it
meets goes to the broker like a walk's: a blocked file, or a symlink to one or out of the
project, is never offered. Nobody is asked: the names go to the person, not the model.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from actors.protocol import ListFiles
from tests.tool_executor.harness import session, with_policy

if TYPE_CHECKING:
    from pathlib import Path


def plant(root: Path) -> None:
    outside = root.parent / "outside"
    outside.mkdir()
    (outside / "id_rsa").write_text("key\n")
    for name in (".env", "secrets/token.txt", "a/b/secrets/x", "src/app.py", "README.md",
                 ".git/HEAD", "node_modules/x.js", "build/out.o", "src/z.py"):  # fmt: skip
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("x\n")
    (root / ".gitignore").write_text("build/\n")
    (root / "src" / "e.txt").symlink_to("../.env")
    (root / "notes.md").symlink_to(outside / "id_rsa")


async def test_blocked_files_and_links_out_are_never_offered_and_nobody_is_asked(
    tmp_path: Path,
) -> None:
    root = tmp_path / "project"
    root.mkdir()
    plant(root)
    async with with_policy(root, mode="ask", answers=[], blockedPaths=[".env", "secrets/"]) as s:
        files = await s.executor.address.ask(ListFiles(limit=100))
        assert s.person is not None and s.person.asked == []
    # In walk order (depth first, by name), relative to the project root.
    assert files == (".gitignore", ".legato/settings.json", "README.md", "src/app.py", "src/z.py")


async def test_tool_folders_and_ignored_files_are_left_out_and_the_limit_holds(
    tmp_path: Path,
) -> None:
    root = tmp_path / "project"
    root.mkdir()
    plant(root)
    async with session(root) as s:  # a broker that lets every file be read
        everything = await s.executor.address.ask(ListFiles(limit=100))
        first_two = await s.executor.address.ask(ListFiles(limit=2))
    assert everything == (
        ".env",
        ".gitignore",
        "README.md",
        "a/b/secrets/x",
        "secrets/token.txt",
        "src/app.py",
        "src/z.py",
    )  # fmt: skip (symlinks are not listed)
    assert first_two == everything[:2]
