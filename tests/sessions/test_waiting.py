"""What the conductor waits for while a turn runs: the checkpoint before a file changes, and
nothing else of the session file.

The session store here is a stand-in that holds its writes until the test lets them go (the
real store's writing is tested in ``test_store.py``); everything else is the real session,
against the scripted server over loopback, running real tools.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import anyio

from actors.protocol import (
    AppendEvents,
    CheckpointTaken,
    LoadSession,
    RunPrompt,
    SavedSession,
    SaveEvents,
    SessionStoreMsg,
)
from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls
from frontends.session import conductor, model_client, tool_parts
from frontends.session_options import SessionOptions
from runtime import Actor, supervise
from tests.compaction.test_long_session import Quiet

if TYPE_CHECKING:
    from pathlib import Path

    from actors.protocol import PermissionMode, SessionEvent, TurnOutcome
    from frontends.demo.scripted_api import Step
    from runtime import Reply


class HeldStore(Actor[SessionStoreMsg]):
    """Takes events as the real store does, writing those it holds only once ``open`` is set:
    the events nobody waits for, or those somebody does."""

    name = "session_store"

    def __init__(self, *, hold: type[AppendEvents | SaveEvents]) -> None:
        super().__init__()
        self.hold = hold
        self.open = anyio.Event()
        self.asked = anyio.Event()  # a SaveEvents came: somebody waits for it
        self.written: list[SessionEvent] = []
        self.waited_for: list[SessionEvent] = []

    async def handle(self, msg: SessionStoreMsg, reply: Reply) -> None:
        if isinstance(msg, SaveEvents):
            self.asked.set()
        if isinstance(msg, self.hold):
            await self.open.wait()
        match msg:
            case AppendEvents(events=events):
                self.written.extend(events)
            case SaveEvents(events=events):
                self.written.extend(events)
                self.waited_for.extend(events)
                await reply.answer(msg, None)
            case LoadSession():
                await reply.answer(msg, SavedSession(session_id="held"))


async def run_prompt(
    root: Path, home: Path, steps: list[Step], store: HeldStore, mode: PermissionMode = "auto"
) -> TurnOutcome:
    """One prompt of a session whose conductor saves to ``store``; fails after 30 s if it
    never ends (a conductor waiting on a write that is never let go)."""
    with ScriptedServer(steps) as server:
        env = {"ASSISTANT_BASE_URL": server.url, "ASSISTANT_API_KEY": "k", "HOME": str(home)}
        options = SessionOptions(
            project_root=str(root), headless=True, permission_mode=mode, env=env,
            home=str(home), session_id="held",
        )  # fmt: skip
        parts = tool_parts(options, renderer=Quiet())
        model = model_client(options, parts.memory)
        turns = conductor(options, parts, model, sessions=store.address)
        actors: list[Actor[Any]] = [store, *parts.actors, model, turns]
        async with supervise(actors):
            with anyio.fail_after(30):
                outcome = await turns.address.ask(RunPrompt(text="go"))
            store.open.set()  # the rest is written as the session ends
        return outcome


async def test_a_turn_that_changes_no_file_never_waits_for_the_session_file(
    tmp_path: Path,
) -> None:
    root, home = tmp_path / "project", tmp_path / "home"
    root.mkdir()
    (root / "notes.txt").write_text("one\n")
    calls = [call("Read", {"file_path": str(root / "notes.txt")}), call("Bash", {"command": "ls"})]
    steps = [tool_calls(calls, "Looking."), text("Done.")]
    store = HeldStore(hold=AppendEvents)
    # Nothing is written until the prompt is over, and the prompt ends all the same. (The
    # command runs: one the broker denied would leave no checkpoint at all.)
    outcome = await run_prompt(root, home, steps, store, mode="bypass")
    assert outcome.subtype == "success" and outcome.num_turns == 2
    assert store.waited_for == []
    # Written afterwards, all of it: where the prompt began (for /rewind), the goal and the
    # prompt first, then the answer, the
    # command's note (the two race), the results and the last answer, each answer's tokens.
    kinds = [type(event).__name__ for event in store.written]
    assert kinds[:3] == ["PromptMarked", "LedgerChanged", "MessageAdded"]
    assert sorted(kinds[3:]) == [
        "CheckpointTaken",
        *["MessageAdded"] * 3,
        *["UsageCounted"] * 2,
    ]


async def test_a_file_is_written_only_once_its_checkpoint_is_on_disk(tmp_path: Path) -> None:
    root, home = tmp_path / "project", tmp_path / "home"
    root.mkdir()
    target = root / "a.txt"  # new: the checkpoint says to remove it on /undo
    steps = [
        tool_calls([call("Write", {"file_path": str(target), "content": "after\n"})]),
        text("Written."),
    ]
    store = HeldStore(hold=SaveEvents)
    async with anyio.create_task_group() as tasks:
        outcome: list[TurnOutcome] = []

        async def prompt() -> None:
            outcome.append(await run_prompt(root, home, steps, store))

        tasks.start_soon(prompt)
        with anyio.fail_after(30):
            await store.asked.wait()
        # The conductor is waiting for the checkpoint to be written: the Write has not run.
        assert not target.exists()
        store.open.set()
    assert target.read_text() == "after\n"
    assert outcome[0].subtype == "success"
    (checkpoint,) = [e for e in store.waited_for if isinstance(e, CheckpointTaken)]
    assert [(f.path, f.content) for f in checkpoint.checkpoint.files] == [(str(target), None)]
