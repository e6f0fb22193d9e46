"""Each headless denial names its real cause and the one remedy that fits, whole on stderr."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from actors.permission_broker.questions import LEAVE_PLAN
from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls

if TYPE_CHECKING:
    from tests.frontends.conftest import Project


def _denials(project: Project, *flags: str) -> tuple[list[str], str]:
    """What the model was told for each call (in the model's order), and stderr."""
    calls = [
        call("Bash", {"command": "rm -rf build"}, id="t1"),
        call("Read", {"file_path": str(project.root / ".env")}, id="t2"),
        call("Bash", {"command": "touch b"}, id="t3"),
        call("Write", {"file_path": str(project.root / "new.txt"), "content": "x"}, id="t4"),
    ]
    with ScriptedServer([tool_calls(calls), text("ok")]) as server:
        done = project.legato(server.url, "--headless", "go", *flags)
        requests = server.requests
    assert done.returncode == 0, done.stderr
    blocks: list[dict[str, Any]] = requests[1].body["messages"][-1]["content"]
    return [block["content"] for block in blocks], done.stderr


def test_each_denial_says_its_cause_and_its_one_remedy(project: Project) -> None:
    project.write(".env", "SECRET=1")
    project.settings(blockedCommands=["rm"], blockedPaths=["/.env"])
    settings = project.root / ".legato" / "settings.json"
    told, stderr = _denials(project)
    no_reply = (
        "A blocked entry holds in every mode and no reply overrides it; to allow this, remove "
        f"the entry from {settings}"
    )
    assert told == [
        "Permission denied: blocked by blockedCommands entry 'rm' (command 'rm -rf build'). "
        + no_reply,
        f"Permission denied: blocked by blockedPaths entry '/.env' (path '.env'). {no_reply}",
        "Permission denied: 'touch b' is not in allowedCommands, so ask mode asks before running "
        "it, and a headless run cannot ask. To allow it, add 'touch' (or the whole command) to "
        f"allowedCommands in {settings}, or the rule 'Bash(touch *)' to permissions.allow in "
        ".claude/settings.json",
        "Permission denied: 'new.txt' is not in allowedPaths, so ask mode asks before creating "
        "'new.txt', and a headless run cannot ask. To allow it, add a matching pattern to "
        f"allowedPaths in {settings}, or run with --permission-mode auto",
    ]
    # No generic advice to answer 'always', which a headless run cannot, nor a blocked entry.
    assert not any("always" in line for line in told)
    # The person reading stderr sees each whole, remedy included.
    for line in told:
        assert line in stderr


def test_plan_mode_denials_say_how_to_leave_it(project: Project) -> None:
    project.write(".env", "SECRET=1")
    project.settings(blockedCommands=["rm"])
    told, stderr = _denials(project, "--permission-mode", "plan")
    leave = LEAVE_PLAN
    assert told[2:] == [
        f"Permission denied: plan mode is read-only: running 'touch b' is not allowed. {leave}",
        f"Permission denied: plan mode is read-only: creating 'new.txt' is not allowed. {leave}",
    ]
    # A blocked entry is the cause even in plan mode: leaving it would not help.
    assert "blockedCommands entry 'rm'" in told[0]
    assert "SECRET=1" in told[1]  # reading is what plan mode is for
    assert f"{told[2]}" in stderr


def test_a_command_a_held_allow_rule_covers_says_to_trust_the_project(project: Project) -> None:
    # A cloned Claude Code user's project, not trusted yet: the remedy is trust, not one more
    # rule beside the one already written.
    project.write(".claude/settings.json", '{"permissions": {\n  "allow": ["Bash(touch *)"]\n}}\n')
    told, stderr = _denials(project)
    held = (
        "Permission denied: 'touch b' is not in allowedCommands, so ask mode asks before running "
        "it, and a headless run cannot ask. The allow rule 'Bash(touch *)' at "
        f"{project.root / '.claude' / 'settings.json'}:2 allows it once you trust this "
        "project's settings: run 'legato trust' ('legato trust --show' lists what it applies)"
    )
    assert told[2] == held
    assert held.removeprefix("Permission denied: ") in stderr
