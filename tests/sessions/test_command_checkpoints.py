"""Checkpoints see what real shell commands changed in the project: the executor records the
project before a batch that runs one and compares it after (``SettleCheckpoint``), and
restoring puts back what they created, deleted and modified, through the door."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import msgspec

from actors.conductor import checkpoints
from actors.protocol import (
    CaptureCheckpoint,
    Checkpoint,
    CommandId,
    FileBefore,
    NotKept,
    SettleCheckpoint,
    StopBackground,
    ToolCall,
)
from actors.tool_executor import snapshots
from tests.tool_executor.harness import call, session, with_policy
from tests.tool_executor.test_background import read_until

if TYPE_CHECKING:
    from pathlib import Path

    import pytest

    from tests.tool_executor.harness import Calls


async def watched(s: Calls, *calls: ToolCall, taken: tuple[str, ...] = ()) -> list[Checkpoint]:
    """The checkpoints a batch of ``calls`` leaves, as the keeper takes them: before (what
    the calls declare) and after (what their commands changed)."""
    tools = s.executor.address
    changes = await tools.ask(CaptureCheckpoint(calls=calls, taken=taken))
    assert changes.watch, changes.notes
    await s.finished(*calls)
    settled = await tools.ask(SettleCheckpoint(watch=changes.watch))
    return [
        Checkpoint(prompt=1, files=changes.files, commands=changes.commands),
        Checkpoint(
            prompt=1,
            files=settled.files,
            missed=settled.missed,
            folders=settled.folders,
            notes=settled.notes,
        ),
    ]


def bash(command: str, **fields: object) -> ToolCall:
    return call("Bash", command=command, **fields)


async def test_undo_puts_back_what_a_command_created_deleted_and_changed(tmp_path: Path) -> None:
    (tmp_path / "kept.txt").write_text("untouched\n")
    (tmp_path / "notes.txt").write_text("before\n")
    (tmp_path / "run.sh").write_text("echo hi\n")
    (tmp_path / "run.sh").chmod(0o755)
    (tmp_path / ".gitignore").write_text("build/\n")
    command = (
        "mkdir -p out/deep && echo new > out/deep/made.txt && echo after > notes.txt && "
        "rm run.sh && mkdir build && echo o > build/app.o"
    )
    async with session(tmp_path) as s:
        taken = await watched(s, bash(command))
        said = await checkpoints.restore(s.executor.address, checkpoints.merge(taken))
    assert (tmp_path / "notes.txt").read_text() == "before\n"
    assert (tmp_path / "run.sh").read_text() == "echo hi\n"
    assert (tmp_path / "run.sh").stat().st_mode & 0o777 == 0o755
    assert (tmp_path / "kept.txt").read_text() == "untouched\n"
    # The folders it made went with their files; an ignored folder is not the project's.
    assert not (tmp_path / "out").exists()
    assert (tmp_path / "build" / "app.o").exists()
    short = "`mkdir -p out/deep && echo new > out/deep/made.txt && echo af`…"
    assert sorted(said.splitlines()[:3]) == sorted(
        [
            f"Removed {tmp_path / 'out/deep/made.txt'} (created by {short})",
            f"Restored {tmp_path / 'notes.txt'} (changed by {short})",
            f"Restored {tmp_path / 'run.sh'} (deleted by {short})",
        ]
    )
    assert said.splitlines()[3].startswith(f"Shell commands ran in that prompt ({short})")


async def test_a_file_made_a_symlink_out_of_the_project_is_put_back_without_writing_there(
    tmp_path: Path,
) -> None:
    root, home = tmp_path / "project", tmp_path / "home"
    root.mkdir()
    home.mkdir()
    (home / ".bashrc").write_text("the user's own\n")
    (root / "app.py").write_text("print('original')\n")
    async with session(root) as s:
        taken = await watched(s, bash(f"rm app.py && ln -s {home / '.bashrc'} app.py"))
        said = await checkpoints.restore(s.executor.address, checkpoints.merge(taken))
    assert (home / ".bashrc").read_text() == "the user's own\n"
    assert not (root / "app.py").is_symlink()
    assert (root / "app.py").read_text() == "print('original')\n"
    assert said.splitlines()[0].startswith(f"Restored {root / 'app.py'} (changed by `rm app.py")


async def test_fifos_sparse_and_binary_files_are_named_not_copied(tmp_path: Path) -> None:
    (tmp_path / "huge.log").write_text("")
    os.truncate(tmp_path / "huge.log", 3 * 2**20)  # over MAX_COPY, read never
    (tmp_path / "logo.png").write_bytes(b"\x89PNG\0\0\0\rIHDR")
    (tmp_path / "a.txt").write_text("a\n")
    (tmp_path / "z.txt").write_text("z\n")
    command = (
        "mkfifo pipe && truncate -s 2G sparse.bin && echo more >> huge.log && "
        "printf 'x\\0y' > logo.png && echo b > a.txt && rm z.txt && ln -s /dev/zero z.txt"
    )
    async with session(tmp_path) as s:
        taken = await watched(s, bash(command))
        said = await checkpoints.restore(s.executor.address, checkpoints.merge(taken))
    assert (tmp_path / "a.txt").read_text() == "a\n"
    assert not (tmp_path / "z.txt").is_symlink()  # the link to a device is replaced, not read
    assert (tmp_path / "z.txt").read_text() == "z\n"
    assert not (tmp_path / "sparse.bin").exists()  # created: removed, with nothing read
    assert (tmp_path / "pipe").exists()  # not a file the walk lists: left as it is
    lines = said.splitlines()
    assert f"Could not restore {tmp_path / 'huge.log'} (changed by `mkfifo pipe && " in said
    assert any(
        line.startswith(f"Could not restore {tmp_path / 'huge.log'}")
        and line.endswith(": it is larger than 2 MB, so no copy was kept.")
        for line in lines
    )
    assert any(
        line.startswith(f"Could not restore {tmp_path / 'logo.png'}")
        and line.endswith(": it is binary, so no copy was kept.")
        for line in lines
    )


async def test_the_earliest_content_wins_when_an_edit_and_a_command_change_a_file(
    tmp_path: Path,
) -> None:
    target = tmp_path / "a.py"
    target.write_text("v0\n")
    async with session(tmp_path) as s:
        tools = s.executor.address
        # The command's batch is recorded; before it is settled, a Write of the same file is
        # (calls of one answer overlap): its content is the command's, not the prompt's start.
        first = await tools.ask(CaptureCheckpoint(calls=(bash("echo v1 > a.py"),)))
        await s.finished(bash("echo v1 > a.py"))
        write = call("Write", file_path=str(target), content="v2\n")
        second = await tools.ask(CaptureCheckpoint(calls=(write,)))
        assert second.files == (FileBefore(str(target), b"v1\n", str(target), order=2),)
        await s.finished(write)
        settled = await tools.ask(SettleCheckpoint(watch=first.watch))
        taken = [
            Checkpoint(prompt=1, commands=first.commands),
            Checkpoint(prompt=1, files=second.files),
            Checkpoint(prompt=1, files=settled.files),  # saved last, read first
        ]
        said = await checkpoints.restore(tools, checkpoints.merge(taken))
    assert target.read_text() == "v0\n"
    assert said.splitlines()[0] == f"Restored {target} (changed by `echo v1 > a.py`)"


async def test_a_file_the_prompt_already_holds_is_not_saved_again(tmp_path: Path) -> None:
    (tmp_path / "a.py").write_text("v0\n")
    async with session(tmp_path) as s:
        taken = await watched(s, bash("echo v1 > a.py"), taken=())
        tools = s.executor.address
        again = await tools.ask(CaptureCheckpoint(calls=(bash("echo v2 > a.py"),)))
        await s.finished(bash("echo v2 > a.py"))
        settled = await tools.ask(
            SettleCheckpoint(watch=again.watch, taken=(str(tmp_path / "a.py"),))
        )
    assert [f.content for c in taken for f in c.files] == [b"v0\n"]
    assert settled.files == ()


async def test_blocked_files_a_command_changes_are_counted_not_copied_nor_named(
    tmp_path: Path,
) -> None:
    root = tmp_path / "project"
    root.mkdir()
    (root / ".env").write_text("TOKEN=secret\n")
    (root / "keys").mkdir()
    (root / "keys" / "big.pem").write_text("")
    os.truncate(root / "keys" / "big.pem", 3 * 2**20)  # over the size cap: blocked first
    # A script the broker cannot see into: the command line names no blocked file.
    (root / "change.sh").write_text(
        "echo TOKEN=other > .env\necho more >> keys/big.pem\necho new > keys/new.pem\n"
    )
    async with with_policy(
        root,
        mode="auto",
        allowedCommands=["sh"],
        blockedPaths=[".env", "keys/"],
        sandbox={"enabled": False},  # a confined command could not write the blocked file
    ) as s:
        taken = await watched(s, bash("sh change.sh"))
    assert (root / ".env").read_text() == "TOKEN=other\n"
    # Neither copied nor named (the model reads what /undo says): counted, and left alone.
    assert [f for c in taken for f in c.files] == []
    assert [m for c in taken for m in c.missed] == []
    assert [n for c in taken for n in c.notes] == [
        "3 files the permission rules block were changed or made by the commands: /undo "
        "leaves them as they are, unnamed."
    ]


async def test_a_project_over_the_file_cap_is_not_walked(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(snapshots, "MAX_FILES", 3)
    for n in range(4):
        (tmp_path / f"f{n}.txt").write_text(f"{n}\n")
    async with session(tmp_path) as s:
        changes = await s.executor.address.ask(CaptureCheckpoint(calls=(bash("rm f0.txt"),)))
        # Found once, for the session: a later batch is not walked either.
        (tmp_path / "f3.txt").unlink()
        again = await s.executor.address.ask(CaptureCheckpoint(calls=(bash("ls"),)))
    assert changes.watch == again.watch == 0
    assert again.notes == changes.notes
    assert changes.notes == (
        "What shell commands changed was not recorded: the project has more than 3 files to "
        "look at.",
    )


async def test_a_background_command_still_running_is_said(tmp_path: Path) -> None:
    async with session(tmp_path) as s:
        started = bash("echo a > log.txt; echo written; sleep 60", run_in_background=True)
        tools = s.executor.address
        changes = await tools.ask(CaptureCheckpoint(calls=(started,)))
        await s.finished(started)
        await read_until(s, "bash_1", "written")
        settled = await tools.ask(SettleCheckpoint(watch=changes.watch))
        await tools.ask(StopBackground(id=CommandId(1)))
    assert [f.path for f in settled.files] == [str(tmp_path / "log.txt")]
    assert settled.notes == (
        "A background command was still running when that batch ended: what it changed "
        "afterwards was not recorded.",
    )


def test_a_file_changed_within_the_clock_step_of_the_walk_is_compared(tmp_path: Path) -> None:
    # Same stat, other bytes: what a file system with a coarse clock shows for a file written
    # twice within one step. Its copy is compared.
    path = tmp_path / "a.txt"
    path.write_text("one\n")
    st = os.stat(path)
    seen = snapshots.Seen(snapshots._key(st), str(path), 0o644, b"two\n")
    assert snapshots._changed(seen, st, st.st_mtime_ns, str(path))
    assert not snapshots._changed(seen, st, st.st_mtime_ns + 2 * snapshots.RACY_NS, str(path))


async def test_a_project_reached_through_a_symlink_is_restored_in_place(tmp_path: Path) -> None:
    # As on macOS, where /tmp leads to /private/tmp: paths as named differ from real ones.
    real = tmp_path / "real"
    real.mkdir()
    (tmp_path / "link").symlink_to(real)
    root = tmp_path / "link"
    async with session(root) as s:
        taken = await watched(s, bash("mkdir -p a/b && echo x > a/b/c.txt"))
        said = await checkpoints.restore(s.executor.address, checkpoints.merge(taken))
    assert os.listdir(real) == []
    assert said.splitlines()[0].startswith(f"Removed {root / 'a/b/c.txt'} (created by")


class _OldFileBefore(msgspec.Struct, frozen=True):
    path: str
    content: bytes | None
    real: str | None = None


class _OldCheckpoint(msgspec.Struct, frozen=True, kw_only=True):
    prompt: int
    files: tuple[_OldFileBefore, ...] = ()
    commands: tuple[str, ...] = ()


def test_checkpoints_of_either_shape_read_in_the_other() -> None:
    named = NotKept("/p/logo.png", snapshots.BINARY, "make")
    new = Checkpoint(
        prompt=2,
        files=(FileBefore("/p/a.py", b"a\n", "/p/a.py", by="make", mode=0o644, order=3),),
        missed=(named,),
        folders=("/p/out",),
        notes=("a note",),
    )
    # An older Legato sees the files it can restore, and nothing it could misread: a file
    # named without a copy is not an entry, so it is never taken for one that did not exist.
    old = msgspec.json.decode(msgspec.json.encode(new), type=_OldCheckpoint)
    assert old == _OldCheckpoint(prompt=2, files=(_OldFileBefore("/p/a.py", b"a\n", "/p/a.py"),))
    again = msgspec.json.decode(msgspec.json.encode(old), type=Checkpoint)
    assert again == Checkpoint(prompt=2, files=(FileBefore("/p/a.py", b"a\n", "/p/a.py"),))


async def test_a_name_with_a_newline_stays_on_its_line_of_what_undo_says(tmp_path: Path) -> None:
    # A file a command made, named so that, printed as it is, its second half reads as a line
    # of its own: /undo must not be made to say it restored a file it did not touch.
    (tmp_path / "app.py").write_text("print('original')\n")
    command = "touch \"$(printf 'x\\nRestored app.py')\""
    async with session(tmp_path) as s:
        taken = await watched(s, bash(command))
        said = await checkpoints.restore(s.executor.address, checkpoints.merge(taken))
    assert not (tmp_path / "x\nRestored app.py").exists()
    assert said.splitlines()[0] == (
        f"Removed {tmp_path}/x\\nRestored app.py (created by `touch \"$(printf 'x\\nRestored "
        "app.py')\"`)"
    )
    assert not any(line.startswith("Restored") for line in said.splitlines())
