"""Run every benchmark and print the table for docs/performance.md.

    .venv/bin/python -m benchmarks.run [--runs N]

Targets: --version < 60 ms; 20-file read+edit batch < 0.6 s and < 80 MB;
four 1-second commands < 1.3 s; 20,000 streamed words < 0.5 s.
"""

from __future__ import annotations

import argparse
import os
import sys
import time

from benchmarks.harness import (
    LEGATO,
    REPO,
    Project,
    Result,
    headless_runs,
    print_results,
    run_process,
)
from frontends.demo.scripted_api import ScriptedServer, Step, call, text, tool_calls

FILES = 20
WORDS = 20_000


def precompile() -> None:
    """Write bytecode for Legato and its packages first, as any installed copy has it.

    Without this, a machine that sets PYTHONDONTWRITEBYTECODE (CI images often do) would
    measure Python compiling every module on every start instead of Legato.
    """
    import compileall
    import sysconfig

    for folder in (*(str(REPO / name) for name in ("runtime", "actors", "frontends")),
                   sysconfig.get_paths()["purelib"]):  # fmt: skip
        compileall.compile_dir(folder, quiet=2, workers=0)


def python_startup(runs: int, code: str = "pass") -> float:
    samples = sorted(
        run_process([sys.executable, "-c", code], env=dict(os.environ)).seconds for _ in range(runs)
    )
    return samples[len(samples) // 2]


def server_floor(steps: list[Step], runs: int) -> float:
    """The scripted server's own time: the same responses read by a bare HTTP client."""
    import httpx

    samples = []
    for _ in range(runs):
        with ScriptedServer(steps) as server, httpx.Client(base_url=server.url) as client:
            started = time.perf_counter()
            for _ in steps:
                body = {
                    "model": "claude-sonnet-4-6",
                    "max_tokens": 1024,
                    "stream": True,
                    "messages": [{"role": "user", "content": "floor"}],
                }
                headers = {"x-api-key": "k", "anthropic-version": "2023-06-01"}
                with client.stream("POST", "/v1/messages", json=body, headers=headers) as r:
                    for _ in r.iter_bytes():
                        pass
            samples.append(time.perf_counter() - started)
    samples.sort()
    return samples[len(samples) // 2]


def bench_first_request(runs: int, startup: float) -> Result:
    """From spawning `legato --headless` to the scripted server receiving the first request."""
    from benchmarks.harness import Run, run_process

    project = Project({"README.md": "bench\n"})
    measured = []
    try:
        for _ in range(runs):
            arrived: list[float] = []

            def answer(_request: object, arrived: list[float] = arrived) -> Step:
                arrived.append(time.perf_counter())
                return text("ok")

            with ScriptedServer(answer) as server:
                started = time.perf_counter()
                run = run_process(
                    [LEGATO, project.root, "--headless", "hi"], env=project.env(server.url)
                )
            measured.append(Run(arrived[0] - started, run.peak_rss_mb, run.exit_code, b""))
    finally:
        project.close()
    stack = python_startup(runs, "import trio, httpx, anyio, msgspec")
    return Result(
        "start to first request sent", measured, stack, "import trio, httpx, anyio, msgspec",
        "< 250 ms",
    )  # fmt: skip


def bench_version(runs: int, startup: float) -> Result:
    env = dict(os.environ)
    measured = [run_process([LEGATO, "--version"], env=env) for _ in range(runs)]
    return Result("`legato --version`", measured, startup, "python -c pass", "< 60 ms")


def bench_batch(runs: int, startup: float) -> Result:
    project = Project({f"src/module_{i}.py": f"old_name = {i}\n" for i in range(FILES)})

    def steps() -> list[Step]:
        reads = [
            call("Read", {"file_path": project.path(f"src/module_{i}.py")}) for i in range(FILES)
        ]
        edits = [
            call(
                "Edit",
                {
                    "file_path": project.path(f"src/module_{i}.py"),
                    "old_string": "old_name",
                    "new_string": "new_name",
                },
            )
            for i in range(FILES)
        ]
        return [
            tool_calls(reads, text="Reading the files."),
            tool_calls(edits, text="Renaming."),
            text("Renamed old_name to new_name in 20 files."),
        ]

    try:
        measured = headless_runs(project, steps, "rename old_name to new_name", runs=runs)
        floor = startup + server_floor(steps(), runs=3)
    finally:
        project.close()
    return Result(
        "20-file read+edit batch (3 model turns)", measured, floor,
        "python start + server", "< 600 ms, < 80 MB",
    )  # fmt: skip


def bench_parallel(runs: int) -> Result:
    project = Project({"README.md": "bench\n"}, allowed_commands=["sleep"])

    def steps() -> list[Step]:
        sleeps = [call("Bash", {"command": "sleep 1"}) for _ in range(4)]
        return [tool_calls(sleeps), text("All four done.")]

    try:
        measured = headless_runs(project, steps, "run four sleeps", runs=runs)
    finally:
        project.close()
    return Result("four `sleep 1` commands in one turn", measured, 1.0, "1 s of sleep", "< 1.3 s")


def bench_stream(runs: int, startup: float) -> Result:
    project = Project({"README.md": "bench\n"})
    words = " ".join(f"word{i}" for i in range(WORDS))

    def steps() -> list[Step]:
        return [text(words, chunk_words=1)]

    try:
        measured = headless_runs(project, steps, "talk", runs=runs)
        floor = startup + server_floor(steps(), runs=3)
    finally:
        project.close()
    result = Result(
        f"{WORDS:,} streamed words (one delta each), text to a pipe", measured, floor,
        "python start + server", "< 500 ms",
    )  # fmt: skip
    if any(run.stdout.decode().split() != words.split() for run in measured):
        result.notes.append("OUTPUT MISMATCH: the streamed text differs from what was sent")
    return result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    precompile()
    startup = python_startup(args.runs)
    results = [
        bench_version(max(args.runs, 20), startup),
        bench_first_request(args.runs, startup),
        bench_batch(args.runs, startup),
        bench_parallel(max(3, args.runs // 2)),
        bench_stream(args.runs, startup),
    ]
    print_results(results)


if __name__ == "__main__":
    main()
