"""Skills and patterns in a real terminal: ``/help`` lists them apart with their arguments and
names the files that do not load; the advice says what to type in the session."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from frontends.demo.scripted_api import ScriptedServer, text
from tests.interactive.conftest import session_env

if TYPE_CHECKING:
    from pathlib import Path

    from tests.interactive.terminal import Terminal

BROKEN = (
    "---\nname: service-class\ndescription:\nargs:\n  - name: name\n    required: maybe\n---\nx\n"
)
GREET = "---\nname: greet\ndescription: Greet someone\nargument-hint: <who>\n---\n1. Greet.\n"


@pytest.mark.tmux
def test_in_a_real_terminal_help_lists_skills_and_patterns_with_session_advice(
    terminal: Terminal, folders: tuple[Path, Path]
) -> None:
    root, home = folders
    (root / ".legato" / "patterns").mkdir(parents=True)
    (root / ".legato" / "patterns" / "services.md").write_text(BROKEN)
    (root / ".legato" / "skills").mkdir()
    (root / ".legato" / "skills" / "greet.md").write_text(GREET)
    with ScriptedServer([text("unused")]) as server:
        terminal.start(root, session_env(home, server.url))
        terminal.wait_for("tokens", visible=True)
        terminal.submit("/help")
        screen = terminal.wait_for("listing every fault.")
        lines = screen.splitlines()
        skills = lines.index("Skills and commands (run one: /<name> [args]):")
        patterns = lines.index("Patterns (run one: /<name> <required> [optional]):")
        broken = lines.index("Not loaded (fix these files):")
        assert skills < patterns < broken
        column = lines[skills + 1].index("Find the performance")
        assert "  /greet <who>".ljust(column) + "Greet someone  (.legato/skills/greet.md)" in lines
        row = "  /deploy-script <staging|production>".ljust(column) + "Write a deploy script"
        deploy = next(n for n, line in enumerate(lines) if line.startswith(row))
        # A description too long for the terminal goes on under its own column.
        assert lines[deploy + 1].startswith(" " * column + "verification")
        assert lines[broken + 1] == (
            "  /service-class".ljust(column) + ".legato/patterns/services.md: 3 faults"
        )
        assert "/<name> --test checks one and shows it rendered, listing every fault." in lines
        assert "legato /" not in screen  # what to type in a shell is no help here

        terminal.submit("/service-class --test")
        # The fault's line is as long as the project's path: where it wraps varies.
        fault = "field 'args[0].required': must be true or false, not 'maybe'"
        terminal.wait_for(lambda screen: fault in " ".join(screen.split()))
        terminal.submit("/grete")
        terminal.wait_for("Did you mean /greet? Type /help to list them")
        terminal.submit("/patterns")
        terminal.wait_for("→ Type /patterns init to write the missing ones")
        terminal.submit("/patterns init")
        terminal.wait_for("Created .legato/patterns/CHANGELOG.md")
        assert (root / ".legato" / "patterns" / "README.md").is_file()
        assert "legato /" not in terminal.screen()
        terminal.submit("/quit")
        assert terminal.exit_code() == 0


@pytest.mark.tmux
def test_in_a_real_terminal_legato_help_wraps_under_the_column(
    terminal: Terminal, folders: tuple[Path, Path]
) -> None:
    root, home = folders
    terminal.start(root, session_env(home, "http://127.0.0.1:9"), "/help")
    assert terminal.exit_code() == 0
    lines = terminal.screen().splitlines()
    column = lines[1].index("Find the performance")
    row = "  /deploy-script <staging|production>".ljust(column) + "Write a deploy script"
    deploy = next(n for n, line in enumerate(lines) if line.startswith(row))
    assert lines[deploy + 1].startswith(" " * column + "verification")
    assert all(len(line) <= 100 for line in lines if line.startswith("  /"))
    assert "legato /<name> --test checks one and shows it rendered, listing every fault." in lines
