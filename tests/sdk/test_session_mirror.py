"""The SDK's ``session_store`` with Legato as its CLI: a session mirrored into the program's store
as it is saved, and resumed from that store on another machine (a fresh home, a fresh copy of
the project), the model seeing the earlier conversation."""

from __future__ import annotations

import shutil
import uuid
from typing import TYPE_CHECKING

from claude_agent_sdk import (
    ClaudeSDKClient,
    InMemorySessionStore,
    ResultMessage,
    project_key_for_directory,
)

from frontends.demo.scripted_api import ScriptedServer, text
from tests.sdk.conftest import collect

if TYPE_CHECKING:
    from pathlib import Path

    from claude_agent_sdk import SessionKey

    from tests.sdk.conftest import Folder


async def test_a_session_in_the_store_resumes_in_another_container(
    folder: Folder, tmp_path: Path
) -> None:
    folder.write("notes.txt", "the project's own file\n")
    store = InMemorySessionStore()
    session_id = str(uuid.uuid4())  # the program's choice of id is the one the store keys
    key: SessionKey = {
        "project_key": project_key_for_directory(folder.root),
        "session_id": session_id,
    }
    steps = [text("The word is heron."), text("You told me heron."), text("Still heron.")]
    with ScriptedServer(steps) as server:
        first = folder.options(
            server.url,
            session_store=store,
            session_id=session_id,
            env={"CLAUDE_CONFIG_DIR": str(tmp_path / "claude-one")},
        )
        async with ClaudeSDKClient(first) as client:
            await client.query("remember the word heron")
            said = [message async for message in client.receive_response()]
            # In the store at the result already, not only once the session ends: a session
            # still open in one container can be resumed in another.
            mirrored = store.get_entries(key)
        assert isinstance(said[-1], ResultMessage) and said[-1].session_id == session_id
        assert store.get_entries(key) == mirrored
        # Legato's own events, whole: the first is the session's start, and the answer is there.
        assert [entry["type"] for entry in mirrored][:1] == ["SessionStarted"]
        assert "The word is heron." in str(mirrored)

        # Another container: the project copied to the same path, a home and a config folder
        # that have never seen the session; only the store has it.
        copy = tmp_path / "copy"
        shutil.copytree(folder.root, copy)
        shutil.rmtree(folder.root)
        copy.rename(folder.root)
        shutil.rmtree(folder.home)
        folder.home.mkdir()
        again = folder.options(
            server.url,
            session_store=store,
            resume=session_id,
            env={"CLAUDE_CONFIG_DIR": str(tmp_path / "claude-two")},
        )
        resumed = await collect("which word did I say?", again)

        # A third container, continuing: the SDK picks the store's latest session for it.
        shutil.rmtree(folder.home)
        folder.home.mkdir()
        latest = folder.options(
            server.url,
            session_store=store,
            continue_conversation=True,
            env={"CLAUDE_CONFIG_DIR": str(tmp_path / "claude-three")},
        )
        continued = await collect("and now?", latest)
        requests = server.requests
    result = resumed[-1]
    assert isinstance(result, ResultMessage) and not result.is_error
    assert (result.session_id, result.result) == (session_id, "You told me heron.")
    history = requests[1].body["messages"]
    assert [m["role"] for m in history] == ["user", "assistant", "user"]
    assert history[0]["content"][0]["text"] == "remember the word heron"
    assert history[1]["content"][0]["text"] == "The word is heron."
    # The resumed turn went on into the same key, after what was there.
    grown = store.get_entries(key)
    assert grown[: len(mirrored)] == mirrored
    assert "You told me heron." in str(grown[len(mirrored) :])
    last = continued[-1]
    assert isinstance(last, ResultMessage) and last.session_id == session_id
    assert len(requests[2].body["messages"]) == 5
