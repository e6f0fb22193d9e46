"""An answer that breaks after some of its calls started: the calls running finish, those still
waiting are not run, nothing is retried, and the conversation says exactly that."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import anyio
import msgspec
import pytest

from actors.protocol import MessageFinished, ToolFinished, ToolStarted
from frontends.demo.scripted_api import Gate, ScriptedServer, call, text, tool_calls
from tests.cancellation.harness import conversation_problems
from tests.pipeline.harness import (
    Recorder,
    conversation,
    events_before_block,
    pipeline_session,
    prompt,
)

if TYPE_CHECKING:
    from pathlib import Path

    from actors.protocol import AskUser, Message
    from frontends.demo.scripted_api import Step


def folders(tmp_path: Path) -> tuple[Path, Path]:
    root, home = tmp_path / "project", tmp_path / "home"
    root.mkdir()
    home.mkdir()
    return root, home


def breaking(root: Path, **failure: Any) -> Step:
    """Two calls: the first starts (the gate waits for it), then the answer breaks while the
    second's input is still streaming."""
    flag = root / "started"
    calls = [
        call("Bash", {"command": f"touch {flag}; sleep 0.2; echo finished"}, id="toolu_1"),
        call("Write", {"file_path": str(root / "never.txt"), "content": "no\n"}, id="toolu_2"),
    ]
    gate = Gate(path=str(flag), before_block=2)
    whole = tool_calls(calls, text="Two things.", gate=gate)
    cut = events_before_block(whole, 2, then=2)  # block 2 started, its input under way
    if failure.pop("cut", False):
        return tool_calls(calls, text="Two things.", gate=gate, cut_after=cut)
    return tool_calls(calls, text="Two things.", gate=gate, error_after=cut, **failure)


def assert_recorded_honestly(messages: list[Message]) -> None:
    """The partial answer with the call that started, its real result; nothing else."""
    assert conversation_problems(messages) == []
    assert messages[1].role == "assistant"
    assert messages[1].content == [
        {"type": "text", "text": "Two things."},
        {
            "type": "tool_use",
            "id": "toolu_1",
            "name": "Bash",
            "input": {"command": messages[1].content[1]["input"]["command"]},
        },
    ]
    assert messages[2].content == [
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": "finished"}
    ]


@pytest.mark.parametrize(
    ("failure", "said"),
    [
        (
            {"stream_error": ("overloaded_error", "Overloaded")},
            "The API reported an error during the answer: overloaded_error: Overloaded",
        ),
        ({"cut": True}, "broke partway through the answer"),
    ],
    ids=["overloaded_in_the_stream", "dropped_connection"],
)
async def test_a_started_call_finishes_and_the_failure_is_reported_not_retried(
    tmp_path: Path, failure: dict[str, Any], said: str
) -> None:
    root, home = folders(tmp_path)
    steps = [breaking(root, **failure), text("Fine, the session still works.")]
    renderer = Recorder()
    with ScriptedServer(steps) as server:
        async with pipeline_session(root, home, server.url, renderer) as session:
            outcome = await prompt(session, "go")
            assert len(server.requests) == 1  # not retried: a call had started
            messages = await conversation(session)
            again = await prompt(session, "and now?")  # the API takes what was recorded
    assert outcome.subtype == "error_during_execution"
    assert said in (outcome.error or "")
    assert_recorded_honestly(messages)
    assert not (root / "never.txt").exists()
    assert again.subtype == "success", again.error
    # The cut answer was shown as such before the result of its call.
    cut = renderer.position(MessageFinished)
    shown = renderer.events[cut]
    assert isinstance(shown, MessageFinished) and shown.stop_reason is None
    assert renderer.position(ToolFinished, "toolu_1") > cut


async def test_a_stalled_answer_after_a_call_started_is_reported_not_retried(
    tmp_path: Path,
) -> None:
    root, home = folders(tmp_path)
    flag = root / "started"
    step = tool_calls(
        [
            call("Bash", {"command": f"touch {flag}; echo finished"}, id="toolu_1"),
            call("Bash", {"command": "echo never"}, id="toolu_2"),
        ],
        text="Two things.",
        # The second call's block never comes: the API has gone silent after the first. The
        # first call is asked about, allowed and started within milliseconds of its block; the
        # silence has to last half a second before it counts as a stall.
        gate=Gate(path=str(root / "never"), before_block=2, timeout=30),
    )
    renderer = Recorder()
    with ScriptedServer([step, text("Fine.")]) as server:
        async with pipeline_session(
            root, home, server.url, renderer, stream_timeout=0.5
        ) as session:
            outcome = await prompt(session, "go")
            assert len(server.requests) == 1
            messages = await conversation(session)
    assert outcome.subtype == "error_during_execution"
    assert "stopped sending the answer partway (nothing for 0.5 s)" in (outcome.error or "")
    assert conversation_problems(messages) == []
    assert messages[2].content == [
        {"type": "tool_result", "tool_use_id": "toolu_1", "content": "finished"}
    ]


async def test_a_call_still_waiting_for_permission_is_not_run(tmp_path: Path) -> None:
    root, home = folders(tmp_path)
    (root / "in.txt").write_text("hello\n")
    (root / ".legato").mkdir()
    (root / ".legato" / "settings.json").write_text('{"allowedPaths": ["in.txt"]}')
    asked = root / "asked"
    whole = tool_calls(
        [
            call("Read", {"file_path": str(root / "in.txt")}, id="toolu_1"),  # needs nobody
            call("Write", {"file_path": str(root / "a.txt"), "content": "a\n"}, id="toolu_2"),
            call("Bash", {"command": "echo never"}, id="toolu_3"),
        ],
        gate=Gate(path=str(asked), before_block=2),
    )
    # The answer breaks once the Write waits for the person and the Read has started.
    step = msgspec.structs.replace(
        whole,
        stream_error=("overloaded_error", "Overloaded"),
        error_after=events_before_block(whole, 2, then=1),
    )
    renderer: Recorder

    async def answer(number: int, question: AskUser) -> str:
        await renderer.seen(ToolStarted)  # the Read's
        await anyio.Path(asked).touch()
        await anyio.sleep_forever()  # nobody answers: the failure withdraws the question
        return "n"

    renderer = Recorder(answer)
    with ScriptedServer([step]) as server:
        async with pipeline_session(root, home, server.url, renderer) as session:
            outcome = await prompt(session, "go")
            messages = await conversation(session)
    assert outcome.subtype == "error_during_execution"
    assert [q.request.tool for q in renderer.asked] == ["Write"]
    assert conversation_problems(messages) == []
    assert [b["id"] for b in messages[1].content] == ["toolu_1", "toolu_2"]  # half a call: out
    results = {b["tool_use_id"]: b for b in messages[2].content}
    assert results["toolu_1"]["content"] == "     1\thello"
    assert results["toolu_2"] == {
        "type": "tool_result",
        "tool_use_id": "toolu_2",
        "content": "Not run: the answer that asked for this call broke off while it waited for "
        "the user's permission; nothing was done.",
        "is_error": True,
    }
    assert not (root / "a.txt").exists()
