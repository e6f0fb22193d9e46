"""The turn as a pipeline: a call starts when its block is complete, for docs/performance.md.

    .venv/bin/python -m benchmarks.pipeline [--runs 5]

- overlap: a `sleep D` command, then a Write whose input streams for about S seconds, for D/S
  of 1/1, 2/2 and 4/1. Timed at the scripted server, from the request that asks for the calls
  to the request that brings their results back. The floor is what the work itself takes with
  the two halves overlapped: the stream read by a bare client, or the command's end counted
  from the moment its block was read, whichever is later. Started at the answer's end instead,
  the same turn would take about D + S (printed beside it).
- parallel: 4 and 16 `sleep 1` commands in one turn, timed the same way, with the default
  limits (no --max-parallel); the floor is 1 s.
- start latency: from a call's content_block_stop leaving the server to its command running
  (the command prints the time it starts), over every call of 16-call turns, paced (10 ms
  between events, so calls arrive while earlier ones run) and all at once. The floor is
  `bash -c date` run straight from Python: the cost of starting the process itself.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import time
from typing import TYPE_CHECKING

import httpx
import msgspec

from benchmarks.harness import LEGATO, Project, run_process
from benchmarks.run import precompile
from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls

if TYPE_CHECKING:
    from collections.abc import Sequence

    from frontends.demo.scripted_api import RecordedRequest, Step

PACE = 0.005  # seconds between SSE events of a streamed input
PIECE = 16  # characters per input_json_delta (the scripted server's)
STOP = b"event: content_block_stop"


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


def turn_seconds(project: Project, steps: list[Step], extra: Sequence[str] = ()) -> float:
    """From the request answered with ``steps[0]`` to the next request, in one headless run."""
    arrivals: list[float] = []

    def answer(request: RecordedRequest) -> Step:
        arrivals.append(time.perf_counter())
        return steps[len(arrivals) - 1]

    project.reset()
    with ScriptedServer(answer) as server:
        done = run_process(
            [LEGATO, project.root, "--headless", "go", *extra], env=project.env(server.url)
        )
    if done.exit_code != 0:
        raise SystemExit(f"a benchmark run failed with exit {done.exit_code}")
    return arrivals[1] - arrivals[0]


def overlap_step(project: Project, command_seconds: float, stream_seconds: float) -> Step:
    content = "x" * int(stream_seconds / PACE * PIECE)
    calls = [
        call("Bash", {"command": f"sleep {command_seconds:g}"}),
        call("Write", {"file_path": project.path("big.txt"), "content": content}),
    ]
    return tool_calls(calls, delay=PACE)


def overlap_floor(step: Step, command_seconds: float, runs: int) -> tuple[float, float]:
    """(the floor, the stream's own time), medians: the answer read by a bare client, timed
    from the server receiving the request, as the turn is."""
    body = {
        "model": "claude-sonnet-4-6",
        "max_tokens": 1024,
        "stream": True,
        "messages": [{"role": "user", "content": "floor"}],
    }
    headers = {"x-api-key": "k", "anthropic-version": "2023-06-01"}
    floors, streams = [], []
    for _ in range(runs):
        arrived: list[float] = []

        def answer(request: RecordedRequest, arrived: list[float] = arrived) -> Step:
            arrived.append(time.perf_counter())
            return step

        with ScriptedServer(answer) as server, httpx.Client(base_url=server.url) as client:
            first_stop: float | None = None
            with client.stream("POST", "/v1/messages", json=body, headers=headers) as response:
                for chunk in response.iter_bytes():
                    if first_stop is None and STOP in chunk:
                        first_stop = time.perf_counter()
            ended = time.perf_counter()
        assert first_stop is not None
        streams.append(ended - arrived[0])
        floors.append(max(ended, first_stop + command_seconds) - arrived[0])
    return statistics.median(floors), statistics.median(streams)


def bench_overlap(runs: int) -> None:
    project = Project({"README.md": "bench\n"}, allowed_commands=["sleep"])
    print(
        "| call of D s, then a call whose input streams S s | turn (median) | floor "
        "| stream alone | D + S |\n|---|---|---|---|---|"
    )
    try:
        for command_seconds, stream_seconds in [(1, 1), (2, 2), (4, 1)]:
            step = overlap_step(project, command_seconds, stream_seconds)
            floor, streamed = overlap_floor(step, command_seconds, runs)
            measured = [turn_seconds(project, [step, text("Done.")]) for _ in range(runs)]
            print(
                f"| D={command_seconds} s, S={stream_seconds} s "
                f"| {ms(statistics.median(measured))} | {ms(floor)} | {ms(streamed)} "
                f"| {ms(command_seconds + streamed)} |"
            )
            sys.stdout.flush()
    finally:
        project.close()


def bench_parallel(runs: int) -> None:
    project = Project({"README.md": "bench\n"}, allowed_commands=["sleep"])
    print("\n| `sleep 1` commands in one turn | turn (median) | worst | floor |\n|---|---|---|---|")
    try:
        for count in (4, 16):
            steps = [
                tool_calls([call("Bash", {"command": "sleep 1"}) for _ in range(count)]),
                text("Done."),
            ]
            measured = [turn_seconds(project, steps) for _ in range(runs)]
            print(
                f"| {count} | {ms(statistics.median(measured))} | {ms(max(measured))} | 1000 ms |"
            )
            sys.stdout.flush()
    finally:
        project.close()


def start_latencies(runs: int, delay: float) -> list[float]:
    """Seconds from each call's content_block_stop being sent to its command running."""
    project = Project({"README.md": "bench\n"}, allowed_commands=["date"])
    times = project.path("times")
    latencies: list[float] = []
    try:
        for _ in range(runs):
            project.reset()
            stops: dict[int, float] = {}

            def sent(data: bytes, stops: dict[int, float] = stops) -> None:
                if data.startswith(STOP):
                    index = msgspec.json.decode(data.split(b"data: ", 1)[1])["index"]
                    stops.setdefault(index, time.time())  # the calls' answer, not the last

            calls = [call("Bash", {"command": f"date +{i}:%s.%N >> {times}"}) for i in range(16)]
            steps = [tool_calls(calls, delay=delay), text("Done.")]
            with ScriptedServer(steps, on_sent=sent) as server:
                done = run_process(
                    [LEGATO, project.root, "--headless", "go"], env=project.env(server.url)
                )
            if done.exit_code != 0:
                raise SystemExit(f"a latency run failed with exit {done.exit_code}")
            with open(times) as file:
                for line in file:
                    index, _, at = line.strip().partition(":")
                    latencies.append(float(at) - stops[int(index)])
    finally:
        project.close()
    return latencies


def process_floor(runs: int) -> float:
    samples = []
    for _ in range(runs):
        started = time.time()
        printed = subprocess.run(
            ["bash", "-c", "date +%s.%N"], capture_output=True, text=True, check=True
        ).stdout
        samples.append(float(printed) - started)
    return statistics.median(samples)


def bench_latency(runs: int) -> None:
    floor = process_floor(20)
    print(
        "\n| content_block_stop to the command running | calls | median | worst | floor |"
        "\n|---|---|---|---|---|"
    )
    for label, delay in [("paced, 10 ms between events", 0.01), ("all at once", 0.0)]:
        latencies = start_latencies(runs, delay)
        print(
            f"| 16 calls, {label} | {len(latencies)} | {ms(statistics.median(latencies))} "
            f"| {ms(max(latencies))} | {floor * 1000:.1f} ms (`bash -c date`) |"
        )
        sys.stdout.flush()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=5)
    args = parser.parse_args()
    precompile()
    os.environ.pop("ASSISTANT_LOG", None)
    bench_overlap(args.runs)
    bench_parallel(args.runs)
    bench_latency(args.runs)


if __name__ == "__main__":
    main()
