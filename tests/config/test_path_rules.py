"""Path rules as a person meets them through the real `legato` command: a refused entry stops
with exit 2 naming the file, line, field and entry; warnings are printed; the note for rules
written for the old meaning is printed once."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from frontends.demo.scripted_api import ScriptedServer, text

if TYPE_CHECKING:
    from tests.config.conftest import Setup


def test_a_refused_entry_exits_2_naming_file_line_field_and_entry(setup: Setup) -> None:
    path = setup.settings('{\n  "blockedPaths": [\n    "src/.env",\n    "!src/keep.txt"\n  ]\n}')
    done = setup.legato("config", str(setup.project))
    assert done.returncode == 2
    assert done.stderr.startswith(
        f"legato: {path}:4: field 'blockedPaths[1]': '!src/keep.txt' cannot be used: '!' (an "
        "exception) is not accepted in blockedPaths"
    )
    assert "→ Rewrite or remove that entry of 'blockedPaths'" in done.stderr
    assert "Traceback" not in done.stderr


def test_a_refused_entry_stops_a_session_before_any_request(setup: Setup) -> None:
    path = setup.settings({"allowedPaths": ["src/**", "#notes"]})
    done = setup.legato(
        str(setup.project),
        "--headless",
        "hi",
        ASSISTANT_API_KEY="k",
        ASSISTANT_BASE_URL="http://127.0.0.1:9",
    )
    assert done.returncode == 2
    assert f"{path}:1: field 'allowedPaths[1]': '#notes' cannot be used" in done.stderr
    assert "Traceback" not in done.stderr


def test_warnings_are_printed_and_the_note_only_once(setup: Setup) -> None:
    path = setup.settings('{\n  "allowedPaths": ["src/**", "src/**", "*.md"]\n}')
    repeat = f"warning: {path}:2: allowedPaths[1] 'src/**' repeats allowedPaths[0]"
    note = f"warning: {path}:2: allowedPaths[2] '*.md' now matches at any depth"

    first = setup.legato("config", str(setup.project))
    assert first.returncode == 0
    assert repeat in first.stderr and note in first.stderr

    again = setup.legato("config", str(setup.project))
    assert again.returncode == 0
    assert repeat in again.stderr and note not in again.stderr


def test_a_headless_session_prints_the_note_once(setup: Setup) -> None:
    path = setup.settings({"allowedPaths": ["*.md"]})
    note = f"{path}:1: allowedPaths[0] '*.md' now matches at any depth"
    with ScriptedServer([text("one"), text("two")]) as server:
        runs = [
            setup.legato(
                str(setup.project),
                "--headless",
                "hi",
                ASSISTANT_API_KEY="k",
                ASSISTANT_BASE_URL=server.url,
            )
            for _ in range(2)
        ]
    assert [run.returncode for run in runs] == [0, 0]
    assert [run.stdout for run in runs] == ["one\n", "two\n"]
    assert note in runs[0].stderr
    assert note not in runs[1].stderr


def test_the_readme_s_settings_example_gives_a_new_user_no_warning(setup: Setup) -> None:
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text()
    blocks = re.findall(r"```json\n(.*?)```", readme, re.DOTALL)
    example = next(block for block in blocks if '"blockedPaths"' in block)
    setup.settings(example)
    done = setup.legato("config", str(setup.project))
    assert done.returncode == 0, done.stderr
    assert "warning" not in done.stderr, done.stderr
    # Its .env still blocks at any depth, as the README says.
    (setup.project / "sub").mkdir()
    (setup.project / "sub" / ".env").write_text("KEY=1\n")
    explained = setup.legato("permissions", "--project", str(setup.project), "explain", "sub/.env")
    assert "blocked by blockedPaths entry '.env' (path 'sub/.env')" in explained.stdout
