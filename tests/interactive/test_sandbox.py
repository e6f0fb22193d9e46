"""Where Bash commands run unconfined, or only in part (Landlock, where bubblewrap fails), the
banner says so once, in the warning colour, and the first command does not say it again; where
they run confined, nothing is said. The session's
trial of the sandbox holds up neither the prompt nor the first answer. A real ``legato`` in a
real terminal (tmux), or in-process with pipe input, and the scripted server; a failing bwrap
is chosen with ``ASSISTANT_BWRAP``, as a user chooses one."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from actors.tool_executor.sandbox import landlock, probe
from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls
from tests.interactive.conftest import session_env
from tests.interactive.test_session import run
from tests.tool_executor.sandbox_setup import (
    REFUSAL,
    failing_bwrap,
    needs_bwrap,
    why_landlock_cannot_run,
)
from tests.trusting import trust_project

if TYPE_CHECKING:
    from pathlib import Path

    from tests.interactive.terminal import Terminal

SAID = "Bash commands run unconfined"
PARTLY = "Bash commands run under Landlock"
SCRIPT = [tool_calls([call("Bash", {"command": "echo from-bash"})]), text("Done.")]


def settings(root: Path, **sandbox: bool) -> None:
    (root / ".legato").mkdir()
    values = {"permissionMode": "custom", "allowedCommands": ["echo"], "sandbox": sandbox}
    (root / ".legato" / "settings.json").write_text(json.dumps(values))
    trust_project(root, root.parent / "home")  # as its user would: the sandbox off widens


def words(screen: str) -> str:
    """The screen's text with its line breaks as spaces: the view wraps long lines."""
    return " ".join(screen.split())


def run_a_command(terminal: Terminal) -> str:
    terminal.submit("run it")
    terminal.wait_for("Done.", visible=True)  # on the screen that is then read
    return terminal.screen()


@pytest.mark.tmux
@pytest.mark.parametrize("why", ["bwrap fails", "sandbox.enabled is false"])
def test_the_banner_says_once_that_commands_run_unconfined(
    terminal: Terminal, folders: tuple[Path, Path], tmp_path: Path, why: str
) -> None:
    root, home = folders
    settings(root, **({"enabled": False} if why == "sandbox.enabled is false" else {}))
    # Where bubblewrap fails, this kernel's Landlock (when it has one) confines them in part.
    partly = why == "bwrap fails" and why_landlock_cannot_run() is None
    first = PARTLY if partly else SAID
    with ScriptedServer(SCRIPT) as server:
        env = session_env(home, server.url) | {"ASSISTANT_BWRAP": failing_bwrap(tmp_path)}
        terminal.start(root, env)
        banner = terminal.wait_for(first)
        # Under the banner, before anything was typed, in the theme's warning colour (yellow).
        assert banner.index("/help for commands") < banner.index(first)
        [line] = [line for line in terminal.styled().splitlines() if first in line]
        assert line.startswith("\x1b[33m" + first), repr(line)
        if partly:
            said = "Not enforced: read-only inside the project"
            assert f"cannot make a sandbox here: {REFUSAL}" in words(banner)
        elif why == "bwrap fails":
            said = f"cannot make a sandbox here: {REFUSAL}. Allow unprivileged user namespaces"
        else:
            said = "sandbox.enabled is false in .legato/settings.json; set it to true to confine"
        assert said in words(banner)
        screen = run_a_command(terminal)
        assert "✓ Bash(echo from-bash)" in screen
        assert screen.count(first) == 1  # the command did not say it again
        terminal.submit("/quit")
        assert terminal.exit_code() == 0


@pytest.mark.tmux
@needs_bwrap
def test_confined_commands_add_nothing_to_the_banner(
    terminal: Terminal, folders: tuple[Path, Path]
) -> None:
    root, home = folders
    settings(root)
    with ScriptedServer(SCRIPT) as server:
        terminal.start(root, session_env(home, server.url))
        terminal.wait_for("tokens", visible=True)
        screen = run_a_command(terminal)
        assert "✓ Bash(echo from-bash)" in screen
        assert "unconfined" not in screen
        terminal.submit("/quit")
        assert terminal.exit_code() == 0


@pytest.mark.anyio
async def test_the_prompt_and_the_first_answer_do_not_wait_for_the_trial(
    folders: tuple[Path, Path], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings(folders[0])
    # The trial's end is the test's to choose: it must not give up on its own meanwhile.
    monkeypatch.setattr(probe, "TRIAL_TIMEOUT", 600.0)
    monkeypatch.setattr(landlock, "abi", lambda: 0)  # no fallback: commands run unconfined
    release = tmp_path / "release"  # the fake bwrap's trial ends only once this exists
    bwrap = failing_bwrap(tmp_path, release=release)
    steps = [text("Hello."), *SCRIPT]
    try:
        async for live, _ in run(folders, steps, env={"ASSISTANT_BWRAP": bwrap}):
            await live.submit("hi")
            await live.shown("Hello.")
            assert SAID not in live.text()  # the trial is still going on
            release.touch()
            await live.shown(SAID)  # said when it is known, after the banner
            await live.idle()
            await live.submit("run it")
            # Unconfined, an untrusted project's allowedCommands entry asks (the sandbox is
            # what lets it run unasked); the question says how it would run.
            await live.shown("runs unconfined: full file and network access")
            await live.submit("y")
            await live.shown("Done.")
            assert "✓ Bash(echo from-bash)" in live.text()
            assert live.text().count(SAID) == 1
    finally:
        release.touch()  # a failure above must not leave the fake bwrap waiting
