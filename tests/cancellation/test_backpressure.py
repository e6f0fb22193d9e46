"""A renderer that stalls slows the session down but never deadlocks it.

Between the actors every channel is bounded (the UI's inbox, each streamed reply), so a stalled
renderer pushes back on the conductor, and through it on the model stream; tools keep running
(their output is read into fixed memory whatever the UI does), an interrupt still gets through,
and once the renderer moves again everything that was held back arrives in order.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import anyio

from actors.protocol import TextDelta, ToolFinished
from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls
from tests.cancellation.harness import (
    ControlledRenderer,
    conversation_problems,
    live_session,
    recorded_pids,
    surviving,
)

if TYPE_CHECKING:
    from pathlib import Path

WORDS = 3000


async def appears(path: Path) -> None:
    """Wait for a file a command creates (an outside effect: there is no event to wait on)."""
    while not await anyio.Path(path).exists():  # noqa: ASYNC110
        await anyio.sleep(0.01)


def setup(tmp_path: Path) -> tuple[Path, Path]:
    """A project whose settings allow the test's commands: a permission question would wait
    for the stalled renderer, and rightly so (only a person can answer it)."""
    root, home = tmp_path / "project", tmp_path / "home"
    (root / ".legato").mkdir(parents=True)
    home.mkdir()
    allowed = ["seq", "touch", "echo", "sleep", "wait"]
    settings = {"permissionMode": "custom", "allowedCommands": allowed}
    (root / ".legato" / "settings.json").write_text(json.dumps(settings))
    return root, home


async def test_tools_run_on_while_the_renderer_is_stalled(tmp_path: Path) -> None:
    root, home = setup(tmp_path)
    marker = root / "marker"
    words = " ".join(f"w{i}" for i in range(WORDS))
    # A flood of output, then the marker: the command finishes although nobody is watching.
    steps = [
        tool_calls([call("Bash", {"command": f"seq 1 300000; touch {marker}"})]),
        text(words),
    ]
    renderer = ControlledRenderer()
    renderer.stalled = anyio.Event()
    with ScriptedServer(steps) as server:
        async with (
            live_session(root, home, server.url, renderer) as live,
            anyio.create_task_group() as tasks,
        ):
            outcomes = []

            async def prompt() -> None:
                outcomes.append(await live.prompt("count"))

            tasks.start_soon(prompt)
            with anyio.fail_after(20):
                await appears(marker)
            assert renderer.events == []  # nothing was shown: the renderer is still stalled
            renderer.stalled.set()
    [outcome] = outcomes
    assert outcome.subtype == "success", outcome.error
    shown = "".join(e.text for e in renderer.events if isinstance(e, TextDelta))
    assert shown == words
    [finished] = [e for e in renderer.events if isinstance(e, ToolFinished)]
    assert "... [" in finished.result.content  # the flood was cut to its head and tail


async def test_an_interrupt_gets_through_a_stalled_renderer(tmp_path: Path) -> None:
    root, home = setup(tmp_path)
    pids, started = root / "pids", root / "started"
    command = f"echo $$ > {pids}; sleep 30 & echo $! >> {pids}; touch {started}; wait"
    steps = [tool_calls([call("Bash", {"command": command})], text="Running it."), text("Here.")]
    renderer = ControlledRenderer()
    renderer.stalled = anyio.Event()
    with ScriptedServer(steps) as server:
        async with live_session(root, home, server.url, renderer) as live:
            with anyio.fail_after(20):
                with anyio.CancelScope() as scope:
                    async with anyio.create_task_group() as tasks:
                        tasks.start_soon(live.prompt, "run it")
                        await appears(started)
                        scope.cancel()
                # The interrupt did not wait on the renderer: the conversation holds the
                # interrupted result while the renderer, stalled until below, has shown nothing.
                messages = await live.conversation()
                assert renderer.events == []
                assert surviving(recorded_pids(pids)) == []
                assert conversation_problems(messages) == []
                [result] = messages[-1].content
                assert result["content"].startswith("Interrupted after")
                renderer.stalled.set()
                outcome = await live.prompt("still there?")
    assert outcome.subtype == "success", outcome.error
    assert outcome.result == "Here."
