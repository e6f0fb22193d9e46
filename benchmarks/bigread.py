"""Read of big files through the real tool executor: time and peak memory.

    .venv/bin/python -m benchmarks.bigread [--runs 7] [--mb 50]

Four files of ``--mb`` MB each: short lines (80 bytes), the same read from an offset near its
end, one single line with no newline, and long lines (10,000 bytes). Each case runs in a fresh
process: the tool executor, permission broker and memory store as a session has them, one Read
call after another, timed as a whole tool call. Printed are the median and the peak RSS of that
process (``VmHWM``), and the RSS before the first call, so what the reads add shows.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

import trio

from actors.protocol import RunTools, ToolCall, ToolFinished
from frontends.session import tool_parts
from frontends.session_options import SessionOptions
from runtime import supervise

SHORT = 80
LONG = 10_000


def make_files(root: str, size: int) -> dict[str, tuple[str, dict[str, Any]]]:
    """The cases: a label, the file and the Read's arguments besides its path."""
    short = os.path.join(root, "short.txt")
    line = b"x" * (SHORT - 1) + b"\n"
    lines = size // SHORT
    _write(short, line, lines)
    single = os.path.join(root, "single.txt")
    _write(single, b"y" * SHORT, size // SHORT)
    long = os.path.join(root, "long.txt")
    _write(long, b"z" * (LONG - 1) + b"\n", size // LONG)
    return {
        "default Read, 80-byte lines": (short, {}),
        "offset near the end": (short, {"offset": lines - 100}),
        "one single line": (single, {}),
        "10,000-byte lines": (long, {}),
    }


def _write(path: str, piece: bytes, times: int) -> None:
    # In pieces: no string of the whole file is built in this process.
    with open(path, "wb") as file:
        for _ in range(times):
            file.write(piece)


def high_water_mb() -> float:
    """This process's peak RSS (``VmHWM``: unlike ``ru_maxrss``, not carried over an exec)."""
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


async def measure(root: str, path: str, args: dict[str, Any], runs: int) -> dict[str, Any]:
    home = os.path.join(root, "home")
    parts = tool_parts(SessionOptions(project_root=root, home=home, permission_mode="auto"))
    executor = parts.tools
    times: list[float] = []
    async with supervise(parts.actors):
        before = high_water_mb()
        for n in range(runs):
            call = ToolCall(id=f"toolu_{n}", name="Read", input={"file_path": path, **args})
            start = time.perf_counter()
            async with executor.address.stream(RunTools(calls=(call,))) as stream:
                async for event in stream:
                    if isinstance(event, ToolFinished):
                        if event.result.is_error:
                            raise RuntimeError(event.result.content)
                        chars = len(event.result.content)
            times.append(time.perf_counter() - start)
    peak = high_water_mb()
    return {"median": statistics.median(times), "before": before, "peak": peak, "chars": chars}


def one(root: str, path: str, args: str, runs: int) -> None:
    print(json.dumps(trio.run(measure, root, path, json.loads(args), runs)))


def main() -> None:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--mb", type=int, default=50)
    parser.add_argument("--one", nargs=3, help=argparse.SUPPRESS)  # root, path, arguments
    options = parser.parse_args()
    if options.one:
        root, path, args = options.one
        one(root, path, args, options.runs)
        return
    base = tempfile.mkdtemp(prefix="legato-bigread-")
    root = os.path.realpath(base)
    os.makedirs(os.path.join(root, ".legato"))
    with open(os.path.join(root, ".legato", "settings.json"), "w") as file:
        json.dump({}, file)
    try:
        cases = make_files(root, options.mb << 20)
        print(f"{options.mb} MB files, medians of {options.runs} Read calls, one process a case\n")
        print("| case | median | peak RSS | RSS before | output |\n|---|---|---|---|---|")
        for label, (path, args) in cases.items():
            command = [sys.executable, "-m", "benchmarks.bigread", "--runs", str(options.runs)]
            command += ["--one", root, path, json.dumps(args)]
            done = subprocess.run(command, check=True, capture_output=True, text=True)
            got = json.loads(done.stdout)
            print(
                f"| {label} | {got['median'] * 1000:.0f} ms | {got['peak']:.0f} MB "
                f"| {got['before']:.0f} MB | {got['chars']:,} chars |"
            )
    finally:
        shutil.rmtree(base)


if __name__ == "__main__":
    main()
