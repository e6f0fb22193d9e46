"""The session store writes one event a line and reads back what a crash left whole."""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING

import anyio
import pytest

from actors.errors import UsageError
from actors.protocol import (
    AppendEvents,
    Checkpoint,
    CheckpointRestored,
    CheckpointTaken,
    FileBefore,
    LedgerChanged,
    ListSessions,
    LoadSession,
    Message,
    MessageAdded,
    MessagesKept,
    Notice,
    SaveEvents,
    SessionStarted,
    TaskLedger,
    Usage,
    UsageCounted,
)
from actors.session_store import read_events, replay, session_path
from actors.session_store.files import list_sessions
from actors.ui import Renderer
from frontends.session import memory_store, session_store, ui_actor
from frontends.session_options import SessionOptions
from runtime import ActorCrashed, supervise

if TYPE_CHECKING:
    from pathlib import Path

    from actors.memory_store import MemoryStore
    from actors.protocol import SessionEvent, UiEvent
    from actors.session_store import SessionStore


def user(text: str) -> Message:
    return Message("user", [{"type": "text", "text": text}])


def assistant(text: str) -> Message:
    return Message("assistant", [{"type": "text", "text": text}])


def stores(
    root: Path, home: Path, session_id: str, *, resume: bool = False
) -> tuple[MemoryStore, SessionStore]:
    options = SessionOptions(
        project_root=str(root), env={}, home=str(home), session_id=session_id, resume=resume
    )
    memory = memory_store(options)
    return memory, session_store(options, memory)


async def test_events_are_written_as_they_come_and_replayed_on_resume(tmp_path: Path) -> None:
    root, home = tmp_path / "p", tmp_path / "h"
    root.mkdir()
    memory, store = stores(root, home, "s1")
    async with supervise([memory, store]):
        await store.address.ask(SaveEvents(events=(MessageAdded(user("hi")),)))
        path = session_path(str(root), str(home), "s1")
        # On disk already, before the session ends: a crash now loses nothing.
        lines = (await anyio.Path(path).read_bytes()).splitlines()
        assert [json.loads(line)["type"] for line in lines] == ["SessionStarted", "MessageAdded"]
        ledger = TaskLedger(goal="fix it")
        events = (MessageAdded(assistant("ok")), LedgerChanged(ledger), MessagesKept(1))
        await store.address.ask(SaveEvents(events=events))
    memory, store = stores(root, home, "s1", resume=True)
    async with supervise([memory, store]):
        saved = await store.address.ask(LoadSession())
    assert saved.messages == [user("hi")]
    assert saved.ledger == ledger
    assert os.stat(path).st_mode & 0o777 == 0o600


def test_a_torn_last_line_is_skipped_and_earlier_events_stand(tmp_path: Path) -> None:
    path = tmp_path / "s.jsonl"
    whole = json.dumps({"type": "MessageAdded", "message": {"role": "user", "content": []}})
    path.write_text(whole + "\n" + whole[:20])
    assert read_events(str(path)) == [MessageAdded(Message("user", []))]


def test_a_line_nested_past_the_decoders_stack_is_skipped_like_a_damaged_one(
    tmp_path: Path,
) -> None:
    path = tmp_path / "s.jsonl"
    whole = json.dumps({"type": "MessageAdded", "message": {"role": "user", "content": []}})
    block = '{"type": "text", "x": ' + "[" * 100_000 + "]" * 100_000 + "}"
    deep = '{"type": "MessageAdded", "message": {"role": "user", "content": [' + block + "]}}"
    path.write_text(deep + "\n" + whole + "\n")
    assert read_events(str(path)) == [MessageAdded(Message("user", []))]


async def test_after_a_torn_line_a_resumed_session_starts_a_fresh_line(tmp_path: Path) -> None:
    root, home = tmp_path / "p", tmp_path / "h"
    root.mkdir()
    path = session_path(str(root), str(home), "torn")
    os.makedirs(os.path.dirname(path))
    whole = json.dumps({"type": "MessageAdded", "message": {"role": "user", "content": []}})
    await anyio.Path(path).write_text(whole + "\n" + whole[:25])  # SIGKILL in the middle of a write
    memory, store = stores(root, home, "torn", resume=True)
    async with supervise([memory, store]):
        await store.address.ask(SaveEvents(events=(MessageAdded(user("again")),)))
    assert replay("torn", read_events(path)).messages == [Message("user", []), user("again")]


