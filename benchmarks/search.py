"""Grep and Glob through the tool executor against ripgrep, GNU grep and find on the same tree.

    .venv/bin/python -m benchmarks.search [--runs N] [--tree DIR] [--rg PATH] [--no-big]
        [--ten] [--no-turns]

First what a person waits for: each search as the only call of a whole headless turn, its
cost over a Read turn against rg in Legato's order, in the same run (``benchmarks.search_turns``,
which says how; ``--ten``: on ten times the tree, built from a seed). Then the searches below
inside the tool.

The tree is a copy of this environment's site-packages (``__pycache__`` left out), as in
``benchmarks.walk``, put at ``project/site`` with no permission rules. Three searches, each
timed as one whole tool call through the real tool executor, permission broker and memory store
in one process (as a session runs them), and as the same search made directly by ``rg`` and by
GNU ``grep -r`` / ``find``:

- a regex listing the files that match (Grep's files_with_matches; ``rg -l``; ``grep -rl``);
- the same regex with line numbers, the first 200 lines (Grep content, ``-n``, head_limit
  200; ``rg -n`` and ``grep -rn`` read until 200 lines have come, then are stopped);
- a real regex, ``def \\w+\\(self``, listing the files that match (as the first);
- every ``*.py`` file (Glob ``**/*.py``; ``rg --files -g '*.py'``; ``find -name '*.py'``).

Then the big inputs, each in a fresh process so that its peak RSS is its own: a Grep whose
matches would be 100 MB (50 files of 2 MB, every line a match) and a Glob matching 200,000
files, both built in a temporary folder. Each prints its time and the process's peak RSS.

Legato's answers come in an order: files_with_matches and Glob newest first, content by path.
rg's plain runs (the ``rg`` column) are in no order; the ``rg sorted`` column is rg giving the
same order (``--sortr=modified``, ``--sort=path``), which makes it work in one thread.

ripgrep is run with ``--hidden`` because Legato's search includes dotfiles. ``rg`` is looked
for beside this Python, then on PATH, unless ``--rg`` names it; without it its column is left
out. Each figure is the median of ``--runs`` runs, the sides interleaved run by run.
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
from typing import TYPE_CHECKING, Any

import trio

from actors.protocol import RunTools, ToolCall, ToolFinished
from benchmarks import search_turns
from benchmarks.search_turns import run_command
from frontends.session import tool_parts
from frontends.session_options import SessionOptions
from runtime import supervise

if TYPE_CHECKING:
    from actors.tool_executor import ToolExecutor

PATTERN = "def __init__"
REGEX = r"def \w+\(self"
HEAD = 200

# (label, the tool call, rg's arguments, rg's for Legato's order, GNU's command, lines wanted
# or None for all). Legato's answers are in an order (files_with_matches and Glob newest first,
# content by path); rg's plain runs are in no order, and its sorted runs work in one thread.
Search = tuple[str, tuple[str, dict[str, Any]], list[str], list[str], list[str], int | None]
SEARCHES: list[Search] = [
    (
        "Grep files_with_matches",
        ("Grep", {"pattern": PATTERN}),
        ["-l", "--hidden", PATTERN, "site"],
        ["-l", "--hidden", "--sortr=modified", PATTERN, "site"],
        ["grep", "-rl", PATTERN, "site"],
        None,
    ),
    (
        f"Grep content -n head_limit {HEAD}",
        ("Grep", {"pattern": PATTERN, "output_mode": "content", "-n": True, "head_limit": HEAD}),
        ["-n", "--hidden", PATTERN, "site"],
        ["-n", "--hidden", "--sort=path", PATTERN, "site"],
        ["grep", "-rn", PATTERN, "site"],
        HEAD,
    ),
    (
        "Grep regex files_with_matches",
        ("Grep", {"pattern": REGEX}),
        ["-l", "--hidden", REGEX, "site"],
        ["-l", "--hidden", "--sortr=modified", REGEX, "site"],
        ["grep", "-rlP", REGEX, "site"],
        None,
    ),
    (
        "Glob **/*.py",
        ("Glob", {"pattern": "**/*.py"}),
        ["--files", "--hidden", "-g", "*.py", "site"],
        ["--files", "--hidden", "-g", "*.py", "--sortr=modified", "site"],
        ["find", "site", "-name", "*.py", "-type", "f"],
        None,
    ),
]


def find_rg(given: str | None) -> str | None:
    if given:
        return given
    beside = os.path.join(os.path.dirname(sys.executable), "rg")
    if os.access(beside, os.X_OK):
        return beside
    return shutil.which("rg")


async def call_tool(executor: ToolExecutor, name: str, args: dict[str, Any], n: int) -> float:
    call = ToolCall(id=f"toolu_{n}", name=name, input=args)
    start = time.perf_counter()
    async with executor.address.stream(RunTools(calls=(call,))) as stream:
        async for event in stream:
            if isinstance(event, ToolFinished) and event.result.is_error:
                raise RuntimeError(event.result.content)
    return time.perf_counter() - start


async def measure(root: str, home: str, runs: int, rg: str | None) -> None:
    parts = tool_parts(SessionOptions(project_root=root, home=home, permission_mode="auto"))
    executor = parts.tools
    header = (
        f"  {'search':34} {'Legato':>9} {'rg':>9} {'rg sorted':>10} {'GNU':>9}"
        "   Legato/rg  /rg sorted  Legato/GNU"
    )
    print(header)
    async with supervise(parts.actors):
        for label, (name, args), rg_args, sorted_args, gnu, wanted in SEARCHES:
            legato: list[float] = []
            direct: list[float] = []
            ordered: list[float] = []
            gnu_times: list[float] = []
            for run in range(runs):
                legato.append(await call_tool(executor, name, args, run))
                if rg is not None:
                    direct.append(run_command([rg, *rg_args], root, wanted)[0])
                    ordered.append(run_command([rg, *sorted_args], root, wanted)[0])
                gnu_times.append(run_command(gnu, root, wanted)[0])
            ours = statistics.median(legato) * 1000
            theirs = statistics.median(gnu_times) * 1000
            if direct:
                fastest = statistics.median(direct) * 1000
                same = statistics.median(ordered) * 1000
                shown_rg = f"{fastest:7.0f}ms {same:8.0f}ms"
                ratios = f"{ours / fastest:9.1f}x {ours / same:10.1f}x"
            else:
                shown_rg, ratios = f"{'--':>9} {'--':>10}", f"{'--':>10} {'--':>11}"
            versus_gnu = f"{ours / theirs:9.1f}x"
            print(f"  {label:34} {ours:7.0f}ms {shown_rg} {theirs:7.0f}ms  {ratios}  {versus_gnu}")


def build_big(base: str) -> None:
    """100 MB of matching lines, and 200,000 small files."""
    os.makedirs(os.path.join(base, "matches"))
    line = b"a line that matches the search, and then some more text to make it long\n"
    block = line * (2 * 2**20 // len(line))
    for index in range(50):
        with open(os.path.join(base, "matches", f"m{index}.txt"), "wb") as file:
            file.write(block)
    for folder in range(200):
        path = os.path.join(base, "many", f"d{folder}")
        os.makedirs(path)
        for index in range(1000):
            with open(os.path.join(path, f"f{index}.txt"), "wb"):
                pass


async def measure_big(root: str, home: str, name: str, args: dict[str, Any]) -> None:
    parts = tool_parts(SessionOptions(project_root=root, home=home, permission_mode="auto"))
    executor = parts.tools
    async with supervise(parts.actors):
        seconds = await call_tool(executor, name, args, 0)
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"  {name} {json.dumps(args)}: {seconds * 1000:.0f} ms, peak RSS {peak:.0f} MB")


BIG = [
    ("Grep", {"pattern": "matches", "path": "matches", "output_mode": "content"}),
    ("Grep", {"pattern": "matches", "path": "matches"}),
    ("Glob", {"pattern": "many/**/*.txt"}),
]


def big_inputs(rg: str | None) -> None:
    base = tempfile.mkdtemp(prefix="legato-search-big-")
    try:
        root = os.path.join(base, "project")
        build_big(root)
        os.makedirs(os.path.join(root, ".legato"))
        with open(os.path.join(root, ".legato", "settings.json"), "w") as file:
            json.dump({}, file)
        print("big inputs (each a fresh process):")
        for name, args in BIG:
            command = [sys.executable, "-m", "benchmarks.search", "--one", root, name]
            subprocess.run([*command, json.dumps(args)], check=True)
        if rg is not None:
            peak, seconds = rg_peak([rg, "--hidden", "-c", "matches", "matches"], root)
            print(f"  rg -c over the 100 MB: {seconds * 1000:.0f} ms, peak RSS {peak:.0f} MB")
    finally:
        shutil.rmtree(base)


def rg_peak(command: list[str], cwd: str) -> tuple[float, float]:
    start = time.perf_counter()
    subprocess.run(command, cwd=cwd, stdout=subprocess.DEVNULL, check=False)
    seconds = time.perf_counter() - start
    return resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024, seconds


def main() -> None:
    if sys.argv[1:2] == ["--one"]:  # one big-input call, in this fresh process
        root, name, args = sys.argv[2:5]
        trio.run(measure_big, root, os.path.join(root, "..", "home"), name, json.loads(args))
        return
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--no-big", action="store_true", help="leave out the big inputs")
    parser.add_argument("--tree", help="a folder to copy the tree into and reuse")
    parser.add_argument("--rg", help="the rg binary (default: beside this Python, or on PATH)")
    parser.add_argument("--ten", action="store_true", help="ten times the tree, from a seed")
    parser.add_argument("--no-turns", action="store_true", help="leave out the whole turns")
    options = parser.parse_args()
    rg = find_rg(options.rg)
    base = options.tree or tempfile.mkdtemp(prefix="legato-search-")
    root = search_turns.build(base, options.ten)
    home = os.path.join(base, "home")
    os.makedirs(home, exist_ok=True)
    files = sum(len(names) for _, _, names in os.walk(os.path.join(root, "site")))
    print(f"{files} files under {root}; rg: {rg or 'not found'}; medians of {options.runs}")
    try:
        if rg is not None and not options.no_turns:
            print("whole headless turns (benchmarks.search_turns):")
            search_turns.measure(root, home, options.runs, rg)
            print("whole tool calls, in one process:")
        trio.run(measure, root, home, options.runs, rg)
    finally:
        if options.tree is None:
            shutil.rmtree(base)
    if not options.no_big:
        big_inputs(rg)


if __name__ == "__main__":
    main()
