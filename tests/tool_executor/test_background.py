"""Commands in the background, through the executor and real processes: Bash starts one and
returns at once; TaskOutput reads what is new and how it stands; TaskStop, the timeout and the
session's end stop its whole process group; each end is told to the model once.

The commands wait for files the test writes, and the test waits for what they print, so
nothing depends on how fast the machine is; ``fail_after`` bounds are safety nets.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING

import anyio
import pytest

from actors.protocol import (
    CommandId,
    InterruptTools,
    ListBackground,
    RunTools,
    StopBackground,
    TakeBackgroundNews,
    ToolFinished,
    ToolStarted,
)
from actors.tool_executor.background import KEPT_ENDED
from actors.tool_executor.schemas import DEFAULT_WAIT_MS
from actors.tool_executor.spool import Spool
from actors.tool_routes import parse_job_id
from tests.tool_executor.harness import call, running_in, session, with_policy
from tests.tool_executor.sandbox_setup import needs_bwrap

if TYPE_CHECKING:
    from pathlib import Path

    from tests.tool_executor.harness import Calls

WAIT_FOR = "while [ ! -e {0} ]; do sleep 0.01; done"


async def start(s: Calls, command: str, **fields: object) -> str:
    done = await s.one("Bash", command=command, run_in_background=True, **fields)
    assert not done.result.is_error, done.result.content
    found = re.search(r"with ID: (bash_\d+)", done.result.content)
    assert found, done.result.content
    return found.group(1)


async def read(s: Calls, task_id: str, **fields: object) -> str:
    done = await s.one("TaskOutput", task_id=task_id, block=False, **fields)
    assert not done.result.is_error, done.result.content
    return done.result.content


async def read_until(s: Calls, task_id: str, wanted: str, **fields: object) -> str:
    """Read until ``wanted`` has come; returns everything the reads gave, joined."""
    seen = ""
    with anyio.fail_after(20):
        while wanted not in seen:
            seen += await read(s, task_id, **fields) + "\n"
            if wanted not in seen:
                await anyio.sleep(0.01)
    return seen


async def until_ended(s: Calls, task_id: str) -> None:
    with anyio.fail_after(20):
        while True:
            listing = await s.executor.address.ask(ListBackground())
            if next(c for c in listing if c.id == task_id).state != "running":
                return
            await anyio.sleep(0.01)


async def test_the_call_returns_at_once_and_reads_give_only_new_output(tmp_path: Path) -> None:
    go, end = tmp_path / "go", tmp_path / "end"
    command = f"echo one; {WAIT_FOR.format(go)}; echo two; {WAIT_FOR.format(end)}; echo three"
    async with session(tmp_path) as s:
        events = await s.events(call("Bash", command=command, run_in_background=True))
        [started] = [e for e in events if isinstance(e, ToolStarted)]
        assert started.summary == f"{command} · in the background"
        [done] = [e for e in events if isinstance(e, ToolFinished)]
        assert done.result.content.startswith("Command running in the background with ID: bash_1")
        task_id = "bash_1"  # it waits for files nobody wrote yet: the call returned
        first = await read_until(s, task_id, "one")
        assert "bash_1: running for" in first
        go.touch()
        second = await read_until(s, task_id, "two")
        assert "one" not in second  # read before: not given again
        end.touch()
        done = await s.one("TaskOutput", task_id=task_id)  # block: waits for its end
        assert re.match(
            r"bash_1: exited with code 0 after \d+\.\d s\.\nthree$", done.result.content
        )
        again = await read(s, task_id)
        assert again.endswith("(no new output)")
        # The model saw the end in a read: no note for it at the next turn.
        assert await s.executor.address.ask(TakeBackgroundNews()) == ()


async def test_a_background_command_asks_permission_as_a_foreground_one(tmp_path: Path) -> None:
    async with session(tmp_path, deny=lambda request: "commands are blocked") as s:
        done = await s.one("Bash", command="touch ran", run_in_background=True)
        assert done.result.denied
        assert s.broker.requests[0].command == "touch ran"
        assert await s.executor.address.ask(ListBackground()) == ()
    assert not (tmp_path / "ran").exists()


async def test_a_blocking_read_gives_up_at_its_timeout(tmp_path: Path) -> None:
    async with session(tmp_path) as s:
        task_id = await start(s, "echo up; sleep 300")
        await read_until(s, task_id, "up")
        done = await s.one("TaskOutput", task_id=task_id, timeout=50)  # block is the default
        assert done.result.content.startswith("bash_1: running for ")
        assert done.result.content.endswith("(no new output)")
        assert done.elapsed >= 0.05
        at_once = await s.one("TaskOutput", task_id=task_id, timeout=0)
        assert at_once.result.content.startswith("bash_1: running for ")
        # Returned without the default wait: a call that waited it out would report at least it.
        assert at_once.elapsed < DEFAULT_WAIT_MS / 1000


async def test_a_filter_keeps_the_matching_lines(tmp_path: Path) -> None:
    async with session(tmp_path) as s:
        task_id = await start(s, "printf 'ok 1\\nFAIL 2\\nok 3\\nFAIL 4\\n'")
        await until_ended(s, task_id)
        content = await read(s, task_id, filter="^FAIL")
        assert content.splitlines()[1:] == [
            "[2 of 4 new lines match the filter]",
            "FAIL 2",
            "FAIL 4",
        ]
        bad = await s.one("TaskOutput", task_id=task_id, filter="(")
        assert bad.result.is_error
        assert "filter '('" in bad.result.content


async def test_the_model_stops_a_command_and_every_process_it_started(tmp_path: Path) -> None:
    command = "sleep 300 & (trap '' TERM; exec sleep 301) & echo up; wait"
    async with session(tmp_path) as s:
        task_id = await start(s, command)
        await read_until(s, task_id, "up")
        assert len(running_in(tmp_path)) >= 3  # bash and the two sleeps
        stopped = await s.one("TaskStop", task_id=task_id)
        assert not stopped.result.is_error
        assert "killed by the model" in stopped.result.content
        assert running_in(tmp_path) == []
        again = await s.one("TaskStop", task_id=task_id)
        assert again.result.content.startswith("Nothing to stop: bash_1: killed by the model")
        assert await s.executor.address.ask(TakeBackgroundNews()) == ()  # the model knows


async def test_an_ended_command_is_told_at_the_next_turn_once(tmp_path: Path) -> None:
    async with session(tmp_path) as s:
        task_id = await start(s, "echo bye; exit 3")
        await until_ended(s, task_id)
        news = await s.executor.address.ask(TakeBackgroundNews())
        assert news == (
            f"Background command {task_id} ('echo bye; exit 3') has ended: exited with code 3 "
            f"after {news[0].split(' after ')[1].split(' s.')[0]} s. Read its last output with "
            "TaskOutput.",
        )
        assert await s.executor.address.ask(TakeBackgroundNews()) == ()
        assert (await read(s, task_id)).endswith("bye")  # the output is still there to read


async def test_the_person_stops_a_command_and_the_model_hears_of_it(tmp_path: Path) -> None:
    async with session(tmp_path) as s:
        task_id = await start(s, "echo started; sleep 300")
        await read_until(s, task_id, "started")
        [listed] = await s.executor.address.ask(ListBackground())
        assert (listed.id, listed.state, listed.last_line) == (task_id, "running", "started")
        command = parse_job_id(task_id)
        assert isinstance(command, CommandId)
        said = await s.executor.address.ask(StopBackground(id=command))
        assert said.startswith(f"Stopped {task_id}, with every process it started: killed by")
        assert running_in(tmp_path) == []
        [news] = await s.executor.address.ask(TakeBackgroundNews())
        assert "killed by the user" in news
        unknown = await s.executor.address.ask(StopBackground(id=CommandId(9)))
        assert unknown == "No background command 'bash_9'; the ids are: bash_1."


async def test_a_timeout_stops_a_background_command(tmp_path: Path) -> None:
    async with session(tmp_path) as s:
        task_id = await start(s, "echo started; sleep 300", timeout=300)
        await until_ended(s, task_id)
        content = await read(s, task_id)
        assert "timed out after" in content
        assert running_in(tmp_path) == []


async def test_the_output_spills_to_a_private_file_past_the_buffer(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    async with session(project, background_buffer=1000) as s:
        task_id = await start(s, "seq 1 3000")
        await until_ended(s, task_id)
        content = await read(s, task_id)
        found = re.search(
            r"\[(\d+) bytes of new output are left out here; the whole output is in (\S+)\]",
            content,
        )
        assert found, content
        path = found.group(2)
        assert not path.startswith(str(project))
        whole = "".join(f"{n}\n" for n in range(1, 3001))
        assert await anyio.Path(path).read_text() == whole
        assert os.stat(os.path.dirname(path)).st_mode & 0o077 == 0  # the user's alone
        shown = content.split("]\n", 1)[1]
        assert whole.endswith(shown + "\n")
        assert len(shown) < 1000
        assert int(found.group(1)) + len(shown) + 1 == len(whole)
        again = await read(s, task_id)
        assert again.splitlines()[1:] == [
            f"[the whole output is also in {path}]",
            "(no new output)",
        ]
    assert not await anyio.Path(path).exists()  # the session's files go with it


async def test_the_session_end_stops_every_background_command(tmp_path: Path) -> None:
    # Bounded below the supervisor's grace (5 s): the end does not wait for the commands.
    with anyio.fail_after(4):
        async with session(tmp_path) as s:
            task_id = await start(s, "sleep 300 & (trap '' TERM; exec sleep 301) & echo up; wait")
            await read_until(s, task_id, "up")
            assert len(running_in(tmp_path)) >= 3
    assert running_in(tmp_path) == []


async def test_an_interrupt_stops_the_turns_calls_not_background_commands(tmp_path: Path) -> None:
    async with session(tmp_path) as s:
        task_id = await start(s, "echo up; sleep 300")
        await read_until(s, task_id, "up")
        foreground = call("Bash", command="sleep 302")
        async with s.executor.address.stream(RunTools(calls=(foreground,))) as events:
            async for event in events:
                if isinstance(event, ToolStarted):
                    await s.executor.address.tell(InterruptTools(ids=(foreground.id,)))
                elif isinstance(event, ToolFinished):
                    assert "Interrupted" in event.result.content
        [listed] = await s.executor.address.ask(ListBackground())
        assert listed.state == "running"


async def test_an_unknown_id_names_the_known_ones(tmp_path: Path) -> None:
    async with session(tmp_path) as s:
        done = await s.one("TaskOutput", task_id="bash_7")
        assert done.result.is_error
        assert "No background command 'bash_7'" in done.result.content
        assert "none has been started in this session" in done.result.content


async def test_more_than_the_limit_fails_clearly(tmp_path: Path) -> None:
    async with with_policy(tmp_path, mode="auto", answers=["y"] * 4, maxBackgroundCommands=2) as s:
        for _ in range(2):
            await start(s, "sleep 300")
        done = await s.one("Bash", command="sleep 301", run_in_background=True)
        assert done.result.is_error
        assert done.result.content == (
            "2 background commands are running (bash_1, bash_2), as many as "
            "maxBackgroundCommands allows (2).\n  → Stop one with TaskStop, wait for one to "
            "end, or raise maxBackgroundCommands in .legato/settings.json"
        )


@needs_bwrap
async def test_a_confined_background_command_cannot_write_outside_the_project(
    tmp_path: Path,
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    outside = tmp_path / "outside.txt"
    async with with_policy(project, answers=["y"]) as s:
        task_id = await start(s, f"echo hi > {outside}")
        await until_ended(s, task_id)
        assert (
            "has ended: exited with code 1"
            in (await s.executor.address.ask(TakeBackgroundNews()))[0]
        )
        content = await read(s, task_id)  # after the note: the reasons still come, once
        again = await read(s, task_id)
    assert "refused" not in again
    assert "exited with code 1" in content, content
    assert f"The sandbox refused '{outside}': it is outside the places commands may write" in (
        content
    )
    assert not outside.exists()


def test_output_stays_in_memory_when_no_file_can_be_made(tmp_path: Path) -> None:
    spool = Spool(8, lambda: str(tmp_path / "gone" / "bash_1.log"))
    spool.feed(b"0123456789abcdefghij")
    assert spool.path is None
    assert spool.unspillable == "No such file or directory"
    chunk = spool.read(0, final=True)
    assert (chunk.data, chunk.skipped, chunk.end) == (b"cdefghij", 12, 20)


def test_a_read_never_cuts_a_character() -> None:
    spool = Spool(8, lambda: pytest.fail("no spill below the buffer"))
    spool.feed("é".encode()[:1])
    chunk = spool.read(0, final=False)
    assert (chunk.data, chunk.end) == (b"", 0)  # held back until its second byte comes
    spool.feed("é".encode()[1:] + b"x")
    chunk = spool.read(chunk.end, final=False)
    assert chunk.data.decode() == "éx"


async def test_the_question_for_a_background_command_says_so(tmp_path: Path) -> None:
    async with with_policy(tmp_path, answers=["y", "y"]) as s:
        task_id = await start(s, "echo in the background")
        await s.one("Bash", command="echo in the foreground")
        await read_until(s, task_id, "exited")
        assert s.person is not None
        background, foreground = s.person.asked[:2]
    assert (background.request.background, foreground.request.background) == (True, False)


async def test_a_call_after_a_blocking_task_output_runs_without_waiting_for_it(
    tmp_path: Path,
) -> None:
    # TaskOutput asks nobody: the calls after it must not wait for its end to take their turn
    # at the permission broker (they would sit behind a wait of minutes).
    gate = tmp_path / "gate"
    (tmp_path / "a.txt").write_text("x\n")
    async with session(tmp_path) as s:
        task_id = await start(s, WAIT_FOR.format(gate))
        waiting = call("TaskOutput", task_id=task_id)  # block: until the command ends
        reading = call("Read", file_path=str(tmp_path / "a.txt"))
        order: list[str] = []
        with anyio.fail_after(20):
            calls = RunTools(calls=(waiting, reading))
            async with s.executor.address.stream(calls) as stream:
                async for event in stream:
                    if isinstance(event, ToolFinished):
                        order.append(event.result.tool_use_id)
                        gate.touch()  # only once the Read is done does the command end
    assert order == [reading.id, waiting.id]


async def test_a_long_session_keeps_only_the_newest_ended_commands(tmp_path: Path) -> None:
    # Each ended command holds its output in memory: a session that starts thousands must
    # not hold thousands of them. The newest stay readable; none is dropped before the model
    # has heard of its end.
    count = KEPT_ENDED + 5
    async with session(tmp_path) as s:
        ids = []
        for n in range(count):
            ids.append(await start(s, f"echo output {n}"))
            await until_ended(s, ids[-1])
            await s.executor.address.ask(TakeBackgroundNews())
        untold = await start(s, "echo untold")
        await until_ended(s, untold)
        await start(s, "echo last")  # starting one is when the old ones go
        listing = await s.executor.address.ask(ListBackground())
        assert [c.id for c in listing] == [*ids[-KEPT_ENDED:], untold, f"bash_{count + 2}"]
        gone = await s.one("TaskOutput", task_id=ids[0], block=False)
        assert gone.result.is_error
        assert f"No background command '{ids[0]}'" in gone.result.content
        assert (await read(s, ids[-1])).endswith(f"output {count - 1}")
        assert (await read(s, untold)).endswith("untold")
