"""The memory store as an actor: loads in on_start, answers GetContext and ExplainContext, a bad
file stops it."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from actors.errors import ConfigError
from actors.memory_store import MemoryStore, Overrides
from actors.protocol import ExplainContext, GetContext
from runtime import ActorCrashed, supervise

if TYPE_CHECKING:
    from tests.memory_store.conftest import Dirs


async def test_it_answers_with_the_loaded_context(dirs: Dirs) -> None:
    dirs.write_settings('{"allowedCommands": ["git status"], "permisionMode": "auto"}')
    (dirs.project / "LEGATO.md").write_text("# Guide\n")
    store = MemoryStore(
        str(dirs.project), home=str(dirs.home), overrides=Overrides(model="opus"), env={}
    )
    async with supervise([store]):
        context = await store.address.ask(GetContext())
        assert await store.address.ask(GetContext()) is context  # loaded once
    assert context.project_root == str(dirs.project.resolve())
    assert context.model == "claude-opus-4-6"
    assert [(g.path, g.text) for g in context.guides] == [
        (str(dirs.project.resolve() / "LEGATO.md"), "# Guide\n")
    ]
    assert context.settings.allowed_commands == ("git status",)
    assert "did you mean 'permissionMode'?" in context.warnings[0]


async def test_it_explains_where_each_value_came_from(dirs: Dirs) -> None:
    settings = dirs.write_settings('{"permissionMode": "auto"}')
    store = MemoryStore(
        str(dirs.project), home=str(dirs.home), overrides=Overrides(model="haiku"), env={}
    )
    async with supervise([store]):
        explained = await store.address.ask(ExplainContext())
        assert explained.context is await store.address.ask(GetContext())
    sources = {s.key: (s.value, s.source) for s in explained.settings}
    assert sources["model"] == ("claude-haiku-4-5-20251001", "--model")
    assert sources["permissionMode"] == ("auto", settings)
    assert sources["theme"] == ("dark", "built-in default")


async def test_a_bad_file_stops_the_session_before_any_request(dirs: Dirs) -> None:
    path = dirs.write_settings('{\n  "permissionMode": "sometimes"\n}')
    store = MemoryStore(str(dirs.project), home=str(dirs.home))
    reached = False
    with pytest.raises(ActorCrashed) as info:
        async with supervise([store]):
            reached = True
    assert not reached
    assert isinstance(info.value.cause, ConfigError)
    assert info.value.cause.describe() == (
        f"{path}:2: field 'permissionMode': must be one of ask, auto, custom, plan, "
        "not 'sometimes'\n  → Set 'permissionMode' to one of ask, auto, custom, plan, "
        "or remove it to use the default"
    )
    assert info.value.cause.exit_code == 2
