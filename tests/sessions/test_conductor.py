"""The conductor with its session store: checkpoints per prompt, /undo, /clear, resume."""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING

import anyio
import msgspec
import pytest

from actors.models import resolve_model
from actors.protocol import (
    ClearConversation,
    GetConversation,
    Message,
    MessageAdded,
    ModelChosen,
    RunPrompt,
    SetModel,
    Undo,
)
from actors.session_store import read_events, session_path
from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls
from frontends.session import assemble
from frontends.session_options import SessionOptions
from runtime import ActorCrashed, supervise
from tests.compaction.test_long_session import Quiet

if TYPE_CHECKING:
    from pathlib import Path

    from actors.protocol import PermissionMode
    from frontends.demo.scripted_api import Step
    from frontends.session import Session


def open_session(
    root: Path,
    home: Path,
    url: str,
    resume: str | None = None,
    mode: PermissionMode = "auto",
    model: str | None = None,
) -> Session:
    env = {"ASSISTANT_BASE_URL": url, "ASSISTANT_API_KEY": "k", "HOME": str(home)}
    options = SessionOptions(
        project_root=str(root), headless=True, env=env, home=str(home),
        permission_mode=mode, session_id=resume, resume=resume is not None, model=model,
    )  # fmt: skip
    return assemble(options, renderer=Quiet())


async def test_undo_restores_every_file_of_the_latest_prompt_then_the_one_before(
    tmp_path: Path,
) -> None:
    root, home = tmp_path / "project", tmp_path / "home"
    await anyio.Path(root).mkdir()
    a, b = anyio.Path(root / "a.txt"), anyio.Path(root / "b.txt")
    await a.write_text("a0\n")
    edit = {"file_path": str(a), "old_string": "a", "new_string": "A"}
    steps: list[Step] = [
        # prompt 1: read a, edit a
        tool_calls([call("Read", {"file_path": str(a)})]),
        tool_calls([call("Edit", edit)]),
        text("edited"),
        # prompt 2: two batches, a edited again and b created
        tool_calls([call("Edit", {**edit, "old_string": "A0", "new_string": "A1"})]),
        tool_calls([call("Write", {"file_path": str(b), "content": "b\n"})]),
        text("done"),
    ]
    with ScriptedServer(steps) as server:
        session = open_session(root, home, server.url)
        async with supervise(session.actors):
            conductor = session.conductor.address
            await conductor.ask(RunPrompt(text="one"))
            await conductor.ask(RunPrompt(text="two"))
            assert (await a.read_text(), await b.read_text()) == ("A1\n", "b\n")
            said = await conductor.ask(Undo())
            assert said.splitlines() == [f"Restored {a}", f"Removed {b} (the prompt created it)"]
            assert await a.read_text() == "A0\n" and not await b.exists()
            said = await conductor.ask(Undo())
            assert said == f"Restored {a}"
            assert await a.read_text() == "a0\n"
            assert (await conductor.ask(Undo())).startswith("Nothing to undo")
            # The model hears of it with the next prompt.
            messages = await conductor.ask(GetConversation())
            assert "/undo" in messages[-1].content[-1]["text"]


async def test_clear_starts_afresh_and_a_resume_sees_the_cleared_conversation(
    tmp_path: Path,
) -> None:
    root, home = tmp_path / "project", tmp_path / "home"
    await anyio.Path(root).mkdir()
    with ScriptedServer([text("one"), text("two")]) as server:
        session = open_session(root, home, server.url)
        async with supervise(session.actors):
            conductor = session.conductor.address
            await conductor.ask(RunPrompt(text="forget me"))
            await conductor.ask(ClearConversation())
            await conductor.ask(RunPrompt(text="keep me"))
            assert [m.role for m in await conductor.ask(GetConversation())] == ["user", "assistant"]
        assert server.requests[1].body["messages"][0]["content"][0]["text"] == "keep me"
    with ScriptedServer([]) as server:
        resumed = open_session(root, home, server.url, resume=session.id)
        async with supervise(resumed.actors):
            messages = await resumed.conductor.address.ask(GetConversation())
    assert [b["text"] for m in messages for b in m.content] == ["keep me", "two"]


async def test_a_model_choice_is_kept_across_resume_unless_model_is_given(tmp_path: Path) -> None:
    root, home = tmp_path / "project", tmp_path / "home"
    await anyio.Path(root).mkdir()
    with ScriptedServer([text("one"), text("two"), text("three")]) as server:
        session = open_session(root, home, server.url)
        async with supervise(session.actors):
            await session.conductor.address.ask(SetModel(model="haiku"))
            await session.conductor.address.ask(RunPrompt(text="first"))
        resumed = open_session(root, home, server.url, resume=session.id)
        async with supervise(resumed.actors):
            await resumed.conductor.address.ask(RunPrompt(text="second"))
        # --model given with --resume wins over the saved choice.
        flagged = open_session(root, home, server.url, resume=session.id, model="opus")
        async with supervise(flagged.actors):
            await flagged.conductor.address.ask(RunPrompt(text="third"))
        models = [request.body["model"] for request in server.requests]
    assert models == [resolve_model("haiku").id, resolve_model("haiku").id, "claude-opus-4-6"]
    saved = read_events(session_path(str(root), str(home), session.id))
    assert ModelChosen(resolve_model("haiku").id) in saved


async def test_a_resumed_sessions_model_that_is_none_is_named_as_the_sessions(
    tmp_path: Path,
) -> None:
    # A session file edited by hand, or taken from the SDK's store, names no model there is.
    root, home = tmp_path / "project", tmp_path / "home"
    await anyio.Path(root).mkdir()
    session_id = "3f2b8c1e-0d4a-4b6e-9f1a-2c3d4e5f6a7b"
    path = session_path(str(root), str(home), session_id)
    os.makedirs(os.path.dirname(path))
    hello = MessageAdded(Message("user", [{"type": "text", "text": "hello"}]))
    events = (hello, ModelChosen("gpt-nonsense"))
    await anyio.Path(path).write_bytes(b"".join(msgspec.json.encode(e) + b"\n" for e in events))
    said = re.escape("the resumed session's model 'gpt-nonsense' is not a model")
    with ScriptedServer([]) as server, pytest.raises(ActorCrashed, match=said):
        resumed = open_session(root, home, server.url, resume=session_id)
        async with supervise(resumed.actors):
            pass
