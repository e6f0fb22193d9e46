"""Cancellation and concurrency figures, for docs/performance.md.

    .venv/bin/python -m benchmarks.cancellation [--runs 50]

- signal to exit: SIGINT (and SIGTERM) sent to `legato --headless` while a Bash call runs a
  tree of sleeps, to the moment the process has exited (its parent's waitpid returns); median
  and worst of ``--runs``. Twice: a tree that dies at SIGTERM, and one with a child that
  ignores SIGTERM (it gets SIGKILL after the interrupt grace). Every process of the tree is
  checked to be gone.
- parallel speed-up: one turn of N `sleep 1` calls (N = 1, 2, 4, 8, 16, `--max-parallel 16`),
  timed at the scripted server from the request that asks for the calls to the request that
  brings their results; the floor is 1 s.
- peak RSS while a command prints 1 GB, against the same session printing 1 KB.
"""

from __future__ import annotations

import argparse
import os
import signal
import statistics
import subprocess
import sys
import time
from typing import TYPE_CHECKING

from benchmarks.harness import LEGATO, Project, run_process
from benchmarks.run import precompile
from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls

if TYPE_CHECKING:
    from frontends.demo.scripted_api import RecordedRequest, Step

GB = 1_000_000_000


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    try:
        with open(f"/proc/{pid}/stat", "rb") as file:
            return file.read().rsplit(b")", 1)[1].split()[0] not in (b"Z", b"X")
    except OSError:
        return False


def signal_to_exit(
    runs: int, *, resisting: bool, signum: signal.Signals
) -> tuple[list[float], int]:
    """Seconds from the signal to the process's exit, per run; and how many processes of the
    command trees were still alive afterwards (must be 0)."""
    allowed = ["sleep", "echo", "trap", "exec", "touch", "wait"]
    project = Project({"README.md": "bench\n"}, allowed_commands=allowed)
    pids, ready = project.path("pids"), project.path("ready")
    resist = f"(trap '' TERM; exec sleep 301) & echo $! >> {pids}; " if resisting else ""
    command = f"echo $$ >> {pids}; sleep 300 & echo $! >> {pids}; {resist}touch {ready}; wait"
    latencies: list[float] = []
    survivors = 0
    try:
        for _ in range(runs):
            project.reset()
            steps = [tool_calls([call("Bash", {"command": command})])]
            with ScriptedServer(steps) as server:
                process = subprocess.Popen(
                    [LEGATO, project.root, "--headless", "wait"],
                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                    env=project.env(server.url),
                )  # fmt: skip
                deadline = time.monotonic() + 30
                while not os.path.exists(ready):
                    if time.monotonic() > deadline or process.poll() is not None:
                        raise SystemExit("the command never started")
                    time.sleep(0.0005)
                sent = time.perf_counter()
                process.send_signal(signum)
                _, status = os.waitpid(process.pid, 0)
                latencies.append(time.perf_counter() - sent)
                process.returncode = os.waitstatus_to_exitcode(status)
                expected = 130 if signum == signal.SIGINT else 143
                if process.returncode != expected:
                    raise SystemExit(f"exit {process.returncode}, expected {expected}")
            with open(pids) as file:
                survivors += sum(alive(int(pid)) for pid in file.read().split())
    finally:
        project.close()
    return latencies, survivors


def parallel(counts: list[int]) -> dict[int, float]:
    """Seconds from the request answered with N calls to the request carrying their results."""
    project = Project({"README.md": "bench\n"}, allowed_commands=["sleep"])
    measured: dict[int, float] = {}
    try:
        for count in counts:
            project.reset()
            arrivals: list[float] = []
            steps: list[Step] = [
                tool_calls([call("Bash", {"command": "sleep 1"}) for _ in range(count)]),
                text("Done."),
            ]

            def answer(
                request: RecordedRequest,
                steps: list[Step] = steps,
                arrivals: list[float] = arrivals,
            ) -> Step:
                arrivals.append(time.perf_counter())
                return steps[len(arrivals) - 1]

            with ScriptedServer(answer) as server:
                done = run_process(
                    [LEGATO, project.root, "--headless", "sleep", "--max-parallel", "16"],
                    env=project.env(server.url),
                )
            if done.exit_code != 0:
                raise SystemExit(f"the {count}-call run failed with exit {done.exit_code}")
            measured[count] = arrivals[1] - arrivals[0]
    finally:
        project.close()
    return measured


def flood_rss() -> tuple[float, float, float]:
    """Peak RSS (MB) of a session whose command prints 1 GB, and of one printing 1 KB; and the
    1 GB run's wall time."""
    project = Project({"README.md": "bench\n"}, allowed_commands=["yes", "head"])
    results = []
    try:
        for size in (GB, 1000):
            project.reset()
            steps = [tool_calls([call("Bash", {"command": f"yes | head -c {size}"})]), text("ok")]
            with ScriptedServer(steps) as server:
                done = run_process(
                    [LEGATO, project.root, "--headless", "flood"], env=project.env(server.url)
                )
            if done.exit_code != 0:
                raise SystemExit(f"the flood run failed with exit {done.exit_code}")
            results.append(done)
    finally:
        project.close()
    return results[0].peak_rss_mb, results[1].peak_rss_mb, results[0].seconds


def ms(seconds: float) -> str:
    return f"{seconds * 1000:.0f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=50)
    args = parser.parse_args()
    precompile()
    print("| stop | runs | median | worst | processes left |\n|---|---|---|---|---|")
    cases = [
        ("SIGINT, `sleep` tree", False, signal.SIGINT),
        ("SIGTERM, `sleep` tree", False, signal.SIGTERM),
        ("SIGINT, tree with a child ignoring SIGTERM", True, signal.SIGINT),
    ]
    for label, resisting, signum in cases:
        latencies, left = signal_to_exit(args.runs, resisting=resisting, signum=signum)
        print(
            f"| {label} | {len(latencies)} | {ms(statistics.median(latencies))} | "
            f"{ms(max(latencies))} | {left} |"
        )
    sys.stdout.flush()
    print("\n| `sleep 1` calls in one turn | batch time | speed-up | floor |\n|---|---|---|---|")
    for count, seconds in parallel([1, 2, 4, 8, 16]).items():
        print(f"| {count} | {ms(seconds)} | {count / seconds:.1f}x | 1000 ms |")
    sys.stdout.flush()
    flood, quiet, seconds = flood_rss()
    print("\n| command output | peak RSS | wall time |\n|---|---|---|")
    print(f"| 1 KB | {quiet:.0f} MB | |")
    print(f"| 1 GB | {flood:.0f} MB | {seconds:.1f} s |")


if __name__ == "__main__":
    main()
