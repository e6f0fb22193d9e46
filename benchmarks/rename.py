"""A rename across 200 files: one agent doing it alone against four side by side, for
docs/performance.md.

    .venv/bin/python -m benchmarks.rename [--runs 5]

Each of 200 files (``src/mod_000.py`` ...) calls ``old_name`` twice; the rename is a Read and
an Edit (``replace_all``) of each file, the Reads first, as a model would: the executor refuses
an Edit of a file not read in the session. Calls come 25 to an answer, as a model batches
them. Whole `legato --headless` runs against the scripted server:

- the main conversation alone: its 400 calls in 16 answers, then its final answer;
- one agent: one Agent call whose agent makes the 400 calls, in 16 answers;
- four agents: four Agent calls in one answer, each agent making 100 calls (50 files) in
  4 answers, side by side.

The turn is timed at the scripted server: from the main conversation's first request to the
one that brings the Agent calls' results back (alone: to its last request). Every run checks
that each file was renamed. The floors run the same 400 calls, in the same batches, straight
through the real tool executor in this process (memory store, broker, executor; no model,
no conductor): one batch after another, and four streams of batches side by side.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio

from actors.protocol import RunTools, ToolCall, ToolFinished
from benchmarks.harness import LEGATO, Project, run_process
from benchmarks.run import precompile
from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls
from frontends.session import tool_parts
from frontends.session_options import SessionOptions
from runtime import supervise

if TYPE_CHECKING:
    from frontends.demo.scripted_api import RecordedRequest, Step
    from runtime import Address

FILES = 200
BATCH = 25  # calls in one answer
OLD, NEW = "old_name", "new_name"


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


def name(index: int) -> str:
    return f"src/mod_{index:03d}.py"


def source(index: int) -> str:
    return (
        f"from lib import {OLD}\n\n\ndef use_{index}() -> int:\n"
        f"    return {OLD}({index}) + {index}\n"
    )


def work(project: Project, files: range) -> list[tuple[str, dict[str, Any]]]:
    """The calls that rename ``files``: every Read, then every Edit."""
    paths = [project.path(name(i)) for i in files]
    reads = [("Read", {"file_path": path}) for path in paths]
    edits = [
        ("Edit", {"file_path": path, "old_string": OLD, "new_string": NEW, "replace_all": True})
        for path in paths
    ]
    return reads + edits


def batches(calls: list[tuple[str, dict[str, Any]]]) -> list[list[tuple[str, dict[str, Any]]]]:
    return [calls[start : start + BATCH] for start in range(0, len(calls), BATCH)]


def shares(agents: int) -> list[range]:
    """Which files each agent renames (the main conversation's, with none)."""
    size = FILES // max(agents, 1)
    return [range(n * size, (n + 1) * size) for n in range(max(agents, 1))]


def one_run(project: Project, agents: int) -> float:
    """One headless run; the turn's time at the server."""
    plans = [batches(work(project, files)) for files in shares(agents)]
    arrivals: list[float] = []

    def planned(plan: list[list[tuple[str, dict[str, Any]]]], turn: int, who: str) -> Step:
        if turn < len(plan):
            return tool_calls([call(tool, fields) for tool, fields in plan[turn]])
        return text(f"{who}: renamed {OLD} to {NEW}.")

    def answer(request: RecordedRequest) -> Step:
        messages = request.body["messages"]
        opening = messages[0]["content"][0]["text"]
        turn = len(messages) // 2
        if opening.startswith("task "):
            n = int(opening.split()[1])
            return planned(plans[n], turn, f"Agent {n}")
        arrivals.append(time.perf_counter())
        if agents == 0:
            return planned(plans[0], turn, "Done")
        if turn == 0:
            calls = [
                call(
                    "Agent",
                    {
                        "description": f"rename, part {n}",
                        "prompt": f"task {n} of {agents}: rename {OLD} to {NEW} in your files",
                        "subagent_type": "general-purpose",
                    },
                )
                for n in range(agents)
            ]
            return tool_calls(calls)
        return text("Done: every file is renamed.")

    project.reset()
    with ScriptedServer(answer) as server:
        done = run_process(
            [LEGATO, project.root, "--headless", "rename it", "--max-turns", "100"],
            env=project.env(server.url),
        )
    if done.exit_code != 0:
        raise SystemExit(f"a benchmark run failed with exit {done.exit_code}")
    check(project)
    return arrivals[-1] - arrivals[0]


def check(project: Project) -> None:
    for i in range(FILES):
        content = Path(project.path(name(i))).read_text()
        if OLD in content or NEW not in content:
            raise SystemExit(f"{name(i)} was not renamed: the benchmark measured nothing")


# ── the floor: the same calls straight through the executor ─────────────────────────────────


async def run_batches(
    executor: Address[Any], plan: list[list[tuple[str, dict[str, Any]]]], prefix: str
) -> None:
    for number, batch in enumerate(plan):
        calls = tuple(
            ToolCall(id=f"toolu_{prefix}_{number}_{n}", name=tool, input=fields)
            for n, (tool, fields) in enumerate(batch)
        )
        async with executor.stream(RunTools(calls=calls)) as events:
            async for event in events:
                if isinstance(event, ToolFinished) and event.result.is_error:
                    raise SystemExit(f"the floor's call failed: {event.result.content}")


async def executor_floor(project: Project, streams: int) -> float:
    project.reset()
    parts = tool_parts(SessionOptions(project_root=project.root, home=project.home, env={}))
    executor = parts.tools
    plans = [batches(work(project, files)) for files in shares(streams)]
    async with supervise(parts.actors):
        started = time.perf_counter()
        async with anyio.create_task_group() as tasks:
            for n, plan in enumerate(plans):
                tasks.start_soon(run_batches, executor.address, plan, str(n))
        took = time.perf_counter() - started
    check(project)
    return took


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    precompile()
    os.environ.pop("ASSISTANT_LOG", None)
    project = Project({name(i): source(i) for i in range(FILES)})
    shapes = {"main conversation alone": 0, "one agent": 1, "four agents": 4}
    measured: dict[str, list[float]] = {shape: [] for shape in shapes}
    floors: dict[int, list[float]] = {1: [], 4: []}
    try:
        for _ in range(args.runs):  # the shapes in turn, so that a slow moment hits each
            for shape, agents in shapes.items():
                measured[shape].append(one_run(project, agents))
            for streams in floors:
                floors[streams].append(anyio.run(executor_floor, project, streams))
        print(
            f"\n| {FILES} files, Read + Edit each, {BATCH} calls an answer | requests | "
            "turn (median) | worst |\n|---|---|---|---|"
        )
        for shape, agents in shapes.items():
            answers = len(batches(work(project, shares(agents)[0]))) + 1
            requests = 2 + agents * answers if agents else answers
            values = measured[shape]
            print(f"| {shape} | {requests} | {ms(statistics.median(values))} | {ms(max(values))} |")
        for streams, values in floors.items():
            how = "one batch after another" if streams == 1 else "four streams side by side"
            print(
                f"| floor: the executor alone, {how} | 0 | {ms(statistics.median(values))} | "
                f"{ms(max(values))} |"
            )
        sys.stdout.flush()
    finally:
        project.close()


if __name__ == "__main__":
    main()
