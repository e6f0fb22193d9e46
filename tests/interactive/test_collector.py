"""In the terminal, the cycle collector held through start-up runs again once the prompt is up
with its completions, before any prompt is sent: the screen makes garbage while a person
reads or types."""

from __future__ import annotations

import gc
from typing import TYPE_CHECKING

import pytest

from frontends.demo.scripted_api import text
from tests.interactive.test_session import run

if TYPE_CHECKING:
    from pathlib import Path

pytestmark = pytest.mark.anyio


@pytest.mark.usefixtures("held_collector")
async def test_the_collector_runs_again_once_the_prompt_is_ready(
    folders: tuple[Path, Path],
) -> None:
    async for live, server in run(folders, [text("Not asked.")]):
        await live.until(gc.isenabled)
        assert gc.get_freeze_count() > 0
        assert server.requests == []  # no prompt has gone out
