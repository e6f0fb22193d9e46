"""Cancel at any point: a property over scripted multi-turn sessions, with the sandbox on and off.

Hypothesis draws a session (turns of parallel tool batches: commands that start background
jobs and children that ignore SIGTERM, and with the sandbox on children that leave the
command's process group and session with ``setsid``; and large writes over files the session
has read; in an overlapped turn the answer is held after its first command until that command
has started, so the rest of the answer, large writes included, streams while it runs) and a
point to cancel at: the n-th event the UI is shown (so while streaming, while tools run, or
between turns), the n-th tool event (a call started or printed), or the n-th permission
question, left unanswered. After the cancel, every time:
no process the session started survives (found from outside by the marker in their
environment: a confined command's pids are its namespace's), every file is wholly old or
wholly new with no temporary file left, the conversation is one the API accepts, and the next
prompt works (the scripted server answers 400 to a conversation with an unanswered
``tool_use``).

Unconfined commands are a path of their own (sandbox.enabled false, or where bubblewrap cannot
run): their process group gets SIGTERM, a grace, then SIGKILL. A child that leaves the group
outlives them, as docs/security.md says, so only the confined run draws one.
"""

from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, Any

import anyio
import pytest
import trio
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from actors.protocol import DescribeSandbox, ToolStarted
from frontends.demo.scripted_api import Gate, ScriptedServer, Step, call, text, tool_calls
from tests.cancellation.harness import ControlledRenderer, conversation_problems, live_session
from tests.tool_executor.sandbox_setup import needs_bwrap

if TYPE_CHECKING:
    from pathlib import Path

    from actors.protocol import Message
    from frontends.demo.scripted_api import RecordedRequest

FILES = 3
SIZE = 32 * 1024  # the model streams it in 16-character pieces: larger only costs time
NEXT_PROMPT = "and now something else"


