"""A call's progress (ToolStarted, ToolOutput) goes straight to the UI, one hop; only its
result comes back on the stream to the conductor, which has to hold it for the display."""

from __future__ import annotations

from typing import TYPE_CHECKING

from actors.protocol import RunTools, Show, ToolFinished, ToolOutput, ToolStarted, UiMsg
from actors.tool_executor import ToolExecutor
from runtime import Actor, Reply, supervise
from tests.tool_executor.harness import Broker, call

if TYPE_CHECKING:
    from pathlib import Path

    from actors.protocol import UiEvent


class Screen(Actor[UiMsg]):
    name = "ui"

    def __init__(self) -> None:
        super().__init__()
        self.shown: list[UiEvent] = []

    async def handle(self, msg: UiMsg, reply: Reply) -> None:
        if isinstance(msg, Show):
            self.shown.append(msg.event)


async def test_progress_goes_to_the_ui_and_only_results_come_back(tmp_path: Path) -> None:
    (tmp_path / "a.txt").write_text("a\n")
    screen, broker = Screen(), Broker()
    executor = ToolExecutor(broker.address, project_root=str(tmp_path), ui=screen.address)
    command = call("Bash", command="echo one; echo two")
    read = call("Read", file_path=str(tmp_path / "a.txt"))
    async with (
        supervise([screen, broker, executor]),
        executor.address.stream(RunTools(calls=(command, read))) as events,
    ):
        streamed = [event async for event in events]
    # Only the results come back, one for each call.
    assert all(isinstance(e, ToolFinished) for e in streamed)
    finished = sorted(e.result.tool_use_id for e in streamed if isinstance(e, ToolFinished))
    assert finished == sorted([command.id, read.id])
    started = [e.id for e in screen.shown if isinstance(e, ToolStarted)]
    output = "".join(
        e.text for e in screen.shown if isinstance(e, ToolOutput) and e.id == command.id
    )
    assert sorted(started) == sorted([command.id, read.id])
    assert output.split() == ["one", "two"]
    assert not any(isinstance(e, ToolFinished) for e in screen.shown)


async def test_a_call_names_its_file_relative_to_the_project_inside_it_absolute_outside(
    tmp_path: Path,
) -> None:
    root = tmp_path / "project"
    root.mkdir()
    (root / "a.txt").write_text("a\n")
    outside = tmp_path / "notes.txt"
    screen, broker = Screen(), Broker()
    executor = ToolExecutor(broker.address, project_root=str(root), ui=screen.address)
    calls = (
        call("Read", file_path=str(root / "a.txt")),
        call("Read", file_path=str(outside)),
        call("Edit", file_path="a.txt"),  # no old_string: refused before it runs
        call("Edit", old_string="x"),  # nothing names a target
    )
    async with (
        supervise([screen, broker, executor]),
        executor.address.stream(RunTools(calls=calls)) as events,
    ):
        _ = [event async for event in events]
    summaries = {e.id: e.summary for e in screen.shown if isinstance(e, ToolStarted)}
    assert [summaries[c.id] for c in calls] == ["a.txt", str(outside), "a.txt", ""]
