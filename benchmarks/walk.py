"""Glob and Grep over a tree of ~9,000 files, with no path rules and with a few.

    .venv/bin/python -m benchmarks.walk [--runs N] [--tree DIR]

The tree is a copy of this environment's site-packages (``__pycache__`` left out). The calls
go through the real tool executor, permission broker and memory store in one process, as a
session runs them; each figure is the median wall time of one call over ``--runs`` runs.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import site
import statistics
import tempfile
import time
from typing import Any

import trio

from actors.protocol import RunTools, ToolCall, ToolFinished
from frontends.session import tool_parts
from frontends.session_options import SessionOptions
from runtime import supervise

CALLS: list[tuple[str, dict[str, Any]]] = [
    ("Grep", {"pattern": "def __init__"}),
    ("Grep", {"pattern": "zzzqqq_nothing"}),
    ("Glob", {"pattern": "**/*"}),
    ("Glob", {"pattern": "**/*.py"}),
]
RULES: dict[str, dict[str, Any]] = {
    "no rules": {},
    "a few rules": {
        "blockedPaths": [".env", "secrets/", "*.pem", "**/tests/**"],
        "allowedPaths": ["site/**"],
    },
}


async def measure(root: str, home: str, runs: int) -> None:
    parts = tool_parts(SessionOptions(project_root=root, home=home, permission_mode="auto"))
    executor = parts.tools
    async with supervise(parts.actors):
        for name, args in CALLS:
            times = []
            last = ""
            for run in range(runs):
                call = ToolCall(id=f"toolu_{run}", name=name, input=args)
                start = time.perf_counter()
                async with executor.address.stream(RunTools(calls=(call,))) as stream:
                    async for event in stream:
                        if isinstance(event, ToolFinished):
                            last = event.result.content.rsplit("\n", 1)[-1]
                times.append(time.perf_counter() - start)
            median = statistics.median(times) * 1000
            print(f"  {name} {json.dumps(args):40} {median:7.0f} ms   {last[:70]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--tree", help="a folder to copy the tree into and reuse")
    options = parser.parse_args()
    base = options.tree or tempfile.mkdtemp(prefix="legato-walk-")
    root = os.path.realpath(os.path.join(base, "project"))
    if not os.path.isdir(os.path.join(root, "site")):
        source = site.getsitepackages()[0]
        ignore = shutil.ignore_patterns("__pycache__")
        shutil.copytree(source, os.path.join(root, "site"), symlinks=True, ignore=ignore)
    files = sum(len(names) for _, _, names in os.walk(os.path.join(root, "site")))
    print(f"{files} files under {root}")
    os.makedirs(os.path.join(root, ".legato"), exist_ok=True)
    for label, settings in RULES.items():
        with open(os.path.join(root, ".legato", "settings.json"), "w") as file:
            json.dump(settings, file)
        print(label, json.dumps(settings) if settings else "")
        trio.run(measure, root, os.path.join(base, "home"), options.runs)
    if options.tree is None:
        shutil.rmtree(base)


if __name__ == "__main__":
    main()