async def test_auto_save_off_writes_nothing(tmp_path: Path) -> None:
    root, home = tmp_path / "p", tmp_path / "h"
    root.mkdir()
    (home / ".config" / "legato").mkdir(parents=True)
    (home / ".config" / "legato" / "config.json").write_text('{"autoSave": false}')
    memory, store = stores(root, home, "quiet")
    async with supervise([memory, store]):
        await store.address.ask(SaveEvents(events=(MessageAdded(user("hi")),)))
    assert list_sessions(str(root), str(home)) == []


async def test_resuming_an_unknown_session_names_it_and_the_remedy(tmp_path: Path) -> None:
    root, home = tmp_path / "p", tmp_path / "h"
    root.mkdir()
    memory, store = stores(root, home, "nope", resume=True)
    with pytest.raises(ActorCrashed) as caught:
        async with supervise([memory, store]):
            pass
    crash = caught.value
    assert isinstance(crash.cause, UsageError)
    assert "'nope'" in crash.cause.message and "--continue" in (crash.cause.remedy or "")


def test_a_session_id_cannot_name_a_path_elsewhere(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match="not a session id"):
        session_path(str(tmp_path), str(tmp_path), "../../etc/passwd")


def write_session(root: Path, home: Path, name: str, prompt: str, mtime: int) -> None:
    path = session_path(str(root), str(home), name)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    events = [
        {"type": "SessionStarted", "session_id": name, "project_root": str(root), "started": "x"},
        {
            "type": "MessageAdded",
            "message": {"role": "user", "content": [{"type": "text", "text": f"{prompt}\nmore"}]},
        },
    ]
    with open(path, "w") as file:
        file.write("".join(json.dumps(e) + "\n" for e in events))
    os.utime(path, (mtime, mtime))


async def test_the_store_lists_sessions_latest_first_with_their_first_prompt(
    tmp_path: Path,
) -> None:
    root, home = tmp_path / "p", tmp_path / "h"
    root.mkdir()
    write_session(root, home, "old", "first task", 1000)
    write_session(root, home, "new", "second task", 1001)
    memory, store = stores(root, home, "lister")
    async with supervise([memory, store]):
        listed = await store.address.ask(ListSessions(limit=10))
        latest = await store.address.ask(ListSessions(limit=1))
    assert [(s.id, s.first_prompt, s.messages) for s in listed] == [
        ("new", "second task", 1),
        ("old", "first task", 1),
    ]
    assert [s.id for s in latest] == ["new"]
    # Asked only to list, the store wrote nothing of its own.
    assert not await anyio.Path(session_path(str(root), str(home), "lister")).exists()


async def test_listing_no_sessions_says_how_to_start_one(tmp_path: Path) -> None:
    root, home = tmp_path / "p", tmp_path / "h"
    root.mkdir()
    memory, store = stores(root, home, "lister")
    async with supervise([memory, store]):
        with pytest.raises(UsageError, match="no saved session") as caught:
            await store.address.ask(ListSessions(limit=1))
        assert "autoSave" in (caught.value.remedy or "")
        # The store lives on: the error was the answer, not a crash.
        assert (await store.address.ask(LoadSession())).messages == []


def test_replay_drops_restored_checkpoints_and_counts_prompts() -> None:
    before = FileBefore("/p/a.py", b"old")
    events: list[SessionEvent] = [
        SessionStarted("s", "/p", "t"),
        CheckpointTaken(Checkpoint(prompt=1, files=(before,))),
        CheckpointTaken(Checkpoint(prompt=2, commands=("make",))),
        CheckpointRestored(1),
    ]
    saved = replay("s", events)
    assert saved.checkpoints == (Checkpoint(prompt=2, commands=("make",)),)
    assert saved.prompts == 2


class Shown(Renderer):
    def __init__(self) -> None:
        self.events: list[UiEvent] = []

    async def show(self, event: UiEvent) -> None:
        self.events.append(event)


