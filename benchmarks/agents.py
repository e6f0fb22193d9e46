"""Subagents: what running agents side by side costs, for docs/performance.md.

    .venv/bin/python -m benchmarks.agents [--runs 5]

- side by side: 1 and 3 Agent calls in one answer, each agent running `sleep 2` and then
  answering. Timed at the scripted server, from the request that asks for the agents to the
  request that brings their answers back. The floor is 2 s, one command's own time: the agents
  run at once, so three should cost what one does.
- memory: the peak RSS of whole headless runs with 0, 1, 8 and 16 agents all alive at once
  (each runs `sleep 1`; agents.maxConcurrent is raised to 16 so none waits), and what each
  extra agent adds: the slope from 0 to 16, read by GNU time per process (a single agent's
  share is within the noise of one run's peak, about 100 KB).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import time
from pathlib import Path
from typing import TYPE_CHECKING

from benchmarks.harness import LEGATO, Project, run_process
from benchmarks.run import precompile
from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls

if TYPE_CHECKING:
    from frontends.demo.scripted_api import RecordedRequest, Step


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


def agent_calls(count: int) -> Step:
    return tool_calls(
        [
            call(
                "Agent",
                {
                    "description": f"job {n}",
                    "prompt": f"task {n}",
                    "subagent_type": "general-purpose",
                },
            )
            for n in range(count)
        ]
    )


def one_run(project: Project, count: int, seconds: float) -> tuple[float, float]:
    """One headless run with ``count`` agents each running ``sleep seconds``: (the turn's time
    at the server, the process's peak RSS in MB)."""
    arrivals: list[float] = []

    def answer(request: RecordedRequest) -> Step:
        messages = request.body["messages"]
        opening = messages[0]["content"][0]["text"]
        if opening.startswith("task "):
            if len(messages) == 1:
                return tool_calls([call("Bash", {"command": f"sleep {seconds:g}"})])
            return text(f"Agent {opening.split()[1]} slept.")
        arrivals.append(time.perf_counter())
        if count == 0:  # the main conversation runs the command itself
            if len(messages) == 1:
                return tool_calls([call("Bash", {"command": f"sleep {seconds:g}"})])
            return text("Done.")
        return agent_calls(count) if len(messages) == 1 else text("Done.")

    project.reset()
    settings = Path(project.root, ".legato", "settings.json")
    chosen = json.loads(settings.read_text())
    chosen["agents"] = {"maxConcurrent": 16}
    settings.write_text(json.dumps(chosen))
    with ScriptedServer(answer) as server:
        done = run_process([LEGATO, project.root, "--headless", "go"], env=project.env(server.url))
    if done.exit_code != 0:
        raise SystemExit(f"a benchmark run failed with exit {done.exit_code}")
    return arrivals[1] - arrivals[0], done.peak_rss_mb


def bench_side_by_side(runs: int) -> None:
    project = Project({"README.md": "bench\n"}, allowed_commands=["sleep"])
    print("\n| agents, each `sleep 2` | turn (median) | worst | floor |\n|---|---|---|---|")
    try:
        for count in (1, 3):
            measured = [one_run(project, count, 2)[0] for _ in range(runs)]
            print(
                f"| {count} | {ms(statistics.median(measured))} | {ms(max(measured))} | 2000 ms |"
            )
            sys.stdout.flush()
    finally:
        project.close()


def bench_memory(runs: int) -> None:
    project = Project({"README.md": "bench\n"}, allowed_commands=["sleep"])
    print("\n| agents alive at once | peak RSS (median) |\n|---|---|")
    try:
        peaks: dict[int, float] = {}
        for count in (0, 1, 8, 16):
            peaks[count] = statistics.median(one_run(project, count, 1)[1] for _ in range(runs))
            print(f"| {count} | {peaks[count]:.1f} MB |")
            sys.stdout.flush()
        slope = (peaks[16] - peaks[0]) / 16
        print(f"\nEach extra agent: about {slope * 1024:.0f} KB (from 0 to 16 agents)")
    finally:
        project.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    precompile()
    os.environ.pop("ASSISTANT_LOG", None)
    bench_side_by_side(args.runs)
    bench_memory(args.runs)


if __name__ == "__main__":
    main()
