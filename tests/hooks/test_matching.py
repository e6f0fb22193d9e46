"""Which hooks run for an event: Claude Code's matcher rules, by the real actor and alone."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

import pytest

from actors.hooks import HookRunner
from actors.protocol import (
    GetContext,
    GlobalConfig,
    ListHooks,
    MemoryStoreMsg,
    ProjectContext,
    ProjectSettings,
    RunHooks,
)
from runtime import Actor, Reply, supervise
from tests.hooks.harness import group, running, script

if TYPE_CHECKING:
    from pathlib import Path

    from actors.protocol import HookEvent, HookGroup


@pytest.mark.parametrize(
    ("matcher", "tool", "runs"),
    [
        ("", "Bash", True),
        ("*", "mcp__github__create_issue", True),
        ("Bash", "Bash", True),
        ("Bash", "BashOutput", False),
        ("Edit|Write", "Edit", True),
        ("Edit|Write", "Write", True),
        ("Edit|Write", "NotebookEdit", False),
        ("Notebook.*", "NotebookEdit", True),
        ("mcp__github__.*", "mcp__github__create_issue", True),
        ("mcp__github__.*", "mcp__gitlab__create_issue", False),
        ("mcp__.*__write.*", "mcp__files__write_file", True),
        ("^Write$", "Write", True),
        ("^Write$", "TodoWrite", False),
        ("Web.*", "WebFetch", True),
        ("bash", "Bash", False),  # case matters
    ],
)
async def test_the_matcher_selects_by_tool_name(
    tmp_path: Path, matcher: str, tool: str, runs: bool
) -> None:
    hook = script(tmp_path / "hooks", "hook.sh", "#!/bin/bash\nexit 0\n")
    async with running(tmp_path / "p", group("PreToolUse", hook, matcher=matcher)) as hooks:
        outcome = await hooks.run("PreToolUse", tool, tool_input={})
    assert len(outcome.runs) == (1 if runs else 0)


async def test_only_the_events_own_groups_run_and_each_command_once(tmp_path: Path) -> None:
    log = tmp_path / "log"
    one = script(tmp_path / "hooks", "one.sh", f"#!/bin/bash\necho one >> {log}\n")
    two = script(tmp_path / "hooks", "two.sh", f"#!/bin/bash\necho two >> {log}\n")
    groups = (
        group("PreToolUse", one, matcher="Bash"),
        group("PreToolUse", one, two, matcher="*"),
        group("PostToolUse", two, matcher="Bash"),
    )
    async with running(tmp_path / "p", *groups) as hooks:
        outcome = await hooks.run("PreToolUse", "Bash", tool_input={})
    assert [run.command for run in outcome.runs] == [one, two]
    assert sorted(log.read_text().split()) == ["one", "two"]


@pytest.mark.parametrize(
    ("event", "field", "value", "matcher", "runs"),
    [
        ("SessionStart", "source", "startup", "startup", True),
        ("SessionStart", "source", "resume", "startup", False),
        ("SessionStart", "source", "compact", "resume|compact", True),
        ("PreCompact", "trigger", "manual", "auto", False),
        ("PreCompact", "trigger", "auto", "auto", True),
        ("Stop", "stop_hook_active", False, "Bash", True),  # no matcher for Stop
        ("UserPromptSubmit", "prompt", "hi", "nothing", True),
    ],
)
async def test_other_events_match_their_own_field_or_nothing(
    tmp_path: Path, event: HookEvent, field: str, value: str | bool, matcher: str, runs: bool
) -> None:
    hook = script(tmp_path / "hooks", "hook.sh", "#!/bin/bash\nexit 0\n")
    payload: dict[str, Any] = {field: value}
    async with running(tmp_path / "p", group(event, hook, matcher=matcher)) as hooks:
        outcome = await hooks.run(event, **payload)
    assert len(outcome.runs) == (1 if runs else 0)


async def test_an_invalid_matcher_matches_nothing_and_says_so(tmp_path: Path) -> None:
    bad = script(tmp_path / "hooks", "bad.sh", "#!/bin/bash\nexit 2\n")
    good = script(tmp_path / "hooks", "good.sh", "#!/bin/bash\nexit 0\n")
    groups = (group("PreToolUse", bad, matcher="Bash(("), group("PreToolUse", good))
    async with running(tmp_path / "p", *groups) as hooks:
        outcome = await hooks.run("PreToolUse", "Bash", tool_input={})
    assert [run.command for run in outcome.runs] == [good]
    assert not outcome.blocked
    (error,) = outcome.errors
    assert error.startswith("settings.json: PreToolUse matcher 'Bash((': ")


async def test_no_hook_for_the_event_answers_at_once(tmp_path: Path) -> None:
    async with running(tmp_path / "p") as hooks:
        outcome = await hooks.run("Notification", message="waiting")
    assert outcome.runs == ()
    assert outcome.errors == ()


class Memory(Actor[MemoryStoreMsg]):
    """A memory store that knows only its context."""

    def __init__(self, context: ProjectContext) -> None:
        super().__init__()
        self.context = context

    async def handle(self, msg: MemoryStoreMsg, reply: Reply) -> None:
        assert isinstance(msg, GetContext)
        await reply.answer(msg, self.context)


async def test_the_groups_and_the_mode_come_from_the_memory_store(tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    seen = tmp_path / "seen.json"
    hook = script(tmp_path / "hooks", "record.sh", f"#!/bin/bash\ncat > {seen}\n")
    configured: tuple[HookGroup, ...] = (group("Notification", hook),)
    context = ProjectContext(
        project_root=str(root),
        config=GlobalConfig(),
        settings=ProjectSettings(),
        model="m",
        permission_mode="auto",
        hooks=configured,
    )
    memory = Memory(context)
    runner = HookRunner(memory.address, project_root=str(root), session_id="s")
    async with supervise([memory, runner]):
        assert await runner.address.ask(ListHooks()) == configured
        await runner.address.ask(RunHooks(event="Notification", payload={"message": "hi"}))
    assert json.loads(seen.read_text())["permission_mode"] == "acceptEdits"
