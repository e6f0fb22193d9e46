"""A call runs as soon as its block is complete, while the answer goes on streaming; the order
promises hold: same-path calls in the model's order, results in the calls' order."""

from __future__ import annotations

from typing import TYPE_CHECKING

import anyio

from actors.protocol import (
    BlockFinished,
    MessageFinished,
    ToolFinished,
    ToolOutput,
    ToolStarted,
    Undo,
)
from frontends.demo.scripted_api import Gate, ScriptedServer, call, text, tool_calls
from tests.cancellation.harness import conversation_problems
from tests.pipeline.harness import Recorder, conversation, pipeline_session, prompt

if TYPE_CHECKING:
    from pathlib import Path

    from actors.protocol import AskUser


def folders(tmp_path: Path) -> tuple[Path, Path]:
    root, home = tmp_path / "project", tmp_path / "home"
    root.mkdir()
    home.mkdir()
    return root, home


def result_ids(body: dict[str, object]) -> list[str]:
    messages = body["messages"]
    assert isinstance(messages, list)
    return [b["tool_use_id"] for b in messages[-1]["content"] if b["type"] == "tool_result"]


async def test_a_call_runs_before_the_answer_has_finished_streaming(tmp_path: Path) -> None:
    root, home = folders(tmp_path)
    flag = root / "started"
    # The Write's block is sent only once the command has made the flag: were calls started
    # at the answer's end, the stream would wait at the gate until it gave up with an error.
    steps = [
        tool_calls(
            [
                call("Bash", {"command": f"touch {flag}"}, id="toolu_bash"),
                call("Write", {"file_path": str(root / "out.txt"), "content": "x\n"}, id="toolu_w"),
            ],
            text="Both at once.",
            gate=Gate(path=str(flag), before_block=2),
        ),
        text("Done."),
    ]
    renderer = Recorder()
    with ScriptedServer(steps) as server:
        async with pipeline_session(root, home, server.url, renderer) as session:
            outcome = await prompt(session, "go")
            messages = await conversation(session)
        requests = server.requests
    assert outcome.subtype == "success", outcome.error
    # The command started, and finished, while the answer was still streaming.
    answer_end = renderer.position(MessageFinished)
    assert renderer.position(ToolStarted, "toolu_bash") < answer_end
    # Its result is shown after the message that asked for it, never in the middle of it.
    assert renderer.position(ToolFinished, "toolu_bash") > answer_end
    assert result_ids(requests[1].body) == ["toolu_bash", "toolu_w"]
    assert (root / "out.txt").read_text() == "x\n"
    assert conversation_problems(messages) == []


async def test_results_go_back_in_the_calls_order_whatever_order_they_finished_in(
    tmp_path: Path,
) -> None:
    root, home = folders(tmp_path)
    release = root / "release"
    # The first call waits until the test has seen the second one's result: they finish in
    # the reverse order, whatever the machine's timing.
    first_command = f"while [ ! -e {release} ]; do sleep 0.01; done; echo first"
    steps = [
        tool_calls(
            [
                call("Bash", {"command": first_command}, id="toolu_1"),
                call("Bash", {"command": "echo second"}, id="toolu_2"),
            ]
        ),
        text("Done."),
    ]
    renderer = Recorder()

    async def release_after_the_second() -> None:
        while not any(
            isinstance(e, ToolFinished) and e.result.tool_use_id == "toolu_2"
            for e in renderer.events
        ):
            await renderer.changed.wait()
        release.touch()

    with ScriptedServer(steps) as server:
        async with (
            pipeline_session(root, home, server.url, renderer) as session,
            anyio.create_task_group() as tasks,
        ):
            tasks.start_soon(release_after_the_second)
            outcome = await prompt(session, "go")
        requests = server.requests
    assert outcome.subtype == "success", outcome.error
    assert renderer.position(ToolFinished, "toolu_2") < renderer.position(ToolFinished, "toolu_1")
    assert result_ids(requests[1].body) == ["toolu_1", "toolu_2"]
    contents = [b["content"] for b in requests[1].body["messages"][-1]["content"]]
    assert contents == ["first", "second"]


