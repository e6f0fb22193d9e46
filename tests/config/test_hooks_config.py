"""Hooks in Claude Code's format, read from the global config and the project's settings: the
groups in order (the user's first, then the project's), a bad entry stopping the session with
exit 2 naming the file, the line and the field, unknown keys as warnings, and ``legato config``
listing them."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest

from actors.errors import ConfigError
from actors.memory_store import load_context
from actors.memory_store.hook_settings import read_hooks
from actors.protocol import HookCommand, HookGroup
from actors.settings.jsonpos import key_positions
from frontends.demo.scripted_api import ScriptedServer, text

if TYPE_CHECKING:
    from tests.config.conftest import Setup


def _command(command: str, timeout: float | None = None) -> dict[str, Any]:
    hook: dict[str, Any] = {"type": "command", "command": command}
    if timeout is not None:
        hook["timeout"] = timeout
    return hook


def _read(hooks: object, warnings: list[str] | None = None) -> tuple[HookGroup, ...]:
    text = json.dumps({"hooks": hooks}, indent=1)
    return read_hooks(
        "f.json", json.loads(text), key_positions(text), [] if warnings is None else warnings
    )


def test_every_shape_is_read_in_file_order() -> None:
    groups = _read(
        {
            "PostToolUse": [
                {"matcher": "Edit|Write", "hooks": [_command("fmt.sh", 30), _command("lint", 1.5)]},
                {"matcher": "*", "hooks": [_command("log")]},
            ],
            "PreToolUse": [{"hooks": [_command("guard")]}, {"matcher": "", "hooks": []}],
            "UserPromptSubmit": [{"hooks": [_command("branch.sh")]}],
            # An event without a matcher takes one and ignores it, however it reads: its group
            # holds "" (it runs every time).
            "Stop": [{"matcher": "(not a regex", "hooks": [_command("done")]}],
            "SessionStart": [{"matcher": "startup|resume", "hooks": [_command("hello")]}],
            "PreCompact": [{"matcher": "manual", "hooks": [_command("save")]}],
            "SubagentStop": [],
            "SessionEnd": [{"hooks": [_command("bye")]}],
            "Notification": [{"hooks": [_command("notify-send hi")]}],
        }
    )
    assert groups == (
        HookGroup(
            event="PostToolUse",
            matcher="Edit|Write",
            hooks=(
                HookCommand(command="fmt.sh", timeout=30.0),
                HookCommand(command="lint", timeout=1.5),
            ),
            source="f.json",
        ),
        HookGroup(
            event="PostToolUse", matcher="*", hooks=(HookCommand(command="log"),), source="f.json"
        ),
        HookGroup(event="PreToolUse", hooks=(HookCommand(command="guard"),), source="f.json"),
        HookGroup(event="PreToolUse", source="f.json"),
        HookGroup(
            event="UserPromptSubmit", hooks=(HookCommand(command="branch.sh"),), source="f.json"
        ),
        HookGroup(
            event="Stop",
            hooks=(HookCommand(command="done"),),
            source="f.json",
        ),
        HookGroup(
            event="SessionStart",
            matcher="startup|resume",
            hooks=(HookCommand(command="hello"),),
            source="f.json",
        ),
        HookGroup(
            event="PreCompact",
            matcher="manual",
            hooks=(HookCommand(command="save"),),
            source="f.json",
        ),
        HookGroup(event="SessionEnd", hooks=(HookCommand(command="bye"),), source="f.json"),
        HookGroup(
            event="Notification", hooks=(HookCommand(command="notify-send hi"),), source="f.json"
        ),
    )
    assert groups[0].hooks[0].timeout == 30.0 and groups[2].hooks[0].timeout == 60.0


def test_the_users_hooks_come_before_the_projects(setup: Setup) -> None:
    config = setup.config(
        {"hooks": {"PreToolUse": [{"matcher": "Bash", "hooks": [_command("mine")]}]}}
    )
    settings = setup.settings(
        {
            "hooks": {
                "PostToolUse": [{"matcher": "Write", "hooks": [_command("theirs")]}],
                "PreToolUse": [{"matcher": "Bash", "hooks": [_command("theirs too", 5)]}],
            }
        },
        trust=False,
    )
    context = load_context(str(setup.project), home=str(setup.home), env={})
    assert context.hooks == (
        HookGroup(
            event="PreToolUse", matcher="Bash", hooks=(HookCommand(command="mine"),), source=config
        ),
        HookGroup(
            event="PostToolUse",
            matcher="Write",
            hooks=(HookCommand(command="theirs"),),
            source=settings,
            approved=False,  # the project's, until the user approves them
        ),
        HookGroup(
            event="PreToolUse",
            matcher="Bash",
            hooks=(HookCommand(command="theirs too", timeout=5.0),),
            source=settings,
            approved=False,
        ),
    )
    assert not context.warnings


def test_no_hooks_key_means_no_hooks(setup: Setup) -> None:
    setup.settings({"model": "sonnet"})
    assert load_context(str(setup.project), home=str(setup.home), env={}).hooks == ()


# Each case: the hooks object, the field named, words of the message, words of the remedy.
BAD: list[tuple[object, str, str, str]] = [
    ([], "hooks", "must be an object of events", "docs/hooks.md"),
    (
        {"preToolUse": []},
        "hooks.preToolUse",
        "did you mean 'PreToolUse'?",
        "Use one of PreToolUse,",
    ),
    ({"OnSave": []}, "hooks.OnSave", "unknown hook event 'OnSave'", "Use one of PreToolUse,"),
    ({"Stop": {"hooks": []}}, "hooks.Stop", "must be a list of", "docs/hooks.md"),
    ({"Stop": ["echo"]}, "hooks.Stop[0]", "must be an object", "docs/hooks.md"),
    ({"Stop": [{"matcher": ""}]}, "hooks.Stop[0]", 'has no "hooks"', "docs/hooks.md"),
    ({"Stop": [{"hooks": {"type": "command"}}]}, "hooks.Stop[0].hooks", "must be a list", "docs"),
    ({"Stop": [{"hooks": ["echo hi"]}]}, "hooks.Stop[0].hooks[0]", "must be an object", "docs"),
    (
        {"Stop": [{"hooks": [{"command": "x"}]}]},
        "hooks.Stop[0].hooks[0]",
        'has no "type"',
        '"type": "command"',
    ),
    (
        {"Stop": [{"hooks": [{"type": "prompt", "prompt": "Is it done?"}]}]},
        "hooks.Stop[0].hooks[0].type",
        "type 'prompt' is not supported: only command hooks are",
        'Write "type": "command"',
    ),
    (
        {"Stop": [{"hooks": [{"type": "agent", "prompt": "Check"}]}]},
        "hooks.Stop[0].hooks[0].type",
        "type 'agent' is not supported",
        'Write "type": "command"',
    ),
    (
        {"Stop": [{"hooks": [{"type": "command"}]}]},
        "hooks.Stop[0].hooks[0]",
        'has no "command"',
        'Set "command"',
    ),
    (
        {"Stop": [{"hooks": [_command("  ")]}]},
        "hooks.Stop[0].hooks[0].command",
        "is empty",
        'Set "command"',
    ),
    (
        {"Stop": [{"hooks": [{"type": "command", "command": ["ls"]}]}]},
        "hooks.Stop[0].hooks[0].command",
        "must be a string, not a list",
        'Set "command"',
    ),
    (
        {"PreToolUse": [{"hooks": [_command("a"), _command("b", 0)]}]},
        "hooks.PreToolUse[0].hooks[1].timeout",
        "must be a positive number of seconds, not 0",
        'Set "timeout"',
    ),
    (
        {"PreToolUse": [{"hooks": [_command("a", -5)]}]},
        "hooks.PreToolUse[0].hooks[0].timeout",
        "not -5",
        "default (60 s)",
    ),
    (
        {"PreToolUse": [{"hooks": [{"type": "command", "command": "a", "timeout": "30"}]}]},
        "hooks.PreToolUse[0].hooks[0].timeout",
        "not '30'",
        'Set "timeout"',
    ),
    (
        {"PreToolUse": [{"hooks": [{"type": "command", "command": "a", "timeout": True}]}]},
        "hooks.PreToolUse[0].hooks[0].timeout",
        "not true",
        'Set "timeout"',
    ),
    (
        {"PreToolUse": [{"matcher": ["Bash"], "hooks": []}]},
        "hooks.PreToolUse[0].matcher",
        "must be a string",
        "docs/hooks.md",
    ),
    (
        {"PostToolUse": [{"matcher": "Edit|(Write", "hooks": []}]},
        "hooks.PostToolUse[0].matcher",
        "'Edit|(Write' is not a valid regular expression",
        'write "*" for every tool',
    ),
    (
        {"PostToolUse": [{"matcher": "a{99999999999}", "hooks": []}]},
        "hooks.PostToolUse[0].matcher",
        "'a{99999999999}' is not a valid regular expression",
        'write "*" for every tool',
    ),
    (
        {"PostToolUse": [{"matcher": "(" * 5000 + ")" * 5000, "hooks": []}]},
        "hooks.PostToolUse[0].matcher",
        "groups nested 5000 deep (at most 100)",
        'write "*" for every tool',
    ),
    (
        {"Stop": [{"matcher": 3, "hooks": []}]},
        "hooks.Stop[0].matcher",
        "must be a string",
        "docs/hooks.md",
    ),
]


@pytest.mark.parametrize(("hooks", "field", "message", "remedy"), BAD)
def test_a_bad_entry_names_its_field_and_a_remedy(
    hooks: object, field: str, message: str, remedy: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        _read(hooks)
    assert caught.value.field == field
    assert message in caught.value.message
    assert remedy in (caught.value.remedy or "")


def test_a_bad_timeout_stops_a_session_naming_file_line_and_field(setup: Setup) -> None:
    path = setup.settings(
        '{"hooks": {\n'
        ' "PreToolUse": [\n'
        '  {"matcher": "Bash",\n'
        '   "hooks": [\n'
        '    {"type": "command", "command": "./guard.sh"},\n'
        '    {"type": "command", "command": "./log.sh",\n'
        '     "timeout": 0}]}]}}'
    )
    done = setup.legato("config", str(setup.project))
    assert done.returncode == 2, done.stderr
    assert (
        f"{path}:7: field 'hooks.PreToolUse[0].hooks[1].timeout': must be a positive number of "
        "seconds, not 0" in done.stderr
    )
    assert '→ Set "timeout" to a number of seconds such as 30' in done.stderr
    # A session stops the same way, before any request (no server listens at that address).
    done = setup.legato(
        str(setup.project),
        "--headless",
        "hi",
        ASSISTANT_API_KEY="k",
        ASSISTANT_BASE_URL="http://127.0.0.1:9",
    )
    assert done.returncode == 2, done.stderr
    assert f"{path}:7: field 'hooks.PreToolUse[0].hooks[1].timeout'" in done.stderr


def test_a_prompt_hook_in_the_global_config_names_that_file(setup: Setup) -> None:
    config = setup.config(
        '{"hooks": {"Stop": [{"hooks": [\n {"type": "prompt",\n  "prompt": "Done?"}]}]}}'
    )
    done = setup.legato("config", str(setup.project))
    assert done.returncode == 2
    assert (
        f"{config}:2: field 'hooks.Stop[0].hooks[0].type': type 'prompt' is not supported: "
        "only command hooks are (not prompt or agent hooks)"
    ) in done.stderr


def test_an_unknown_event_offers_the_close_one(setup: Setup) -> None:
    path = setup.settings('{\n "hooks": {\n  "PostToolUSE": []}}')
    done = setup.legato("config", str(setup.project))
    assert done.returncode == 2
    assert (
        f"{path}:3: field 'hooks.PostToolUSE': unknown hook event 'PostToolUSE'; did you mean "
        "'PostToolUse'?"
    ) in done.stderr


def test_a_bad_regular_expression_names_its_line(setup: Setup) -> None:
    path = setup.settings('{"hooks": {"PreToolUse": [\n {"matcher": "Bash(",\n  "hooks": []}]}}')
    done = setup.legato("config", str(setup.project))
    assert done.returncode == 2
    assert f"{path}:2: field 'hooks.PreToolUse[0].matcher': 'Bash(' is not a valid" in done.stderr


def test_unknown_keys_are_warnings(setup: Setup) -> None:
    path = setup.settings(
        '{"hooks": {"Stop": [{"hooks": [],\n "matchr": "x"}],\n'
        ' "PreToolUse": [{"hooks": [{"type": "command", "command": "a",\n  "timeut": 5}]}]}}'
    )
    done = setup.legato("config", str(setup.project))
    assert done.returncode == 0, done.stderr
    assert f"{path}:2: unknown key 'hooks.Stop[0].matchr' is ignored" in done.stderr
    assert f"{path}:4: unknown key 'hooks.PreToolUse[0].hooks[0].timeut' is ignored" in done.stderr
    assert "unknown key 'hooks'" not in done.stderr


def test_config_lists_the_hooks_by_event_and_in_json(setup: Setup) -> None:
    config = setup.config(
        {
            "hooks": {
                "PreToolUse": [{"matcher": "Bash", "hooks": [_command("~/guard.sh", 10)]}],
                "UserPromptSubmit": [{"hooks": [_command("branch.sh")]}],
            }
        }
    )
    settings = setup.settings(
        {
            "hooks": {
                "PostToolUse": [{"matcher": "Edit|Write", "hooks": [_command("fmt.sh", 30)]}],
                "PreToolUse": [{"matcher": "*", "hooks": [_command("log.sh"), _command("b", 2.5)]}],
            }
        },
        trust=False,
    )
    done = setup.legato("config", str(setup.project))
    assert done.returncode == 0, done.stderr
    tail = done.stdout.split("Hooks (global config's first, then the project's)\n")[1]
    assert tail.split("MCP servers")[0].splitlines() == [
        "  PreToolUse",
        f"    matcher Bash  ({config})",
        "      ~/guard.sh  (timeout 10 s)",
        f"    every time  ({settings})  not approved: /hooks approve",
        "      log.sh  (timeout 60 s)",
        "      b  (timeout 2.5 s)",
        "  PostToolUse",
        f"    matcher Edit|Write  ({settings})  not approved: /hooks approve",
        "      fmt.sh  (timeout 30 s)",
        "  UserPromptSubmit",
        f"    every time  ({config})",
        "      branch.sh  (timeout 60 s)",
    ]
    done = setup.legato("config", "--json", str(setup.project))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["hooks"] == [
        {
            "event": "PreToolUse",
            "matcher": "Bash",
            "hooks": [{"command": "~/guard.sh", "timeout": 10.0}],
            "source": config,
        },
        {
            "event": "UserPromptSubmit",
            "matcher": "",
            "hooks": [{"command": "branch.sh", "timeout": 60.0}],
            "source": config,
        },
        {
            "event": "PostToolUse",
            "matcher": "Edit|Write",
            "hooks": [{"command": "fmt.sh", "timeout": 30.0}],
            "source": settings,
        },
        {
            "event": "PreToolUse",
            "matcher": "*",
            "hooks": [{"command": "log.sh", "timeout": 60.0}, {"command": "b", "timeout": 2.5}],
            "source": settings,
        },
    ]


def test_config_says_none_without_hooks(setup: Setup) -> None:
    done = setup.legato("config", str(setup.project))
    assert done.returncode == 0, done.stderr
    assert "Hooks (global config's first, then the project's)\n  none\n" in done.stdout


def test_a_session_runs_the_users_hook_then_the_projects(setup: Setup) -> None:
    """What is read reaches the runner: both files' UserPromptSubmit hooks run, in that order,
    with LEGATO_PROJECT_DIR set, and their stdout goes to the model with the prompt."""
    setup.config({"hooks": {"UserPromptSubmit": [{"hooks": [_command("echo from-the-user")]}]}})
    project_hook = 'echo "from-the-project in $LEGATO_PROJECT_DIR"'
    setup.settings({"hooks": {"UserPromptSubmit": [{"hooks": [_command(project_hook)]}]}})
    with ScriptedServer([text("Done.")]) as server:
        done = setup.legato(
            str(setup.project),
            "--headless",
            "hello",
            ASSISTANT_API_KEY="k",
            ASSISTANT_BASE_URL=server.url,
        )
        requests = server.requests
    assert done.returncode == 0, done.stderr
    sent = json.dumps(requests[0].body["messages"])
    assert "from-the-user" in sent
    assert f"from-the-project in {setup.project}" in sent
    assert sent.index("from-the-user") < sent.index("from-the-project")
