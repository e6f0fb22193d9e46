"""``legato config`` lists the instruction files a session would load, in order, and the
imports from outside the project that wait for approval."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tests.config.conftest import Setup


def test_config_lists_the_files_in_order_and_the_imports_waiting(setup: Setup) -> None:
    (setup.project / "AGENTS.md").write_text("a" * 40 + "\n")
    (setup.project / "LEGATO.md").write_text("@notes.md\n@~/mine.md\n")
    (setup.project / "notes.md").write_text("n\n")
    (setup.home / "mine.md").write_text("private\n")
    done = setup.legato("config", str(setup.project), "--json")
    assert done.returncode == 0, done.stderr
    listed = json.loads(done.stdout)["instructionFiles"]
    legato_md = str(setup.project / "LEGATO.md")
    assert listed == {
        "loaded": [
            {"path": str(setup.project / "AGENTS.md"), "level": "project", "tokens": 11},
            {
                "path": str(setup.project / "notes.md"),
                "level": "project",
                "tokens": 1,
                "importedBy": legato_md,
                "line": 1,
            },
            {"path": legato_md, "level": "project", "tokens": 6},
        ],
        "awaitingApproval": [
            {"importer": legato_md, "line": 2, "path": str(setup.home.resolve() / "mine.md")}
        ],
    }
    table = setup.legato("config", str(setup.project))
    assert table.returncode == 0, table.stderr
    lines = table.stdout.split("Instruction files", 1)[1].split("Credentials")[0].splitlines()
    assert "1 import(s) from outside the project wait for 'legato trust'" in lines[0]
    assert [line.split()[0] for line in lines[1:4]] == ["AGENTS.md", "notes.md", "LEGATO.md"]
    assert lines[4] == "  not loaded until approved: LEGATO.md:2 imports ~/mine.md"
    assert "LEGATO.md:2: the import of" in table.stderr


def test_config_says_none_without_files(setup: Setup) -> None:
    done = setup.legato("config", str(setup.project))
    assert done.returncode == 0, done.stderr
    assert "  none (LEGATO.md, CLAUDE.md" in done.stdout.split("Instruction files", 1)[1]
