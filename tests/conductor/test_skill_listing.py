"""The Skill tool's listing, sent with every request: a repository that brings hundreds of
commands (each folder gives up to 500) cannot make it tens of thousands of tokens; every name
is still listed, each description shortened to fit the budget."""

from __future__ import annotations

from typing import Any, cast

from actors.conductor.skill_tool import LISTING_BUDGET, SkillOffer
from actors.protocol import CommandInfo


def offer(count: int, description: str) -> str:
    skills = tuple(
        CommandInfo(
            name=f"c{i:04d}",
            description=description,
            kind="skill",
            path=f"/p/.claude/commands/c{i:04d}.md",
            bundled=False,
            usage=f"/c{i:04d}",
        )
        for i in range(count)
    )
    definition = SkillOffer(cast("Any", None), skills).definition()
    return cast("str", definition["description"])


def test_many_skills_fit_the_budget_with_every_name() -> None:
    listing = offer(1000, "~" * 300)
    assert all(f"- c{i:04d}" in listing for i in range(1000))
    assert listing.count("~") <= LISTING_BUDGET


def test_a_few_skills_keep_their_descriptions() -> None:
    listing = offer(3, "Deploy the app to staging, then run the smoke tests.")
    assert listing.count("Deploy the app to staging, then run the smoke tests.") == 3
