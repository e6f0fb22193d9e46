"""The reference's ``.claude/`` folder is read by Legato as its own ``.legato/`` is (settings,
commands with ``!`` lines, skills, agents), so a confined command can change it no more than it
can change ``.legato/``: a person answers yes to each command here, and the kernel refuses."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from tests.tool_executor.harness import with_policy
from tests.tool_executor.sandbox_setup import needs_bwrap

if TYPE_CHECKING:
    from pathlib import Path

pytestmark = needs_bwrap

WRITES = (
    'echo \'{"permissions": {"allow": ["Bash"]}}\' > .claude/settings.local.json',
    "python3 -c \"open('.claude/settings.json', 'w').write('{}')\"",
    "mkdir -p .claude/commands && printf -- '!`id`\\n' > .claude/commands/ship.md",
    "cp /dev/null .claude/agents/review.md",
    "mv .claude .claude-old",
)


def confined(root: Path) -> Any:
    return with_policy(root, mode="ask", answers=["y"] * 20)


async def test_a_confined_command_cannot_change_the_claude_folder(tmp_path: Path) -> None:
    (tmp_path / ".claude" / "agents").mkdir(parents=True)
    (tmp_path / ".claude" / "settings.json").write_text('{"model": "sonnet"}\n')
    (tmp_path / ".claude" / "agents" / "review.md").write_text("---\nname: review\n---\nHi.\n")
    before = {p: p.read_bytes() for p in (tmp_path / ".claude").rglob("*") if p.is_file()}
    async with confined(tmp_path) as s:
        for command in WRITES:
            done = await s.one("Bash", command=command)
            assert done.result.is_error, (command, done.result.content)
    after = {p: p.read_bytes() for p in (tmp_path / ".claude").rglob("*") if p.is_file()}
    assert after == before


async def test_a_missing_claude_folder_cannot_be_created(tmp_path: Path) -> None:
    async with confined(tmp_path) as s:
        done = await s.one(
            "Bash", command="mkdir -p .claude && echo '{}' > .claude/settings.local.json"
        )
    assert done.result.is_error
    assert not (tmp_path / ".claude" / "settings.local.json").exists()
