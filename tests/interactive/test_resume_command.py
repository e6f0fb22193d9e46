"""``/resume`` inside a real in-process session: the project's other saved sessions listed as
``legato --resume`` lists them, the one picked switched to (its conversation goes on, its last
exchange shown), the one left still saved and resumable; a prefix picks without the list."""

from __future__ import annotations

import functools
from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from actors.places import sessions_dir
from frontends.demo.scripted_api import text
from tests.interactive.test_session import ENTER, run

if TYPE_CHECKING:
    from tests.interactive.test_session import Live

pytestmark = pytest.mark.anyio


def _running(live: Live) -> bool:
    return live.session.screen.busy is not None


def _said(body: dict[str, Any]) -> list[str]:
    """Each message's text, in order."""
    shown = []
    for message in body["messages"]:
        content = message["content"]
        blocks = (
            [content]
            if isinstance(content, str)
            else [b.get("text", "") for b in content if isinstance(b, dict)]
        )
        shown.append(" ".join(blocks))
    return shown


async def test_resume_switches_to_the_picked_session_and_back_by_prefix(
    folders: tuple[Path, Path],
) -> None:
    async for live, _ in run(folders, [text("the first answer")]):
        await live.submit("/resume")
        await live.shown("this project has no other saved session")
        await live.submit("the first prompt")
        await live.shown("the first answer")
        await live.idle()
        first = live.session.session.id
    steps = [
        text("the second answer", delay=0.2),
        text("back in the first"),
        text("back in the second"),
    ]
    async for live, server in run(folders, steps):
        second = live.session.session.id
        await live.submit("the second prompt")
        await live.until(functools.partial(_running, live))
        await live.submit("/resume")  # typed while the prompt runs
        await live.shown("a prompt was running when it was typed")
        assert live.session.session.id == second
        await live.shown("the second answer")
        await live.idle()
        await live.submit("/resume")
        await live.shown("Resume which session?")
        await live.shown("Saved sessions, latest first")
        assert f"{first[:8]}" in live.text() and second[:8] not in live.text().split("/resume")[-1]
        live.pipe.send_text("1" + ENTER)
        await live.shown(f"Resumed session {first[:8]}")
        await live.shown("the first answer")  # its last exchange, replayed
        assert live.session.session.id == first
        await live.submit("go on")
        await live.shown("back in the first")
        await live.idle()
        await live.submit(f"/resume {second[:6]}")
        await live.shown(f"Resumed session {second[:8]}")
        await live.submit("and on")
        await live.shown("back in the second")
        await live.idle()
        await live.submit(f"/resume {second}")
        await live.shown("that is this session")
        await live.submit("/resume 0xnothing")
        await live.shown("/resume 0xnothing: no saved session of this project has an id that")
        bodies = [r.body for r in server.requests]
    assert _said(bodies[1]) == ["the first prompt", "the first answer", "go on"]
    assert _said(bodies[2])[:3] == ["the second prompt", "the second answer", "and on"]


async def test_a_session_that_cannot_be_opened_leaves_this_one_going_on(
    folders: tuple[Path, Path],
) -> None:
    root, home = folders
    async for live, _ in run(folders, [text("the first answer")]):
        await live.submit("the first prompt")
        await live.shown("the first answer")
        await live.idle()
        first = live.session.session.id
    saved = Path(sessions_dir(str(root), str(home))) / f"{first}.jsonl"
    async for live, server in run(folders, [text("the second answer"), text("still here")]):
        second = live.session.session.id
        await live.submit("the second prompt")
        await live.shown("the second answer")
        await live.idle()
        await live.submit("/resume")
        await live.shown("Saved sessions, latest first")
        saved.unlink()  # gone between the list and the choice (another legato removed it)
        live.pipe.send_text("1" + ENTER)
        await live.shown(f"/resume: session {first} could not be opened")
        await live.shown(f"Resumed session {second[:8]}")
        assert live.session.session.id == second
        await live.submit("go on")
        await live.shown("still here")
        await live.idle()
        bodies = [r.body for r in server.requests]
    assert _said(bodies[1]) == ["the second prompt", "the second answer", "go on"]
