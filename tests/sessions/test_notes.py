"""A note the person added (``!cmd``'s output, a ``#`` line) with no prompt after it: saved,
and a resumed session sends it with its first prompt, in one user message the API accepts."""

from __future__ import annotations

from typing import TYPE_CHECKING

import anyio

from actors.protocol import AddNote, GetConversation, RunPrompt
from frontends.demo.scripted_api import ScriptedServer, text
from runtime import supervise
from tests.sessions.test_conductor import open_session

if TYPE_CHECKING:
    from pathlib import Path


async def test_a_note_before_exit_goes_with_the_first_prompt_after_resume(tmp_path: Path) -> None:
    root, home = tmp_path / "project", tmp_path / "home"
    await anyio.Path(root).mkdir()
    with ScriptedServer([text("one")]) as server:
        session = open_session(root, home, server.url)
        async with supervise(session.actors):
            conductor = session.conductor.address
            await conductor.ask(RunPrompt(text="first"))
            await conductor.ask(AddNote(text="<bash-input>ls</bash-input>"))
    with ScriptedServer([text("two")]) as server:
        resumed = open_session(root, home, server.url, resume=session.id)
        async with supervise(resumed.actors):
            conductor = resumed.conductor.address
            assert (await conductor.ask(GetConversation()))[-1].role == "user"
            await conductor.ask(RunPrompt(text="what was there?"))
        messages = server.requests[0].body["messages"]
    assert [m["role"] for m in messages] == ["user", "assistant", "user"]
    assert [b["text"] for b in messages[-1]["content"]] == [
        "<bash-input>ls</bash-input>",
        "what was there?",
    ]
