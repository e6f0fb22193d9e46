"""Checkpoints record files before a batch changes them; restoring puts every one back.

The tool executor does the reading and writing (the one door to project files): what a call
will change comes from the tool's own declaration, not from the conductor's guess.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import anyio

from actors.conductor import checkpoints
from actors.protocol import (
    CaptureCheckpoint,
    Changes,
    Checkpoint,
    FileBefore,
    NotKept,
    RestoreCheckpoint,
    ToolCall,
)
from tests.tool_executor.harness import session, with_policy

if TYPE_CHECKING:
    from pathlib import Path


def writes(*paths: str) -> tuple[ToolCall, ...]:
    return tuple(
        ToolCall(f"w{n}", "Write", {"file_path": path, "content": "new\n"})
        for n, path in enumerate(paths)
    )


async def test_restore_puts_back_edited_files_and_removes_created_ones(tmp_path: Path) -> None:
    edited = tmp_path / "a.py"
    edited.write_text("original\n")
    edited.chmod(0o755)
    created = tmp_path / "new" / "b.py"
    batch = (
        ToolCall("1", "Edit", {"file_path": str(edited), "old_string": "o", "new_string": "O"}),
        ToolCall("2", "Write", {"file_path": "new/b.py", "content": "new\n"}),  # relative
        ToolCall("3", "Bash", {"command": "make clean\nmake"}),
        ToolCall("4", "Read", {"file_path": str(tmp_path / "c.py")}),
    )
    async with session(tmp_path) as s:
        tools = s.executor.address
        changes = await tools.ask(CaptureCheckpoint(calls=batch))
        files = (
            FileBefore(str(edited), b"original\n", str(edited), order=1),
            FileBefore(str(created), None, str(created), order=1),
        )
        # The command's batch is watched: the project was recorded, to compare after it.
        assert changes == Changes(
            paths=(str(edited), str(created)),
            commands=("make clean\nmake",),
            files=files,
            watch=1,
        )
        edited.write_text("changed\n")
        created.parent.mkdir()
        created.write_text("new\n")
        taken = Checkpoint(prompt=3, files=changes.files, commands=changes.commands)
        said = await checkpoints.restore(tools, taken)
        assert s.broker.requests == []  # /undo is the person's own command
    assert edited.read_text() == "original\n"
    assert edited.stat().st_mode & 0o777 == 0o755
    assert not created.exists()
    assert said.splitlines() == [
        f"Restored {edited}",
        f"Removed {created} (the prompt created it)",
        "Shell commands ran in that prompt (`make clean`): what they changed among the "
        "project's files is put back where the checkpoint saw it; what they changed outside "
        "the project, in .git or in ignored folders such as node_modules stays.",
    ]


async def test_a_batch_that_changes_nothing_lists_nothing(tmp_path: Path) -> None:
    batch = (
        ToolCall("1", "Read", {"file_path": "a.py"}),
        ToolCall("2", "Glob", {"pattern": "*.py"}),
        ToolCall("3", "Write", {"file_path": "b.py"}),  # no content: it will fail, unchanged
        ToolCall("4", "Delete", {"file_path": "c.py"}),  # no such tool
    )
    async with session(tmp_path) as s:
        assert await s.executor.address.ask(CaptureCheckpoint(calls=batch)) == Changes()
        assert s.broker.requests == []


async def test_files_the_prompt_already_holds_are_not_read_again(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("a\n")
    (tmp_path / "b.py").write_text("b\n")
    a, b = str(tmp_path / "a.py"), str(tmp_path / "b.py")
    async with session(tmp_path) as s:
        changes = await s.executor.address.ask(CaptureCheckpoint(calls=writes(a, b), taken=(a,)))
    # Both are changed (the ledger hears of both); only the one not kept yet is read.
    assert changes == Changes(paths=(a, b), files=(FileBefore(b, b"b\n", b, order=1),))


async def test_system_paths_and_folders_are_not_captured_nor_restored(tmp_path: Path) -> None:
    (tmp_path / "folder").mkdir()
    async with session(tmp_path) as s:
        tools = s.executor.address
        calls = writes("/proc/self/environ", str(tmp_path / "folder"))
        assert (await tools.ask(CaptureCheckpoint(calls=calls))).files == ()
        said = await tools.ask(RestoreCheckpoint(files=(FileBefore("/dev/null", b"x"),)))
    assert said == (
        "Could not restore /dev/null: Legato's file tools do not read or write /proc, /dev or "
        "/sys (/dev/null). Use Bash to look at system files",
    )


async def test_restore_does_not_follow_a_folder_swapped_for_a_symlink(tmp_path: Path) -> None:
    root, outside = tmp_path / "project", tmp_path / "outside"
    (root / "src").mkdir(parents=True)
    (root / "src" / "a.py").write_text("original\n")
    outside.mkdir()
    async with session(root) as s:
        tools = s.executor.address
        calls = writes(str(root / "src" / "a.py"))
        files = (await tools.ask(CaptureCheckpoint(calls=calls))).files
        # A command of the prompt replaces the folder with a symlink to somewhere else.
        (root / "src").rename(root / "old-src")
        (root / "src").symlink_to(outside)
        said = await tools.ask(RestoreCheckpoint(files=files))
    assert list(outside.iterdir()) == []
    assert said == (
        f"Could not restore {root / 'src' / 'a.py'}: it now leads to {outside / 'a.py'}, not "
        f"to {root / 'src' / 'a.py'} as it did before that prompt; nothing was written",
    )


async def test_a_blocked_file_is_never_copied_into_a_checkpoint(tmp_path: Path) -> None:
    root = tmp_path / "project"
    root.mkdir()
    (root / ".env").write_text("TOKEN=secret\n")
    (root / "a.py").write_text("a\n")
    async with with_policy(root, mode="auto", blockedPaths=[".env"]) as s:
        calls = writes(str(root / ".env"), str(root / "a.py"))
        files = (await s.executor.address.ask(CaptureCheckpoint(calls=calls))).files
    assert files == (FileBefore(str(root / "a.py"), b"a\n", str(root / "a.py"), order=1),)


async def test_a_file_too_large_to_copy_is_named_not_copied(tmp_path: Path) -> None:
    big = tmp_path / "data.csv"
    big.write_text("")
    os.truncate(big, 200 * 2**20)  # sparse: 200 MB that take no room, and are never read
    small = tmp_path / "a.py"
    small.write_text("a\n")
    async with session(tmp_path) as s:
        tools = s.executor.address
        changes = await tools.ask(CaptureCheckpoint(calls=writes(str(big), str(small))))
        assert changes.files == (FileBefore(str(small), b"a\n", str(small), order=1),)
        assert changes.missed == (NotKept(str(big), "it is larger than 2 MB"),)
        # Past the room the prompt has left, a file is named too.
        (tmp_path / "b.py").write_text("bb\n")
        tight = await tools.ask(CaptureCheckpoint(calls=writes(str(tmp_path / "b.py")), room=2))
        assert tight.files == ()
        big.write_text("replaced\n")
        taken = Checkpoint(prompt=1, files=changes.files, missed=changes.missed)
        said = await checkpoints.restore(tools, taken)
    assert said.splitlines() == [
        "The files that prompt's tools were to change are as they were before it.",
        f"Could not restore {big}: it is larger than 2 MB, so no copy was kept.",
    ]
    assert [m.why for m in tight.missed] == [
        "the copies kept for that prompt reached their limit (0 KB left)"
    ]


async def test_a_command_entry_outside_the_project_is_not_restored(tmp_path: Path) -> None:
    root, outside = tmp_path / "project", tmp_path / "outside.txt"
    root.mkdir()
    outside.write_text("theirs\n")
    # A session file edited by hand (or by a command) to point a command's entry elsewhere.
    entry = FileBefore(str(outside), b"mine\n", str(outside), by="make")
    async with session(root) as s:
        said = await s.executor.address.ask(
            RestoreCheckpoint(files=(entry,), folders=(str(tmp_path),))
        )
    assert outside.read_text() == "theirs\n"
    assert await anyio.Path(tmp_path).is_dir()  # not a folder of the project: kept
    assert said == (f"Could not restore {outside}: it is outside the project",)
