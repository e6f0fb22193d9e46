"""The cycle collector is held off while Legato starts and is back on after the first model
turn, with start-up's objects frozen out of its walks."""

from __future__ import annotations

import gc
from typing import TYPE_CHECKING

import anyio
import pytest

from actors.protocol import RunPrompt
from frontends.demo.scripted_api import ScriptedServer, text
from frontends.session import assemble
from frontends.session_options import SessionOptions
from runtime import collector, supervise
from tests.compaction.test_long_session import Quiet

if TYPE_CHECKING:
    from pathlib import Path


@pytest.mark.usefixtures("held_collector")
async def test_the_first_model_turn_switches_the_collector_back_on(tmp_path: Path) -> None:
    root, home = tmp_path / "project", tmp_path / "home"
    await anyio.Path(root).mkdir()
    with ScriptedServer([text("one"), text("two")]) as server:
        env = {"ASSISTANT_BASE_URL": server.url, "ASSISTANT_API_KEY": "k", "HOME": str(home)}
        options = SessionOptions(project_root=str(root), headless=True, env=env, home=str(home))
        session = assemble(options, renderer=Quiet())
        async with supervise(session.actors):
            conductor = session.conductor.address
            assert not gc.isenabled()  # starting a session does not release it
            await conductor.ask(RunPrompt(text="first"))
            assert gc.isenabled()
            assert gc.get_freeze_count() > 0  # start-up's objects are out of its walks
            gc.disable()  # released once: a later turn leaves the collector as it finds it
            await conductor.ask(RunPrompt(text="second"))
            assert not gc.isenabled()


def test_release_leaves_a_collector_that_was_never_held_alone(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(collector, "_released", False)
    frozen = gc.get_freeze_count()
    assert gc.isenabled()
    collector.release_collector()
    assert gc.isenabled()
    assert gc.get_freeze_count() == frozen
