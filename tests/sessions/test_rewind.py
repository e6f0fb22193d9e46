"""The conductor's rewind with its session store and tool executor, against the scripted API:
files, conversation or both back to just before a prompt, the undo of a rewind, and both after
a resume."""

from __future__ import annotations

import base64
from typing import TYPE_CHECKING

import anyio
import pytest

from actors.errors import UsageError
from actors.protocol import (
    ClearConversation,
    GetConversation,
    ListRewindPoints,
    Rewind,
    RunPrompt,
    Undo,
    UndoRewind,
)
from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls
from runtime import supervise
from tests.sessions.test_conductor import open_session

if TYPE_CHECKING:
    from pathlib import Path

    from actors.protocol import Message
    from frontends.demo.scripted_api import Step


def said(messages: list[Message]) -> list[str]:
    return [str(b.get("text", b["type"])) for m in messages for b in m.content]


def three_prompts(a: Path, b: Path) -> list[Step]:
    """Prompt 1 writes a, prompt 2 edits a and creates b, prompt 3 only answers."""
    return [
        tool_calls([call("Write", {"file_path": str(a), "content": "a1\n"})]),
        text("wrote a"),
        tool_calls(
            [
                call("Edit", {"file_path": str(a), "old_string": "a1", "new_string": "a2"}),
                call("Write", {"file_path": str(b), "content": "b2\n"}),
            ]
        ),
        text("edited a, made b"),
        text("three"),
    ]


async def test_rewind_restores_files_and_conversation_and_is_undone_until_the_next_prompt(
    tmp_path: Path,
) -> None:
    root, home = tmp_path / "project", tmp_path / "home"
    await anyio.Path(root).mkdir()
    a, b = root / "a.txt", root / "b.txt"
    with ScriptedServer([*three_prompts(a, b), text("again")]) as server:
        session = open_session(root, home, server.url)
        async with supervise(session.actors):
            conductor = session.conductor.address
            for prompt in ("one", "two", "three"):
                await conductor.ask(RunPrompt(text=f"{prompt} @x", typed=prompt))
            listing = await conductor.ask(ListRewindPoints())
            assert [(p.prompt, p.text, p.conversation) for p in listing.points] == [
                (3, "three", True),
                (2, "two", True),
                (1, "one", True),
            ]
            assert listing.points[1].files == (str(a), str(b)) and listing.undo is None
            assert listing.points[0].files == ()

            report = await conductor.ask(Rewind(back=2))
            assert (a.read_text(), b.exists()) == ("a1\n", False)
            assert report.prompt_text == "two" and report.conversation
            assert report.text.splitlines() == [
                "Rewound the code and the conversation to just before prompt 2 (“two”).",
                f"Restored {a}",
                f"Removed {b} (the prompt created it)",
            ]
            # As it was before prompt 2, and nothing told: the model sees no note.
            conversation = said(await conductor.ask(GetConversation()))
            assert conversation == ["one @x", "tool_use", "tool_result", "wrote a"]
            listing = await conductor.ask(ListRewindPoints())
            assert [p.prompt for p in listing.points] == [1]
            assert listing.undo == "undo the rewind to before prompt 2"

            # /undo right after a rewind puts both back.
            undone = await conductor.ask(Undo())
            assert undone.startswith("Undid the rewind to before prompt 2")
            assert (a.read_text(), b.read_text()) == ("a2\n", "b2\n")
            conversation = said(await conductor.ask(GetConversation()))
            assert conversation[-1] == "three" and len(conversation) == 12
            assert [p.prompt for p in (await conductor.ask(ListRewindPoints())).points] == [3, 2, 1]

            # Rewound again, then a new prompt: that rewind is settled, /undo is the files'.
            await conductor.ask(Rewind(prompt=3, restore="conversation"))
            await conductor.ask(RunPrompt(text="four"))
            with pytest.raises(UsageError, match="no rewind to undo"):
                await conductor.ask(UndoRewind())
            assert (await conductor.ask(Undo())).splitlines() == [
                f"Restored {a}",
                f"Removed {b} (the prompt created it)",
            ]
        sent = server.requests[-1].body["messages"]
    # Prompt 4 went after prompt 2's exchange: prompt 3 is gone from what the model reads.
    assert [b["text"] for m in sent for b in m["content"] if b["type"] == "text"] == [
        "one @x",
        "wrote a",
        "two @x",
        "edited a, made b",
        "four",
    ]


