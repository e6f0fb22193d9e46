"""What an interrupted prompt leaves in the conversation, seen through the whole session."""

from __future__ import annotations

import json
import re
from typing import TYPE_CHECKING, cast

import anyio

from actors.conductor.keeper import SessionKeeper
from actors.protocol import LoadSession, Message, TextDelta, ToolOutput, Undo
from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls
from runtime import supervise
from tests.cancellation.harness import ControlledRenderer, conversation_problems, live_session
from tests.sessions.test_store import stores, user

if TYPE_CHECKING:
    from collections.abc import Callable
    from pathlib import Path

    from actors.protocol import ToolExecutorMsg, UiEvent
    from runtime import Address


class CancelOn(ControlledRenderer):
    """Sets ``reached`` on the first event ``when`` accepts."""

    def __init__(self, when: Callable[[UiEvent], bool]) -> None:
        super().__init__()
        self.when = when

    async def show(self, event: UiEvent) -> None:
        await super().show(event)
        if self.when(event):
            self.reached.set()


def project(tmp_path: Path) -> tuple[Path, Path]:
    root, home = tmp_path / "project", tmp_path / "home"
    (root / ".legato").mkdir(parents=True)
    home.mkdir()
    settings = {"permissionMode": "custom", "allowedCommands": ["echo", "sleep"]}
    (root / ".legato" / "settings.json").write_text(json.dumps(settings))
    return root, home


async def test_interrupted_calls_tell_the_model_how_long_they_ran_and_what_they_printed(
    tmp_path: Path,
) -> None:
    root, home = project(tmp_path)
    calls = [
        call("Bash", {"command": "echo halfway there; sleep 30"}),
        call("Bash", {"command": "echo quick"}),
    ]
    steps = [tool_calls(calls, text="Running both."), text("Understood, stopping.")]
    renderer = CancelOn(lambda e: isinstance(e, ToolOutput) and "halfway" in e.text)
    with ScriptedServer(steps) as server:
        async with live_session(root, home, server.url, renderer) as live:
            assert await live.interrupted_prompt("run them") is None
            messages = await live.conversation()
            after = await live.prompt("what happened?")
        sent = server.requests[-1].body["messages"]
    assert conversation_problems(messages) == []
    assert [m.role for m in messages] == ["user", "assistant", "user"]
    results = {block["tool_use_id"]: block for block in messages[-1].content}
    slow, quick = (results[block["id"]] for block in messages[1].content[1:])
    assert slow["is_error"] is True
    assert re.fullmatch(
        r"Interrupted after \d+\.\d s, before it finished; the command and every process it "
        r"started were stopped\. Output so far:\nhalfway there",
        slow["content"],
    )
    # The quick call may have finished before the interrupt (then its real result is kept).
    assert quick["content"] in ("quick", "Interrupted before it started; nothing was done.") or (
        quick["content"].startswith("Interrupted after")
    )
    # The next prompt carries the interrupted results and the new question, and is accepted.
    assert after.subtype == "success", after.error
    assert sent[2]["content"][-1]["text"] == "what happened?"


async def test_an_answer_interrupted_while_streaming_keeps_its_text(tmp_path: Path) -> None:
    root, home = project(tmp_path)
    words = " ".join(f"word{i}" for i in range(200))
    steps = [text(words, delay=0.01), text("Fine.")]
    renderer = CancelOn(lambda e: isinstance(e, TextDelta))
    with ScriptedServer(steps) as server:
        async with live_session(root, home, server.url, renderer) as live:
            assert await live.interrupted_prompt("talk") is None
            messages = await live.conversation()
            after = await live.prompt("go on")
    assert conversation_problems(messages) == []
    [kept] = messages[-1].content
    assert messages[-1].role == "assistant"
    assert words.startswith(kept["text"]) and kept["text"]
    assert after.subtype == "success", after.error


async def test_a_cancel_that_lands_while_saving_leaves_what_it_held_to_the_next_save(
    tmp_path: Path,
) -> None:
    # The conductor saves without waiting for the write (a message to the session store), and
    # an interrupt may land on that message being posted: whatever it held must go with the
    # next save, or the saved session lacks a message and --continue sends one the API refuses.
    root, home = tmp_path / "project", tmp_path / "home"
    root.mkdir()
    memory, store = stores(root, home, "s1")
    prompt = user("fix the build")  # the keeper tells messages apart by identity, as kept
    call_message = Message(
        "assistant", [{"type": "tool_use", "id": "toolu_1", "name": "Bash", "input": {}}]
    )
    results = Message(
        "user", [{"type": "tool_result", "tool_use_id": "toolu_1", "content": "Interrupted"}]
    )
    async with supervise([memory, store]):
        keeper = SessionKeeper(store.address, cast("Address[ToolExecutorMsg]", None))
        keeper.start_prompt("fix the build")  # the goal goes with the prompt's first save
        with anyio.CancelScope() as scope:
            scope.cancel()
            await keeper.save([prompt])
        with anyio.CancelScope() as scope:
            scope.cancel()
            await keeper.save([prompt, call_message])
        await keeper.save([prompt, call_message, results])
    memory, store = stores(root, home, "s1", resume=True)
    async with supervise([memory, store]):
        saved = await store.address.ask(LoadSession())
    assert saved.messages == [prompt, call_message, results]
    assert saved.ledger.goal == keeper.ledger.goal != ""


async def test_what_an_interrupted_command_changed_is_recorded_and_undone(tmp_path: Path) -> None:
    root, home = project(tmp_path)
    (root / "notes.txt").write_text("before\n")
    command = "echo made > made.txt; echo after > notes.txt; echo halfway; sleep 30"
    steps = [tool_calls([call("Bash", {"command": command})]), text("Stopped.")]
    renderer = CancelOn(lambda e: isinstance(e, ToolOutput) and "halfway" in e.text)
    with ScriptedServer(steps) as server:
        async with live_session(root, home, server.url, renderer) as live:
            assert await live.interrupted_prompt("make things") is None
            # The batch was compared once the command was stopped: /undo has all of it.
            said = await live.session.conductor.address.ask(Undo())
    assert not (root / "made.txt").exists()
    assert (root / "notes.txt").read_text() == "before\n"
    short = f"`{command[:60]}`…"
    assert said.splitlines()[:2] == [
        f"Removed {root / 'made.txt'} (created by {short})",
        f"Restored {root / 'notes.txt'} (changed by {short})",
    ]
