"""What a hook costs a tool call, for docs/performance.md.

    .venv/bin/python -m benchmarks.hooks [--runs 50]

Through the real memory store, broker, hook runner and tool executor (custom mode, the file
allowed), one ``Read`` call at a time, request to result, runs interleaved:

- no hook configured (the executor sends the runner nothing);
- a ``PreToolUse`` hook on ``Read`` running ``true`` (one ``bash -c`` per call);
- the floor: ``bash -c true`` started and waited for alone, from the same process.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from pathlib import Path

import anyio

from actors.protocol import RunTools, ToolCall, ToolExecutorMsg, ToolFinished
from frontends.session import tool_parts
from frontends.session_options import SessionOptions
from runtime import Address, supervise

_calls = iter(range(1_000_000))


async def read(executor: Address[ToolExecutorMsg], path: str) -> float:
    call = ToolCall(id=f"toolu_{next(_calls)}", name="Read", input={"file_path": path})
    began = time.perf_counter()
    async with executor.stream(RunTools(calls=(call,))) as events:
        async for event in events:
            if isinstance(event, ToolFinished):
                assert not event.result.is_error, event.result.content
    return time.perf_counter() - began


def project(hooks: dict[str, object] | None) -> tuple[str, str]:
    root = os.path.realpath(tempfile.mkdtemp(prefix="legato-bench-hooks-"))
    home = tempfile.mkdtemp(prefix="legato-bench-home-")
    Path(root, ".legato").mkdir()
    Path(root, "a.txt").write_text("some text\n" * 20)
    settings: dict[str, object] = {"allowedPaths": ["a.txt"]}
    if hooks is not None:
        # The user's own hooks, as an approved project's would run.
        Path(home, ".config", "legato").mkdir(parents=True)
        Path(home, ".config", "legato", "config.json").write_text(json.dumps({"hooks": hooks}))
    Path(root, ".legato", "settings.json").write_text(json.dumps(settings))
    return root, home


async def session(hooks: dict[str, object] | None, runs: int, out: list[float]) -> None:
    root, home = project(hooks)
    options = SessionOptions(
        project_root=root, home=home, permission_mode="custom", session_id="bench"
    )
    parts = tool_parts(options)
    tools = parts.tools
    async with supervise(parts.actors):
        path = os.path.join(root, "a.txt")
        for _ in range(5):  # warm
            await read(tools.address, path)
        for _ in range(runs):
            out.append(await read(tools.address, path))


async def floor(runs: int) -> list[float]:
    times = []
    for _ in range(runs):
        began = time.perf_counter()
        await anyio.run_process(["bash", "-c", "true"])
        times.append(time.perf_counter() - began)
    return times


async def measure(runs: int) -> None:
    hook: dict[str, object] = {
        "PreToolUse": [{"matcher": "Read", "hooks": [{"type": "command", "command": "true"}]}]
    }
    without: list[float] = []
    with_hook: list[float] = []
    bare: list[float] = []
    for _ in range(5):  # interleaved rounds
        await session(None, runs // 5, without)
        await session(hook, runs // 5, with_hook)
        bare += await floor(runs // 5)
    print("| one `Read` call, request to result | median | p90 |\n|---|---|---|")
    for name, times in (
        ("no hook", without),
        ("a `PreToolUse` hook running `true`", with_hook),
        ("floor: `bash -c true` alone", bare),
    ):
        ordered = sorted(times)
        p90 = ordered[int(len(ordered) * 0.9)]
        print(f"| {name} | {statistics.median(times) * 1000:.2f} ms | {p90 * 1000:.2f} ms |")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=50)
    args = parser.parse_args(argv)
    anyio.run(measure, args.runs, backend="trio")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
