"""Killed outright mid-batch, Legato leaves every file wholly old or wholly new.

SIGKILL gives no chance to clean up, so this kills the real ``legato`` process while a batch of
large writes is landing, and reads every file afterwards. A temporary file may be left beside
the file being written at that instant; it carries its writer's pid, and the next write of that
file removes it.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from typing import TYPE_CHECKING

import anyio

from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls
from tests.cancellation.harness import surviving
from tests.frontends.conftest import REPO
from tests.tool_executor.harness import session

if TYPE_CHECKING:
    from pathlib import Path

    from tests.frontends.conftest import Project

FILES = 6
SIZE = 64 * 1024  # the model streams each in 16-character pieces: larger only costs time


def old(index: int) -> str:
    return f"old content of file {index}\n" * (SIZE // 25)


def new(index: int) -> str:
    return f"NEW CONTENT OF FILE {index}!\n" * (SIZE // 25)


def test_sigkill_in_the_middle_of_large_writes_leaves_no_partial_file(project: Project) -> None:
    paths = [project.write(f"data/file_{i}.txt", old(i)) for i in range(FILES)]
    project.settings(permissionMode="custom", allowedPaths=["**"])
    reads = [call("Read", {"file_path": str(path), "limit": 1}) for path in paths]
    writes = [
        call("Write", {"file_path": str(path), "content": new(i)}) for i, path in enumerate(paths)
    ]
    steps = [tool_calls(reads), tool_calls(writes), text("Rewrote them all.")]
    with ScriptedServer(steps) as server:
        process = subprocess.Popen(
            [sys.executable, "-c", "from frontends.cli import main; main()", str(project.root),
             "--headless", "rewrite the data files"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=REPO,
            env=project.env(server.url),
        )  # fmt: skip
        # Kill the moment the first file has changed: the rest of the batch is in flight.
        deadline = time.monotonic() + 30
        while not any(path.read_text() != old(i) for i, path in enumerate(paths)):
            assert process.poll() is None, "legato ended before any write landed"
            assert time.monotonic() < deadline, "no write landed within 30 s"
            time.sleep(0.001)
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)
    contents = [path.read_text() for path in paths]
    torn = [i for i, content in enumerate(contents) if content not in (old(i), new(i))]
    assert torn == [], f"files {torn} are neither wholly old nor wholly new"
    assert any(content == new(i) for i, content in enumerate(contents))
    print(f"after SIGKILL: {sum(c == new(i) for i, c in enumerate(contents))}/{FILES} new")


async def test_a_write_removes_what_a_killed_writer_left(tmp_path: Path) -> None:
    target = tmp_path / "notes.txt"
    dead = await anyio.open_process(["true"])
    await dead.wait()
    assert surviving([dead.pid]) == []
    orphan = tmp_path / f".notes.txt.{dead.pid}-0badcafe.legato-tmp"
    orphan.write_text("half a file")
    # A live writer's file (this process stands in for another running Legato) is left alone,
    # and so are other files' leftovers.
    busy = tmp_path / f".notes.txt.{os.getpid()}-0badcafe.legato-tmp"
    busy.write_text("being written")
    other = tmp_path / f".other.txt.{dead.pid}-0badcafe.legato-tmp"
    other.write_text("another file's")
    async with session(tmp_path) as s:
        done = await s.one("Write", file_path=str(target), content="whole\n")
    assert not done.result.is_error, done.result.content
    assert sorted(name for name in os.listdir(tmp_path) if name.endswith(".legato-tmp")) == [
        busy.name,
        other.name,
    ]
