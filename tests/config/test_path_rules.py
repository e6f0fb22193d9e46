"""Path rules as a person meets them through the real `legato` command: a refused entry stops
with exit 2 naming the file, line, field and entry; warnings are printed; the note for rules
written for the old meaning is printed once."""

from __future__ import annotations

from typing import TYPE_CHECKING

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