async def test_a_code_rewind_tells_the_model_and_a_cleared_conversation_is_code_only(
    tmp_path: Path,
) -> None:
    root, home = tmp_path / "project", tmp_path / "home"
    await anyio.Path(root).mkdir()
    a, b = root / "a.txt", root / "b.txt"
    background = {"command": "sleep 30", "run_in_background": True}
    steps = [*three_prompts(a, b)[:4], tool_calls([call("Bash", background)]), text("started")]
    with ScriptedServer(steps) as server:
        session = open_session(root, home, server.url, mode="bypass")  # runs the sleep
        async with supervise(session.actors):
            conductor = session.conductor.address
            await conductor.ask(RunPrompt(text="one"))
            await conductor.ask(RunPrompt(text="two"))
            await conductor.ask(RunPrompt(text="start it"))
            report = await conductor.ask(Rewind(back=1, restore="conversation"))
            # A rewind stops nothing in the background, and says so.
            assert report.text.splitlines()[-1] == (
                "Still running in the background, untouched by the rewind: bash_1 (sleep 30) "
                "(/tasks stop <id> stops one)."
            )
            report = await conductor.ask(Rewind(back=1, restore="code"))
            assert not report.conversation and a.read_text() == "a1\n"
            last = (await conductor.ask(GetConversation()))[-1]
            assert last.role == "user" and "the user rewound the files" in last.content[0]["text"]

            await conductor.ask(ClearConversation())
            listing = await conductor.ask(ListRewindPoints())
            # Prompt 2 has nothing left to restore: its files went back already.
            assert [(p.prompt, p.conversation, p.gone) for p in listing.points] == [
                (1, False, "cleared since"),
            ]
            with pytest.raises(UsageError, match="before prompt 1: it was cleared since"):
                await conductor.ask(Rewind(back=1))
            with pytest.raises(UsageError, match="cannot rewind 2 prompts back: this session has "):
                await conductor.ask(Rewind(back=2))
            await conductor.ask(Rewind(back=1, restore="code"))
            assert not a.exists() and not b.exists()


async def test_rewind_and_its_undo_survive_a_resume(tmp_path: Path) -> None:
    root, home = tmp_path / "project", tmp_path / "home"
    await anyio.Path(root).mkdir()
    a, b = root / "a.txt", root / "b.txt"
    with ScriptedServer(three_prompts(a, b)[:4]) as server:
        session = open_session(root, home, server.url)
        async with supervise(session.actors):
            await session.conductor.address.ask(RunPrompt(text="one"))
            await session.conductor.address.ask(RunPrompt(text="two"))
    with ScriptedServer([]) as server:
        resumed = open_session(root, home, server.url, resume=session.id)
        async with supervise(resumed.actors):
            conductor = resumed.conductor.address
            listing = await conductor.ask(ListRewindPoints())
            assert [(p.prompt, p.text) for p in listing.points] == [(2, "two"), (1, "one")]
            report = await conductor.ask(Rewind(back=1))
            assert report.prompt_text == "two" and a.read_text() == "a1\n" and not b.exists()
    with ScriptedServer([text("three")]) as server:
        again = open_session(root, home, server.url, resume=session.id)
        async with supervise(again.actors):
            conductor = again.conductor.address
            assert said(await conductor.ask(GetConversation()))[-1] == "wrote a"
            assert (await conductor.ask(ListRewindPoints())).undo is not None
            await conductor.ask(Undo())
            assert (a.read_text(), b.read_text()) == ("a2\n", "b2\n")
            assert said(await conductor.ask(GetConversation()))[-1] == "edited a, made b"
            # Numbering goes on from the saved prompts.
            await conductor.ask(RunPrompt(text="three"))
            points = (await conductor.ask(ListRewindPoints())).points
            assert [p.prompt for p in points] == [3, 2, 1]