def old(index: int) -> str:
    return f"old {index}\n" * (SIZE // 6)


def new(index: int) -> str:
    return f"new {index}!\n" * (SIZE // 7)


Call = tuple[str, int]  # ("sleep" | "resist" | "detach" | "quick" | "write", a number)

KINDS = {
    "sandbox on": ["sleep", "resist", "detach", "quick", "write"],
    "sandbox off": ["sleep", "resist", "quick", "write"],
}


def batches_strategy(kinds: list[str]) -> st.SearchStrategy[list[tuple[list[Call], bool]]]:
    calls = st.lists(
        st.tuples(st.sampled_from(kinds), st.integers(0, FILES - 1)), min_size=1, max_size=4
    )
    return st.lists(st.tuples(calls, st.booleans()), min_size=1, max_size=2)


POINTS = st.one_of(
    st.tuples(st.just("event"), st.sampled_from(range(1, 46))),
    st.tuples(st.just("ask"), st.sampled_from(range(1, 9))),
    st.tuples(st.just("tool"), st.sampled_from(range(1, 9))),
)


def tool_call(kind: str, number: int, root: Path, marker: Path | None = None) -> Any:
    if kind == "write":
        return call("Write", {"file_path": str(root / f"f{number}.txt"), "content": new(number)})
    started = "" if marker is None else f"touch {marker}; "  # opens the answer's gate
    if kind == "quick":
        return call("Bash", {"command": f"{started}echo quick {number}"})
    if kind == "resist":  # a child that ignores SIGTERM, and a background job
        command = f"{started}(trap '' TERM; exec sleep 30) & sleep 30 & echo resisting; sleep 0.3"
        return call("Bash", {"command": command})
    if kind == "detach":  # a child in a session of its own, outside the command's group
        return call("Bash", {"command": f"{started}setsid sleep 30 & echo detached; sleep 0.3"})
    return call("Bash", {"command": f"{started}echo sleeping; sleep 0.{number + 2}"})


def batch_step(root: Path, turn: int, batch: list[Call], overlapped: bool) -> Step:
    """One answer's calls after a text block. Overlapped: the block after the first command is
    held until that command has started, so the rest streams while it runs."""
    first = next((n for n, (kind, _) in enumerate(batch) if kind != "write"), None)
    if not overlapped or first is None or first == len(batch) - 1:
        calls = [tool_call(kind, number, root) for kind, number in batch]
        return tool_calls(calls, text="Working on it now.")
    marker = root / f"started-{turn}"
    calls = [
        tool_call(kind, number, root, marker if n == first else None)
        for n, (kind, number) in enumerate(batch)
    ]
    # Block 0 is the text: call n is block n + 1. A gate left closed by a cancel that came
    # first is let go when the server stops.
    gate = Gate(path=str(marker), before_block=first + 2, timeout=60)
    return tool_calls(calls, text="Working on it now, in parallel.", gate=gate)


def script(root: Path, batches: list[tuple[list[Call], bool]]) -> list[Step]:
    reads = [call("Read", {"file_path": str(root / f"f{i}.txt"), "limit": 1}) for i in range(FILES)]
    steps = [tool_calls(reads, text="Reading the files first.")]
    for turn, (batch, overlapped) in enumerate(batches):
        steps.append(batch_step(root, turn, batch, overlapped))
    steps.append(text("All done, every change is in place.", delay=0.01))
    return steps


# What an interrupted call's result may say: the executor's report (how long, what it printed,
# or that it never started), or the conductor's notice for a call the batch never reached.
INTERRUPTED = re.compile(
    r"Interrupted (after \d+\.\d s(, before it finished| while waiting for the user's "
    r"permission)|before it started|by the user before this call finished)"
)


def tool_results(messages: list[Message]) -> list[str]:
    return [
        str(block.get("content"))
        for message in messages
        for block in message.content
        if block.get("type") == "tool_result"
    ]


def serve(steps: list[Step]) -> ScriptedServer:
    played = iter(steps)

    def answer(request: RecordedRequest) -> Step:
        last = request.body["messages"][-1]["content"]
        said = (
            [b.get("text", "") for b in last if isinstance(b, dict)]
            if isinstance(last, list)
            else [last]
        )
        if any(NEXT_PROMPT in piece for piece in said):
            return text("Fine, the session still works.")
        return next(played, text("Nothing more to do."))

    return ScriptedServer(answer)


@pytest.mark.usefixtures("short_grace")
@pytest.mark.parametrize("sandbox", [pytest.param("sandbox on", marks=needs_bwrap), "sandbox off"])
@settings(
    max_examples=40,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(data=st.data())
def test_cancelling_at_any_point_keeps_every_invariant(
    tmp_path_factory: Any, sandbox: str, data: st.DataObject
) -> None:
    batches = data.draw(batches_strategy(KINDS[sandbox]), label="batches")
    kind, n = data.draw(POINTS, label="point")
    if any(call_kind == "detach" for calls, _ in batches for call_kind, _ in calls):
        event("a command's child left its group")
    base: Path = tmp_path_factory.mktemp("session")
    root, home = base / "project", base / "home"
    root.mkdir()
    home.mkdir()
    for i in range(FILES):
        (root / f"f{i}.txt").write_text(old(i))
    renderer = ControlledRenderer(
        cancel_at_event=n if kind == "event" else None,
        cancel_at_ask=n if kind == "ask" else None,
        cancel_at_tool=n if kind == "tool" else None,
    )
    with serve(script(root, batches)) as server:
        trio.run(_session, root, home, server.url, renderer, sandbox == "sandbox on")


async def _session(
    root: Path, home: Path, url: str, renderer: ControlledRenderer, sandbox: bool
) -> None:
    with anyio.fail_after(30):
        async with live_session(
            root, home, url, renderer, sandbox=sandbox, permission_mode="ask"
        ) as live:
            report = await live.session.tools.address.ask(DescribeSandbox())
            assert report.active is sandbox, report.why_not
            await live.interrupted_prompt("make the changes")
            event(f"cancelled {renderer.point}")
            if renderer.mid_answer_with_calls_running():
                event("cancelled mid-answer, with some of its calls started")
            # 1. No process the session started survives, in the sandbox or out of it.
            assert live.processes() == []
            # 2. Every file is wholly old or wholly new, and no temporary file is left.
            for i in range(FILES):
                content = await anyio.Path(root / f"f{i}.txt").read_text()
                assert content in (old(i), new(i)), f"f{i}.txt is neither old nor new"
            assert [n for n in os.listdir(root) if n.endswith(".legato-tmp")] == []
            # 3. The conversation is one the API accepts; interrupted calls say so.
            messages = await live.conversation()
            assert conversation_problems(messages) == []
            for result in tool_results(messages):
                if result.startswith("Interrupted"):
                    assert INTERRUPTED.match(result), result
            # Every call that started is in the conversation with its result: nothing that
            # ran, or began to, goes unrecorded (a call of a cut answer included).
            answered = {
                block["tool_use_id"]
                for message in messages
                for block in message.content
                if block.get("type") == "tool_result"
            }
            started = {e.id for e in renderer.events if isinstance(e, ToolStarted)}
            assert started <= answered, started - answered
            # 4. The session is usable afterwards.
            renderer.cancel_at_ask = renderer.cancel_at_event = renderer.cancel_at_tool = None
            outcome = await live.prompt(NEXT_PROMPT)
            assert outcome.subtype == "success", outcome.error
            assert outcome.result == "Fine, the session still works."
            assert conversation_problems(await live.conversation()) == []
