"""``/hooks`` in a session: the configured hooks by event, from the memory store's context (the
user's first, then the project's), with matcher, command, timeout and file; a pointer to
docs/hooks.md when there are none."""

from __future__ import annotations

import json
import shutil
from typing import TYPE_CHECKING

import pytest

from actors.protocol import HookCommand, HookGroup
from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls
from frontends.interactive.hooks import NONE, listing
from frontends.interactive.slash_commands import Command, help_text, parse
from tests.interactive.conftest import session_env
from tests.interactive.test_session import run
from tests.tool_executor.harness import is_running

if TYPE_CHECKING:
    from pathlib import Path

    from tests.interactive.terminal import Terminal

pytestmark = pytest.mark.anyio


def _hook(command: str, timeout: float = 60.0) -> dict[str, object]:
    return {"type": "command", "command": command, "timeout": timeout}


def _settings(root: Path) -> Path:
    path = root / ".legato" / "settings.json"
    path.parent.mkdir()
    hooks = {
        "PostToolUse": [{"matcher": "Edit|Write", "hooks": [_hook("./fmt.sh", 30)]}],
        "UserPromptSubmit": [{"hooks": [_hook("./branch.sh")]}],
        "PreToolUse": [{"matcher": "Bash", "hooks": [_hook("./guard.sh", 5), _hook("./log.sh")]}],
    }
    path.write_text(json.dumps({"hooks": hooks}))
    return path


def test_the_listing_groups_by_event_in_the_order_they_run() -> None:
    shown = listing(
        [
            HookGroup(
                event="PostToolUse",
                matcher="Edit|Write",
                hooks=(HookCommand(command="ruff format", timeout=30),),
                source="/u/config.json",
            ),
            HookGroup(event="Stop", hooks=(HookCommand(command="x"),), source="/p/s"),
            HookGroup(event="PreToolUse", hooks=(HookCommand(command="g.sh"),), source="/p/s"),
            HookGroup(
                event="PostToolUse",
                matcher="*",
                hooks=(HookCommand(command="log", timeout=0.5),),
                source="/p/s",
            ),
        ]
    )
    assert shown.splitlines() == [
        "Hooks by event (matcher, source; command, timeout):",
        "  PreToolUse",
        "    every time  (/p/s)",
        "      g.sh  (timeout 60 s)",
        "  PostToolUse",
        "    matcher Edit|Write  (/u/config.json)",
        "      ruff format  (timeout 30 s)",
        "    every time  (/p/s)",
        "      log  (timeout 0.5 s)",
        "  Stop",
        "    every time  (/p/s)",
        "      x  (timeout 60 s)",
    ]
    assert listing([]) == NONE
    assert "docs/hooks.md" in NONE and NONE.startswith("No hooks configured")


def test_hooks_is_a_command_with_help() -> None:
    assert parse("/hooks") == Command("/hooks", "")
    assert "/hooks" in help_text()
    assert parse("/hook") is not None and parse("/hook").suggestion == "/hooks"  # type: ignore[union-attr]


async def test_hooks_lists_the_projects_hooks_in_a_session(folders: tuple[Path, Path]) -> None:
    root, _ = folders
    path = _settings(root)
    async for live, server in run(folders, [text("unused")]):
        await live.submit("/hooks")
        await live.shown("Hooks by event (matcher, source; command, timeout):")
        await live.shown("      ./log.sh  (timeout 60 s)")
        await live.idle()
        # The terminal wraps a long path: the lines are compared without their white space.
        shown = "".join(live.text().split())
        wanted = [
            "Hooks by event (matcher, source; command, timeout):",
            "  PreToolUse",
            f"    matcher Bash  ({path})  not approved: /hooks approve",
            "      ./guard.sh  (timeout 5 s)",
            "      ./log.sh  (timeout 60 s)",
            "  PostToolUse",
            f"    matcher Edit|Write  ({path})  not approved: /hooks approve",
            "      ./fmt.sh  (timeout 30 s)",
            "  UserPromptSubmit",
            f"    every time  ({path})  not approved: /hooks approve",
            "      ./branch.sh  (timeout 60 s)",
        ]
        assert "".join("".join(line.split()) for line in wanted) in shown
        await live.submit("/hooks now")
        await live.shown("/hooks takes no argument but 'approve'")
        assert server.requests == []  # listing asks the model nothing


