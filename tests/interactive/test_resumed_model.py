"""A resumed terminal session shows the model it goes on with: the saved ``/model`` choice, or
``--model`` when given with the resume."""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

import anyio
import pytest
from prompt_toolkit.data_structures import Size
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output.vt100 import Vt100_Output

from actors.models import resolve_model
from actors.protocol import RunPrompt, SetModel
from frontends.demo.scripted_api import ScriptedServer, text
from frontends.interactive.app import InteractiveSession
from frontends.session_options import SessionOptions
from runtime import supervise
from tests.interactive.test_session import Live
from tests.sessions.test_conductor import open_session

if TYPE_CHECKING:
    from pathlib import Path

pytestmark = pytest.mark.anyio


async def _resumed_status(root: Path, home: Path, session_id: str, model: str | None) -> str:
    out = io.StringIO()
    output = Vt100_Output(out, lambda: Size(rows=40, columns=100), term="xterm-256color")
    with ScriptedServer([]) as server, create_pipe_input() as pipe:
        env = {"ASSISTANT_BASE_URL": server.url, "ASSISTANT_API_KEY": "k", "PATH": "/usr/bin"}
        options = SessionOptions(
            project_root=str(root), env=env, home=str(home), session_id=session_id,
            resume=True, model=model,
        )  # fmt: skip
        session = InteractiveSession(options, input=pipe, output=output)
        live = Live(session, pipe, out)
        async with anyio.create_task_group() as tasks:
            tasks.start_soon(session.run)
            await live.shown("Resumed session")
            await live.submit("/model")
            await live.shown("Current model:")
            shown = live.text().rsplit("Current model:", 1)[1].split("\n", 1)[0].strip()
            await live.submit("/quit")
    return shown


async def test_the_saved_model_choice_shows_unless_model_is_given(
    folders: tuple[Path, Path],
) -> None:
    root, home = folders
    with ScriptedServer([text("one")]) as server:
        first = open_session(root, home, server.url)
        async with supervise(first.actors):
            await first.conductor.address.ask(SetModel(model="haiku"))
            await first.conductor.address.ask(RunPrompt(text="hello"))
    haiku = resolve_model("haiku").id
    assert await _resumed_status(root, home, first.id, None) == f"haiku ({haiku})"
    opus = resolve_model("opus").id
    assert await _resumed_status(root, home, first.id, "opus") == f"opus ({opus})"
