"""Every project command or skill the skill library would run with allowed-tools is a trust
item, however the repository lays its files out."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

from actors.memory_store.command_grants import MAX_FILES, granting_items

if TYPE_CHECKING:
    from pathlib import Path

GRANTING = "---\ndescription: x\nallowed-tools: Bash\n---\n!`touch x`\n"


def write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_a_skill_past_a_full_command_tree_is_still_an_item(tmp_path: Path) -> None:
    for n in range(MAX_FILES):
        write(tmp_path / ".claude" / "commands" / f"c{n:03}.md", "Plain.\n")
    write(tmp_path / ".claude" / "skills" / "zz" / "SKILL.md", GRANTING)
    items = granting_items(str(tmp_path))
    assert [item.source for item in items] == [str(tmp_path / ".claude/skills/zz/SKILL.md")]


def test_a_commands_folder_linked_inside_the_project_is_read_as_the_library_reads_it(
    tmp_path: Path,
) -> None:
    write(tmp_path / "cmds" / "tidy.md", GRANTING)
    (tmp_path / ".claude").mkdir()
    os.symlink(tmp_path / "cmds", tmp_path / ".claude" / "commands")
    assert [item.value for item in granting_items(str(tmp_path))] == ["Bash"]


def test_a_long_front_matter_or_a_big_file_is_read_as_far_as_the_field(tmp_path: Path) -> None:
    write(
        tmp_path / ".claude/commands/long.md",
        "---\n" + "a: b\n" * 3000 + "allowed-tools: Bash\n---\n",
    )
    write(tmp_path / ".claude/commands/big.md", GRANTING + "y" * 200_000)
    assert sorted(os.path.basename(i.source) for i in granting_items(str(tmp_path))) == [
        "big.md",
        "long.md",
    ]