@pytest.mark.tmux
def test_in_a_real_terminal_hooks_lists_the_users_and_the_projects(
    terminal: Terminal, folders: tuple[Path, Path]
) -> None:
    root, home = folders
    config = home / ".config" / "legato" / "config.json"
    config.parent.mkdir(parents=True)
    config.write_text(
        json.dumps({"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [_hook("~/mine.sh")]}]}})
    )
    _settings(root)
    with ScriptedServer([text("unused")]) as server:
        terminal.start(root, session_env(home, server.url))
        terminal.wait_for("tokens", visible=True)
        terminal.submit("/hooks")
        screen = terminal.wait_for("./branch.sh  (timeout 60 s)")
        # The user's hook runs first: it is listed above the project's under the event.
        assert screen.index("~/mine.sh") < screen.index("./guard.sh") < screen.index("./fmt.sh")
        terminal.submit("/quit")
        assert terminal.exit_code() == 0


@pytest.mark.tmux
def test_in_a_real_terminal_no_hooks_points_to_the_docs(
    terminal: Terminal, folders: tuple[Path, Path]
) -> None:
    root, home = folders
    with ScriptedServer([text("unused")]) as server:
        terminal.start(root, session_env(home, server.url))
        terminal.wait_for("tokens", visible=True)
        terminal.submit("/hooks")
        terminal.wait_for("No hooks configured")
        terminal.wait_for("docs/hooks.md")
        terminal.submit("/quit")
        assert terminal.exit_code() == 0


def _prompt_hook(root: Path, marker: Path) -> Path:
    """A project whose UserPromptSubmit hook leaves ``marker`` and says a word to the model."""
    script = root / "mark.sh"
    script.write_text(f"#!/bin/bash\ncat >/dev/null\necho ran >> {marker}\necho 'hook says hi'\n")
    script.chmod(0o755)
    path = root / ".legato" / "settings.json"
    path.parent.mkdir(exist_ok=True)
    path.write_text(json.dumps({"hooks": {"UserPromptSubmit": [{"hooks": [_hook(str(script))]}]}}))
    return path


def _said_to_model(server: ScriptedServer) -> str:
    return json.dumps([request.body["messages"] for request in server.requests])


async def test_a_projects_hooks_run_only_once_approved(
    folders: tuple[Path, Path], tmp_path: Path
) -> None:
    root, _ = folders
    marker = tmp_path / "marker"
    settings = _prompt_hook(root, marker)
    async for live, server in run(folders, [text("First."), text("Second.")]):
        await live.shown("/hooks approve runs them from now on.")
        said = "".join(live.text().split())
        assert "".join(f"The project's hooks ({settings}) are not approved".split()) in said
        await live.submit("hello")
        await live.shown("First.")
        assert not marker.exists()  # a cloned repository's command did not run
        assert "hook says hi" not in _said_to_model(server)
        await live.submit("/hooks approve")
        await live.shown("Run the project's hooks, as /hooks lists them, from now on?")
        await live.submit("y")
        await live.shown("Approved: the project's hooks run from now on.")
        await live.submit("again")
        await live.shown("Second.")
        assert marker.read_text() == "ran\n"
        assert "hook says hi" in _said_to_model(server)


async def test_an_approval_holds_until_the_hooks_change(
    folders: tuple[Path, Path], tmp_path: Path
) -> None:
    root, home = folders
    marker = tmp_path / "marker"
    settings = _prompt_hook(root, marker)
    async for live, _ in run(folders, [text("One.")]):
        await live.submit("/hooks approve")
        await live.shown("from now on?")
        await live.submit("y")
        await live.shown("Approved")
    # A new session of the same project: approved, so the hook runs at once.
    shutil.rmtree(home / ".config")  # each run writes its own
    async for live, _ in run(folders, [text("Two.")]):
        await live.submit("hi")
        await live.shown("Two.")
        assert marker.read_text() == "ran\n"
    # The repository changes its hooks (a pull): not approved any more.
    changed = json.loads(settings.read_text())
    changed["hooks"]["UserPromptSubmit"][0]["hooks"][0]["timeout"] = 5
    settings.write_text(json.dumps(changed))
    shutil.rmtree(home / ".config")  # each run writes its own
    async for live, _ in run(folders, [text("Three.")]):
        await live.shown("/hooks approve runs them from now on.")
        await live.submit("hi")
        await live.shown("Three.")
        assert marker.read_text() == "ran\n"


async def test_a_running_hook_shows_in_the_status_line(
    folders: tuple[Path, Path], tmp_path: Path
) -> None:
    root, _ = folders
    go = tmp_path / "go"
    script = root / "wait.sh"
    script.write_text(f"#!/bin/bash\ncat >/dev/null\nwhile [ ! -e {go} ]; do sleep 0.01; done\n")
    script.chmod(0o755)
    # The user's own hook (the global config): it runs without an approval.
    hooks = {"UserPromptSubmit": [{"hooks": [_hook(str(script))]}]}
    async for live, _ in run(folders, [text("Answered.")], config={"hooks": hooks}):
        await live.submit("hello")
        await live.shown("running hook UserPromptSubmit")
        go.touch()
        await live.shown("Answered.")
        await live.idle()
        assert "running hook" not in live.text().rsplit("Answered.", 1)[1]


async def test_a_notification_hook_runs_when_a_question_waits(
    folders: tuple[Path, Path], tmp_path: Path
) -> None:
    told = tmp_path / "told"
    script = folders[0] / "notify.sh"
    script.write_text(f"#!/bin/bash\ncat > {told}\n")
    script.chmod(0o755)
    hooks = {"Notification": [{"hooks": [_hook(str(script))]}]}
    steps = [tool_calls([call("Bash", {"command": "echo hi"})]), text("Fine.")]
    async for live, _ in run(folders, steps, config={"hooks": hooks}):
        await live.submit("run it")
        await live.shown("requested by Bash")
        await live.until(told.exists)  # the hook ran while the question waited
        await live.submit("n")
        await live.shown("Fine.")
    event = json.loads(told.read_text())
    assert event["hook_event_name"] == "Notification"
    assert event["message"] == "Legato needs your permission to use Bash"
    assert event["notification_type"] == "permission_prompt"


async def test_esc_while_a_hook_runs_stops_it_and_its_children(
    folders: tuple[Path, Path], tmp_path: Path
) -> None:
    root, _ = folders
    pids = tmp_path / "pids"
    script = root / "stuck.sh"
    script.write_text(
        "#!/bin/bash\ncat >/dev/null\n"
        f"(trap '' TERM; exec sleep 301) & echo $! >> {pids}\n"
        f"echo $$ >> {pids}\ntrap '' TERM; sleep 300\n"
    )
    script.chmod(0o755)
    hooks = {"UserPromptSubmit": [{"hooks": [_hook(str(script))]}]}
    async for live, server in run(folders, [text("Not reached.")], config={"hooks": hooks}):
        await live.submit("hello")
        await live.until(lambda: pids.exists() and len(pids.read_text().split()) == 2)
        children = [int(pid) for pid in pids.read_text().split()]
        live.pipe.send_text("\x1b")  # Esc
        await live.shown("Interrupted. What should Legato do instead?")

        def gone(pids: list[int] = children) -> bool:
            return not any(is_running(pid) for pid in pids)

        await live.until(gone)
        assert server.requests == []  # the prompt never went out
