"""What recording a project costs a batch that runs a shell command (``/undo`` of commands).

    .venv/bin/python -m benchmarks.checkpoints [--runs N] [--tree DIR]

Two trees: this repository as it is, and a copy of this environment's site-packages
(``__pycache__`` left out). Through the real tool executor, permission broker and memory store
in one process, as a session runs them: ``CaptureCheckpoint`` (the walk, and the copies of
files not yet held), the command itself (``true``), ``SettleCheckpoint`` (the second walk and
the comparison). The first batch of a session reads every text file; later ones read only
what changed. Each figure is the median wall time over ``--runs`` runs.
"""

from __future__ import annotations

import argparse
import os
import shutil
import site
import statistics
import tempfile
import time
from typing import TYPE_CHECKING

import trio

from actors.protocol import CaptureCheckpoint, RunTools, SettleCheckpoint, ToolCall
from actors.tool_executor import snapshots
from frontends.session import tool_parts
from frontends.session_options import SessionOptions
from runtime import supervise

if TYPE_CHECKING:
    from collections.abc import Iterable

    from actors.tool_executor import ToolExecutor

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


async def one_batch(executor: ToolExecutor, run: int, watched: bool) -> tuple[float, float, float]:
    """(capture, command, settle) seconds for one batch of ``true``."""
    address = executor.address
    call = ToolCall(id=f"toolu_{run}", name="Bash", input={"command": "true"})
    start = time.perf_counter()
    watch = 0
    if watched:
        watch = (await address.ask(CaptureCheckpoint(calls=(call,)))).watch
    captured = time.perf_counter()
    async with address.stream(RunTools(calls=(call,))) as stream:
        async for _ in stream:
            pass
    ran = time.perf_counter()
    if watch:
        await address.ask(SettleCheckpoint(watch=watch))
    settled = time.perf_counter()
    return captured - start, ran - captured, settled - ran


async def measure(root: str, home: str, runs: int) -> None:
    options = SessionOptions(project_root=root, home=home, permission_mode="bypass")
    firsts: list[float] = []
    for run in range(max(3, runs // 2)):  # a fresh session each: its first batch reads all
        parts = tool_parts(options)
        async with supervise(parts.actors):
            capture, _, settle = await one_batch(parts.tools, run, watched=True)
            firsts.append(capture + settle)
            store = parts.tools._snapshots  # a benchmark looks inside
    parts = tool_parts(options)
    async with supervise(parts.actors):
        await one_batch(parts.tools, 0, watched=True)
        later = [await one_batch(parts.tools, run, watched=True) for run in range(runs)]
        bare = [await one_batch(parts.tools, run, watched=False) for run in range(runs)]
    assert store is not None
    files = len(store.files)
    copied = sum(1 for seen in store.files.values() if seen.content is not None)
    print(f"  {files:,} files walked, {copied:,} copied, {store.held / 2**20:.1f} MB held")
    print(f"  command alone (true):           {ms(x[1] for x in bare)}")
    print(f"  first batch, walk and copy:     {ms(firsts)} (capture and settle)")
    print(f"  later batch, capture:           {ms(x[0] for x in later)}")
    print(f"  later batch, settle:            {ms(x[2] for x in later)}")
    print(f"  later batch, whole:             {ms(sum(x) for x in later)}")


def ms(values: Iterable[float]) -> str:
    listed = list(values)
    return f"{statistics.median(listed) * 1000:7.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--tree", help="a folder to copy site-packages into and reuse")
    options = parser.parse_args()
    base = options.tree or tempfile.mkdtemp(prefix="legato-checkpoints-")
    home = os.path.join(base, "home")
    os.makedirs(home, exist_ok=True)
    big = os.path.realpath(os.path.join(base, "project"))
    if not os.path.isdir(os.path.join(big, "site")):
        source = site.getsitepackages()[0]
        ignore = shutil.ignore_patterns("__pycache__")
        shutil.copytree(source, os.path.join(big, "site"), symlinks=True, ignore=ignore)
    print(f"limits: {snapshots.MAX_FILES:,} files, {snapshots.MAX_COPY // 2**20} MB a file, "
          f"{snapshots.MAX_STORE // 2**20} MB held")  # fmt: skip
    for label, root in (("this repository", REPO), ("site-packages", big)):
        print(f"{label} ({root})")
        trio.run(measure, root, home, options.runs)


if __name__ == "__main__":
    main()