async def test_a_later_call_on_the_same_file_waits_for_an_earlier_one_still_running(
    tmp_path: Path,
) -> None:
    """The Write is still waiting for its permission when the Edit of the same file arrives;
    the Edit waits for it (and so applies to what it wrote) instead of running first."""
    root, home = folders(tmp_path)
    path = root / "notes.md"
    steps = [
        tool_calls(
            [
                call("Write", {"file_path": str(path), "content": "draft\n"}, id="toolu_w"),
                call(
                    "Edit",
                    {"file_path": str(path), "old_string": "draft", "new_string": "final"},
                    id="toolu_e",
                ),
            ]
        ),
        text("Done."),
    ]
    renderer: Recorder

    async def answer(number: int, question: AskUser) -> str:
        if number == 1:
            # Held until the whole answer, the Edit included, has reached the executor.
            await renderer.seen(MessageFinished)
        return "y"

    renderer = Recorder(answer)
    with ScriptedServer(steps) as server:
        async with pipeline_session(root, home, server.url, renderer) as session:
            outcome = await prompt(session, "go")
    assert outcome.subtype == "success", outcome.error
    assert [q.request.tool for q in renderer.asked] == ["Write", "Edit"]
    finished = [e for e in renderer.events if isinstance(e, ToolFinished)]
    assert [f.result.is_error for f in finished] == [False, False], finished
    assert await anyio.Path(path).read_text() == "final\n"


async def test_undo_puts_back_what_calls_that_started_mid_answer_changed(tmp_path: Path) -> None:
    root, home = folders(tmp_path)
    path = root / "a.txt"
    path.write_text("original\n")
    flag = root / "first-done"
    steps = [
        tool_calls([call("Read", {"file_path": str(path)})]),
        tool_calls(
            [
                call("Write", {"file_path": str(path), "content": "one\n"}),
                call("Bash", {"command": f"touch {flag}"}),
                call("Edit", {"file_path": str(path), "old_string": "one", "new_string": "two"}),
            ],
            gate=Gate(path=str(flag), before_block=2),  # the Edit comes once the rest ran
        ),
        text("Done."),
    ]
    with ScriptedServer(steps) as server:
        async with pipeline_session(root, home, server.url, Recorder()) as session:
            outcome = await prompt(session, "go")
            assert outcome.subtype == "success", outcome.error
            assert await anyio.Path(path).read_text() == "two\n"
            said = await session.conductor.address.ask(Undo())
    assert said.splitlines()[0] == f"Restored {path}"
    assert path.read_text() == "original\n"


async def test_a_commands_progress_goes_straight_to_the_screen_yet_in_its_place(
    tmp_path: Path,
) -> None:
    # ToolStarted and ToolOutput reach the UI from the executor, the result through the
    # conductor: on screen it is still block, start, every line of output, result.
    root, home = folders(tmp_path)
    command = "for i in $(seq 1 300); do echo line$i; done"
    steps = [
        tool_calls([call("Bash", {"command": command}, id="toolu_lines")], text="Counting."),
        text("Done."),
    ]
    renderer = Recorder()
    with ScriptedServer(steps) as server:
        async with pipeline_session(root, home, server.url, renderer) as session:
            outcome = await prompt(session, "go")
    assert outcome.subtype == "success", outcome.error
    events = renderer.events
    block = next(
        n for n, e in enumerate(events)
        if isinstance(e, BlockFinished) and e.block.get("id") == "toolu_lines"
    )  # fmt: skip
    output = [n for n, e in enumerate(events) if isinstance(e, ToolOutput)]
    started = renderer.position(ToolStarted, "toolu_lines")
    finished = renderer.position(ToolFinished, "toolu_lines")
    assert block < started < min(output) <= max(output) < finished
    lines = "".join(e.text for e in events if isinstance(e, ToolOutput)).split()
    assert lines == [f"line{i}" for i in range(1, 301)]
