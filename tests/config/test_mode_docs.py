"""docs/configuration.md's permission modes say that ``--permission-mode`` takes every value the
flag accepts: the prose, not only a table row (a row once said ``plan`` was for files and
Shift+Tab only, while the flag took it)."""

from __future__ import annotations

from pathlib import Path

from frontends.startup.flags import PERMISSION_MODES

DOC = Path(__file__).resolve().parents[2] / "docs" / "configuration.md"


def test_the_prose_names_every_value_the_flag_takes() -> None:
    section = DOC.read_text().split("## Permission modes", 1)[1].split("\n## ", 1)[0]
    prose = "\n".join(line for line in section.splitlines() if not line.startswith("|"))
    assert "--permission-mode" in prose
    assert [mode for mode in PERMISSION_MODES if f"`{mode}`" not in prose] == []
    assert "only)" not in section
