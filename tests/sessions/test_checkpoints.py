"""Checkpoints record files before a batch changes them; restoring puts every one back."""

from __future__ import annotations

from typing import TYPE_CHECKING

import anyio

from actors.conductor import checkpoints
from actors.protocol import ToolCall

if TYPE_CHECKING:
    from pathlib import Path


async def test_restore_puts_back_edited_files_and_removes_created_ones(tmp_path: Path) -> None:
    edited = anyio.Path(tmp_path / "a.py")
    await edited.write_text("original\n")
    await edited.chmod(0o755)
    created = anyio.Path(tmp_path / "new" / "b.py")
    batch = (
        ToolCall("1", "Edit", {"file_path": str(edited)}),
        ToolCall("2", "Write", {"file_path": "new/b.py"}),  # relative: under the project
        ToolCall("3", "Bash", {"command": "make clean\nmake"}),
        ToolCall("4", "Read", {"file_path": str(tmp_path / "c.py")}),
    )
    paths = checkpoints.touched_paths(batch, str(tmp_path))
    assert paths == [str(edited), str(created)]
    taken = await checkpoints.capture(3, paths, checkpoints.shell_commands(batch))
    assert taken is not None
    await edited.write_text("changed\n")
    await created.parent.mkdir()
    await created.write_text("new\n")
    said = await checkpoints.restore(taken)
    assert await edited.read_text() == "original\n"
    assert (await edited.stat()).st_mode & 0o777 == 0o755
    assert not await created.exists()
    assert said.splitlines() == [
        f"Restored {edited}",
        f"Removed {created} (the prompt created it)",
        "Not undone: shell commands ran in that prompt (`make clean`); /undo does not cover "
        "what they changed.",
    ]


async def test_a_batch_that_changes_nothing_records_nothing() -> None:
    assert await checkpoints.capture(1, [], []) is None