async def test_events_nobody_waits_for_are_written_in_the_order_they_came(tmp_path: Path) -> None:
    root, home = tmp_path / "p", tmp_path / "h"
    root.mkdir()
    memory, store = stores(root, home, "s2")
    path = session_path(str(root), str(home), "s2")
    async with supervise([memory, store]):
        for n in range(100):
            await store.address.tell(AppendEvents(events=(MessageAdded(user(f"m{n}")),)))
        # Answered only once written, and so is everything sent before it.
        await store.address.ask(SaveEvents(events=(MessageAdded(user("last")),)))
        saved = replay("s2", read_events(path)).messages
    assert saved == [*(user(f"m{n}") for n in range(100)), user("last")]


async def test_a_session_file_that_cannot_be_written_is_said_once_and_the_session_goes_on(
    tmp_path: Path,
) -> None:
    root, home = tmp_path / "p", tmp_path / "h"
    root.mkdir()
    path = session_path(str(root), str(home), "s3")
    os.makedirs(os.path.dirname(os.path.dirname(path)))
    await anyio.Path(os.path.dirname(path)).write_text("")  # a file where the folder goes
    options = SessionOptions(project_root=str(root), env={}, home=str(home), session_id="s3")
    memory = memory_store(options)
    shown = Shown()
    ui = ui_actor(shown)
    store = session_store(options, memory, ui=ui)
    async with supervise([memory, ui, store]):
        await store.address.tell(AppendEvents(events=(MessageAdded(user("hi")),)))
        await store.address.ask(SaveEvents(events=(MessageAdded(user("again")),)))
        await store.address.tell(AppendEvents(events=(MessageAdded(user("more")),)))
    (warning,) = shown.events
    assert isinstance(warning, Notice) and warning.level == "warning"
    assert warning.text.startswith(f"Could not save this session to {path}: ")
    assert f"Make sure {os.path.dirname(path)} is a folder you can write to" in warning.text
    assert '"autoSave": false' in warning.text


async def test_a_sessions_tokens_are_replayed_and_listed_and_a_prefix_narrows_the_list(
    tmp_path: Path,
) -> None:
    root, home = tmp_path / "p", tmp_path / "h"
    root.mkdir()
    write_session(root, home, "ab-old", "first task", 1000)
    memory, store = stores(root, home, "ab-new")
    spent = (
        UsageCounted(Usage(1000, 20, cache_read_input_tokens=300), "claude-sonnet-4-6"),
        UsageCounted(Usage(5, 4), "claude-haiku-4-5-20251001"),
    )
    async with supervise([memory, store]):
        await store.address.ask(SaveEvents(events=(MessageAdded(user("second task")), *spent)))
    path = session_path(str(root), str(home), "ab-new")
    saved = replay("ab-new", read_events(path))
    assert saved.spent == spent and saved.tokens == 1329 and saved.added == 1
    os.utime(path, (1001, 1001))

    memory, store = stores(root, home, "lister")
    async with supervise([memory, store]):
        both = await store.address.ask(ListSessions(limit=10, prefix="ab-"))
        one = await store.address.ask(ListSessions(limit=10, prefix="ab-o"))
        with pytest.raises(UsageError) as caught:
            await store.address.ask(ListSessions(limit=10, prefix="ab-x"))
    assert [(s.id, s.tokens) for s in both] == [("ab-new", 1329), ("ab-old", 0)]
    assert [s.id for s in one] == ["ab-old"]
    assert f"no saved session for {root} whose id starts with 'ab-x'" in caught.value.message
    assert "legato --resume' without an id" in (caught.value.remedy or "")


async def test_a_session_stopped_before_its_first_message_is_not_offered(tmp_path: Path) -> None:
    root, home = tmp_path / "p", tmp_path / "h"
    root.mkdir()
    write_session(root, home, "real", "a task", 1000)
    # Killed at start (or a /model, then /quit): a header and no message.
    path = session_path(str(root), str(home), "empty")
    header = {"type": "SessionStarted", "session_id": "empty", "project_root": "x", "started": "x"}
    chosen = {"type": "ModelChosen", "model": "claude-haiku-4-5"}
    await anyio.Path(path).write_text(f"{json.dumps(header)}\n{json.dumps(chosen)}\n")
    os.utime(path, (2000, 2000))  # the latest: --continue would have taken it
    memory, store = stores(root, home, "lister")
    async with supervise([memory, store]):
        listed = await store.address.ask(ListSessions(limit=10))
    assert [s.id for s in listed] == ["real"]
