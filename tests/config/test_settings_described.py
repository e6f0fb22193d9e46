"""Each setting is described once, in its field's ``msgspec.Meta``: every field has a meaning and
words for a message, and the docs' tables of limits say what the Meta says."""

from __future__ import annotations

import re
from pathlib import Path

import msgspec
import pytest

from actors.settings import (
    AgentSettings,
    GlobalConfig,
    ProjectSettings,
    SandboxSettings,
    keys,
    takes,
)
from actors.settings.words import bounds, description

DOCS = Path(__file__).resolve().parents[2] / "docs"
STRUCTS: list[type[msgspec.Struct]] = [
    ProjectSettings,
    GlobalConfig,
    SandboxSettings,
    AgentSettings,
]


@pytest.mark.parametrize("struct", STRUCTS, ids=lambda struct: struct.__name__)
def test_every_field_says_what_it_is_for_and_what_it_takes(struct: type[msgspec.Struct]) -> None:
    for key in keys(struct):
        assert description(struct, key), f"{struct.__name__}.{key} has no description"
        assert takes(struct, key).words


def test_the_words_come_from_the_types_bounds_and_defaults() -> None:
    assert takes(AgentSettings, "maxConcurrent").with_default() == (
        "a whole number from 1 to 64 (default 4)"
    )
    assert takes(SandboxSettings, "maxMemoryMB").with_default() == (
        "a whole number of MiB from 64 to 16777216 (default: half the memory)"
    )
    assert takes(ProjectSettings, "sandbox", "network").words == "true or false"
    assert takes(ProjectSettings, "permissionMode").words == "one of ask, auto, custom, plan"
    assert (
        takes(ProjectSettings, "blockedPaths").words == 'a list of glob strings such as ["src/**"]'
    )
    assert takes(ProjectSettings, "blockedPaths", each=True).words == "a glob string"
    assert takes(ProjectSettings, "agents").words == 'an object such as {"maxConcurrent": 4}'


def _table_rows(page: str) -> dict[str, str]:
    """The rows of the page's tables by their first cell's `key`: the rest of the row."""
    rows: dict[str, str] = {}
    for line in (DOCS / page).read_text(encoding="utf-8").splitlines():
        found = re.match(r"\| `(\w+)` \|(.*)", line)
        if found:
            rows.setdefault(found[1], found[2])
    return rows


@pytest.mark.parametrize("key", keys(AgentSettings))
def test_agents_md_gives_each_limit_its_default_and_range(key: str) -> None:
    low, high, default = bounds(AgentSettings, key)
    assert _table_rows("agents.md")[key].startswith(f" {default} ({low}-{high}) |")


@pytest.mark.parametrize("key", ["maxProcesses", "maxMemoryMB"])
def test_configuration_md_gives_each_sandbox_limit_its_range(key: str) -> None:
    low, high, _ = bounds(SandboxSettings, key)
    assert f", {low} to {high};" in _table_rows("configuration.md")[key]


def test_configuration_md_lists_every_sandbox_key_and_its_default() -> None:
    rows = _table_rows("configuration.md")
    defaults = msgspec.structs.asdict(SandboxSettings())
    for field in msgspec.structs.fields(SandboxSettings):
        assert field.encode_name in rows, f"sandbox.{field.encode_name} is not in the table"
        value = defaults[field.name]
        if value is not None:
            written = msgspec.json.encode(list(value) if isinstance(value, tuple) else value)
            assert rows[field.encode_name].startswith(f" `{written.decode()}` |")


def test_the_docs_give_the_background_commands_limit_its_range_and_default() -> None:
    low, high, default = bounds(ProjectSettings, "maxBackgroundCommands")
    files = (DOCS / "configuration.md").read_text(encoding="utf-8")
    assert (
        f"`maxBackgroundCommands` (how many background commands run at once, {low} to {high}, "
        f"default {default};"
    ) in files
    agents = " ".join((DOCS / "agents.md").read_text(encoding="utf-8").split())
    assert f"(default {default}; a whole number from {low} to {high} in" in agents
