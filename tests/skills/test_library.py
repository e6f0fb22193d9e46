"""The skill library as an actor: what frontends ask it, and what it answers or raises."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from actors.errors import ConfigError, UsageError
from actors.places import pattern_stats_path
from actors.protocol import (
    CheckCommand,
    GetPatternStats,
    ListCommands,
    PatternRuns,
    PrepareCommand,
    SkillOutput,
    SkillPrompt,
)
from actors.skills import SkillLibrary
from frontends.skills.skill_commands import run_slash
from runtime import supervise

if TYPE_CHECKING:
    from tests.frontends.conftest import Project


async def test_it_lists_prepares_and_checks_what_slash_name_runs(project: Project) -> None:
    project.write(".legato/skills/greet.md", "---\nname: greet\ndescription: Hi\n---\n1. Hi $1.\n")
    library = SkillLibrary(str(project.root), home=str(project.home))
    async with supervise([library]):
        listed = {info.name: info for info in await library.address.ask(ListCommands())}
        prompt = await library.address.ask(PrepareCommand(name="greet", args=("Ada",)))
        shown = await library.address.ask(PrepareCommand(name="memory"))
        report = await library.address.ask(CheckCommand(name="greet"))
    assert (listed["greet"].kind, listed["greet"].bundled) == ("skill", False)
    assert listed["crud-gen"].usage == "/crud-gen <entity> <fields>"
    assert isinstance(prompt, SkillPrompt)
    assert prompt.prompt.endswith("1. Hi Ada.")
    assert isinstance(shown, SkillOutput)
    assert shown.text.startswith("Memory for this project: ")
    assert (report.kind, report.rendered) == ("skill", "1. Hi sample-1.")


async def test_a_bad_request_is_the_callers_error_and_the_library_goes_on(
    project: Project,
) -> None:
    project.write(".legato/skills/broken.md", "---\nname: broken\n---\n1. x\n")
    library = SkillLibrary(str(project.root), home=str(project.home))
    async with supervise([library]):
        with pytest.raises(UsageError) as unknown:
            await library.address.ask(PrepareCommand(name="comit"))
        with pytest.raises(ConfigError) as broken:
            await library.address.ask(CheckCommand(name="broken"))
        assert await library.address.ask(PrepareCommand(name="commit"))
    assert unknown.value.remedy is not None and "Did you mean /commit?" in unknown.value.remedy
    assert broken.value.field == "description"


async def test_pattern_runs_are_counted_in_the_projects_place(project: Project) -> None:
    library = SkillLibrary(str(project.root), home=str(project.home))
    async with supervise([library]):
        await library.address.ask(PrepareCommand(name="mock-data", args=('{"a": "uuid"}', "1")))
        await library.address.ask(CheckCommand(name="mock-data"))  # a check is not a run
        runs = await library.address.ask(GetPatternStats())
    assert PatternRuns("mock-data", 1) in runs
    assert PatternRuns("crud-gen", 0) in runs
    assert recorded(project) == {"mock-data": 1}


def recorded(project: Project) -> object:
    with open(pattern_stats_path(str(project.root), str(project.home))) as file:
        return json.load(file)


def test_test_needs_no_valid_configuration(
    project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    project.write(".legato/settings.json", "{ not json")
    assert run_slash([str(project.root), "/commit", "--test"]) == 0
    assert "ok: skill /commit" in capsys.readouterr().out