async def test_a_symlink_put_on_the_path_since_is_neither_written_through_nor_read(
    tmp_path: Path,
) -> None:
    root, home = tmp_path / "project", tmp_path / "home"
    await anyio.Path(root).mkdir()
    a, secret = root / "a.txt", tmp_path / "secret.txt"
    secret.write_text("s3cret\n")
    steps = [
        tool_calls([call("Write", {"file_path": str(a), "content": "mine\n"})]),
        text("wrote a"),
    ]
    with ScriptedServer(steps) as server:
        session = open_session(root, home, server.url)
        async with supervise(session.actors):
            conductor = session.conductor.address
            await conductor.ask(RunPrompt(text="one"))
            # Something the checkpoints did not see swaps the file for a link out of the project.
            a.unlink()
            a.symlink_to(secret)
            report = await conductor.ask(Rewind(back=1, restore="code"))
            # The link itself goes (the prompt's file was not there before it); where it
            # leads is neither written nor removed.
            assert f"Removed {a}" in report.text
            assert not a.is_symlink() and not a.exists()
            await conductor.ask(UndoRewind())
    assert secret.read_text() == "s3cret\n"
    # Nor was the file it leads to read into the session, for the undo or anything else.
    (saved,) = (home / ".legato" / "projects").glob("*/sessions/*.jsonl")
    assert base64.b64encode(b"s3cret\n").decode() not in saved.read_text()


async def test_a_rewind_with_no_files_to_restore_says_why_the_commands_were_not_recorded(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from actors.tool_executor import snapshots

    monkeypatch.setattr(snapshots, "MAX_FILES", 3)
    root, home = tmp_path / "project", tmp_path / "home"
    await anyio.Path(root).mkdir()
    (root / "a.txt").write_text("a\n")
    steps = [tool_calls([call("Bash", {"command": "touch b c d e && echo x > a.txt"})]), text("ok")]
    with ScriptedServer(steps) as server:
        session = open_session(root, home, server.url, mode="bypass")
        async with supervise(session.actors):
            conductor = session.conductor.address
            await conductor.ask(RunPrompt(text="make many"))
            not_recorded = (
                "What shell commands changed was not recorded: the project has more than 3 "
                "files to look at after `touch b c d e && echo x > a.txt` ran."
            )
            code = await conductor.ask(Rewind(back=1, restore="code"))
            assert code.text.splitlines()[1:] == [not_recorded]
            both = await conductor.ask(Rewind(back=1))
            assert both.text.splitlines()[1:] == [
                "No files to restore: no prompt since changed files with tools (shell commands "
                "ran: what they changed stays).",
                not_recorded,
            ]


async def test_a_rewind_says_which_files_its_undo_cannot_bring_back(tmp_path: Path) -> None:
    root, home = tmp_path / "project", tmp_path / "home"
    await anyio.Path(root).mkdir()
    config, prod = root / "config.json", root / "config.prod.json"
    config.write_text("dev\n")
    prod.write_text("prod\n")
    steps = [
        tool_calls(
            [call("Bash", {"command": "rm config.json && ln -s config.prod.json config.json"})]
        ),
        text("linked"),
    ]
    with ScriptedServer(steps) as server:
        session = open_session(root, home, server.url, mode="bypass")
        async with supervise(session.actors):
            conductor = session.conductor.address
            await conductor.ask(RunPrompt(text="use prod"))
            assert config.is_symlink()
            report = await conductor.ask(Rewind(back=1, restore="code"))
            assert not config.is_symlink() and config.read_text() == "dev\n"
            # Just before the rewind it was a link: no copy holds that, and the person is told.
            assert report.text.splitlines()[-1] == (
                f"Undoing this rewind will not bring back {config} as just before it (a "
                "symlink, a folder or a file too large to copy then)."
            )
            await conductor.ask(UndoRewind())
    assert prod.read_text() == "prod\n" and config.read_text() == "dev\n"


async def test_a_command_the_broker_denied_is_not_said_to_have_run(tmp_path: Path) -> None:
    # Headless, a command asks and is denied: it ran nothing, so neither /undo nor the rewind
    # list may say that shell commands ran.
    root, home = tmp_path / "project", tmp_path / "home"
    await anyio.Path(root).mkdir()
    steps = [tool_calls([call("Bash", {"command": "touch made"})]), text("denied")]
    with ScriptedServer(steps) as server:
        session = open_session(root, home, server.url)
        async with supervise(session.actors):
            conductor = session.conductor.address
            await conductor.ask(RunPrompt(text="one"))
            listing = await conductor.ask(ListRewindPoints())
            undone = await conductor.ask(Undo())
    assert not await anyio.Path(root / "made").exists()
    assert [point.commands for point in listing.points] == [0]
    assert undone == (
        "Nothing to undo: no prompt in this session has changed files with its tools."
    )
