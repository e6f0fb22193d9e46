"""docs/sdk.md's table of ``ClaudeAgentOptions`` names only options the installed SDK has: an
option it lists that the SDK rejects (a ``TypeError``) would send a reader to a dead end."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

from claude_agent_sdk import ClaudeAgentOptions

DOC = Path(__file__).resolve().parents[2] / "docs" / "sdk.md"


def documented_options() -> list[str]:
    """The first column's names of the table headed ``| `ClaudeAgentOptions` | in Legato |``."""
    lines = DOC.read_text().splitlines()
    start = lines.index("| `ClaudeAgentOptions` | in Legato |") + 2
    names: list[str] = []
    for line in lines[start:]:
        if not line.startswith("|"):
            break
        first = line.split("|")[1]
        names += re.findall(r"`([a-z_]+)`", first)
    return names


def test_every_documented_option_is_one_the_sdk_takes() -> None:
    fields = {field.name for field in dataclasses.fields(ClaudeAgentOptions)}
    names = documented_options()
    assert "system_prompt" in names and "cwd" in names  # the table was found and read
    assert [name for name in names if name not in fields] == []
