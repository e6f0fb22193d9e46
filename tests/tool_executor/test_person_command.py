"""``RunPersonCommand`` (``!cmd``): the person's command runs as the model's Bash does, through
the real broker, policy and sandbox, with every event on its own stream; the rules still refuse
what they refuse, a sandbox refusal is explained, and leaving the stream stops the command with
every process it started."""

from __future__ import annotations

import tempfile
import uuid
from typing import TYPE_CHECKING

import anyio
import pytest

from actors.protocol import RunPersonCommand, ToolEvent, ToolFinished, ToolOutput, ToolStarted
from actors.tool_executor.sandbox.refusals import PERSON_REMEDY
from tests.tool_executor.harness import Person, is_running, running_in, with_policy
from tests.tool_executor.sandbox_setup import needs_bwrap

if TYPE_CHECKING:
    from pathlib import Path

    from tests.tool_executor.harness import PolicySession

pytestmark = pytest.mark.anyio


@pytest.fixture
def anyio_backend() -> str:
    return "trio"


async def person_runs(s: PolicySession, command: str) -> list[ToolEvent]:
    request = RunPersonCommand(id="person_1", command=command)
    async with s.executor.address.stream(request) as events:
        return [event async for event in events]


async def test_what_the_rules_would_ask_runs_unasked_and_streams_to_its_caller(
    tmp_path: Path,
) -> None:
    ui = Person([])  # nobody answers: a question would fail the test
    async with with_policy(tmp_path, answers=[], ui=ui) as s:
        events = await person_runs(s, "echo one; echo two > made.txt; cat made.txt")
    assert (tmp_path / "made.txt").read_text() == "two\n"
    assert isinstance(events[0], ToolStarted) and events[0].summary.startswith("echo one")
    printed = "".join(e.text for e in events if isinstance(e, ToolOutput))
    assert printed == "one\ntwo\n"
    done = events[-1]
    assert isinstance(done, ToolFinished) and not done.result.is_error
    assert done.result.content == "one\ntwo"
    assert ui.asked == []
    # Its progress went to the person who typed it, on its stream, not to the model's display.
    assert not [e for e in ui.shown if isinstance(e, ToolStarted | ToolOutput)]


async def test_blocked_commands_and_plan_mode_still_refuse(tmp_path: Path) -> None:
    async with with_policy(tmp_path, answers=[], blockedCommands=["curl"]) as s:
        events = await person_runs(s, "curl https://example.com")
    done = events[-1]
    assert isinstance(done, ToolFinished) and done.result.denied
    assert "Permission denied" in done.result.content and "curl" in done.result.content
    async with with_policy(tmp_path, mode="plan", answers=[]) as s:
        events = await person_runs(s, "touch planned.txt")
    assert isinstance(events[-1], ToolFinished) and events[-1].result.denied
    assert not (tmp_path / "planned.txt").exists()


@needs_bwrap
async def test_the_sandbox_refusal_is_explained(tmp_path: Path) -> None:
    outside = f"{tempfile.gettempdir()}/legato-person-{uuid.uuid4().hex}"
    async with with_policy(tmp_path, answers=[]) as s:
        events = await person_runs(s, f"touch {outside}")
    done = events[-1]
    assert isinstance(done, ToolFinished) and done.result.is_error
    assert f"The sandbox refused '{outside}'" in done.result.content
    # The remedy is one the person can act on, not the model's flag.
    assert done.result.content.endswith(PERSON_REMEDY)


async def test_leaving_the_stream_stops_the_command_and_all_it_started(tmp_path: Path) -> None:
    request = RunPersonCommand(id="person_1", command="echo started; sleep 30 & sleep 31; wait")
    async with with_policy(tmp_path, answers=[]) as s:
        async with s.executor.address.stream(request) as events:
            async for event in events:
                if isinstance(event, ToolOutput) and "started" in event.text:
                    with anyio.fail_after(10):
                        while len(left := running_in(tmp_path)) < 3:  # noqa: ASYNC110
                            await anyio.sleep(0.01)  # polling; the deadline decides
                    break
        with anyio.fail_after(10):
            while any(is_running(pid) for pid in left) or running_in(tmp_path):  # noqa: ASYNC110
                await anyio.sleep(0.01)  # polling for the processes' end; the deadline decides
