"""What background commands cost, for docs/performance.md.

    .venv/bin/python -m benchmarks.background [--runs 20]

Through the real tool executor (memory store, broker, executor; the sandbox as the machine
allows it):

- the Bash call that starts a background command, from request to result;
- TaskStop of a command whose child ignores SIGTERM (the stop waits out the 0.1 s grace);
- a 200 MB flood of output, read with TaskOutput every 20 ms while it runs: each read's time,
  the process's peak memory before and after, and the spill file's size.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import statistics
import tempfile
import time
from pathlib import Path

import anyio

from actors.protocol import DescribeSandbox, RunTools, ToolCall, ToolExecutorMsg, ToolFinished
from frontends.session import tool_parts
from frontends.session_options import SessionOptions
from runtime import Address, supervise

FLOOD = 200_000_000
_calls = iter(range(1_000_000))


async def one(executor: Address[ToolExecutorMsg], name: str, **fields: object) -> str:
    tool_call = ToolCall(id=f"toolu_{next(_calls)}", name=name, input=dict(fields))
    async with executor.stream(RunTools(calls=(tool_call,))) as events:
        async for event in events:
            if isinstance(event, ToolFinished):
                assert not event.result.is_error, event.result.content
                return event.result.content
    raise AssertionError("no result")


def task_id(content: str) -> str:
    found = re.search(r"bash_\d+", content)
    assert found, content
    return found.group(0)


def make_project() -> tuple[str, str]:
    root = os.path.realpath(tempfile.mkdtemp(prefix="legato-bench-background-"))
    home = tempfile.mkdtemp(prefix="legato-bench-home-")
    Path(root, ".legato").mkdir()
    allowed = ["sleep", "yes", "head", "trap", "echo", "exec", "wait"]
    Path(root, ".legato", "settings.json").write_text(json.dumps({"allowedCommands": allowed}))
    return root, home


async def measure(runs: int) -> None:
    root, home = make_project()
    parts = tool_parts(SessionOptions(project_root=root, home=home, permission_mode="custom"))
    async with supervise(parts.actors):
        executor = parts.tools.address
        confined = (await executor.ask(DescribeSandbox())).active
        print(f"commands run {'confined' if confined else 'unconfined'}\n")
        starts = []
        for _ in range(runs):
            began = time.perf_counter()
            started = await one(executor, "Bash", command="sleep 30", run_in_background=True)
            starts.append(time.perf_counter() - began)
            await one(executor, "TaskStop", task_id=task_id(started))
        stops = []
        for _ in range(runs):
            command = "(trap '' TERM; exec sleep 300) & echo up; wait"
            job = task_id(await one(executor, "Bash", command=command, run_in_background=True))
            # Polled as a model would poll it: the read's result is all it knows.
            while "up" not in await one(executor, "TaskOutput", task_id=job, block=False):  # noqa: ASYNC110
                await anyio.sleep(0.005)
            began = time.perf_counter()
            await one(executor, "TaskStop", task_id=job)
            stops.append(time.perf_counter() - began)
        before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        flood = f"yes 'a line of output that goes on' | head -c {FLOOD}"
        job = task_id(await one(executor, "Bash", command=flood, run_in_background=True))
        reads = []
        while True:
            began = time.perf_counter()
            read = await one(executor, "TaskOutput", task_id=job, block=False)
            reads.append(time.perf_counter() - began)
            if "exited" in read:
                break
            await anyio.sleep(0.02)
        after = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
        spilled = re.search(r"in (\S+)\]", read)
        size = (await anyio.Path(spilled.group(1)).stat()).st_size if spilled else 0
    print("| measure | median | worst |\n|---|---|---|")
    for name, times in (
        ("`Bash` `run_in_background` call, request to result", starts),
        ("`TaskStop`, a child ignoring SIGTERM", stops),
        (f"`TaskOutput` during a {FLOOD // 1_000_000} MB flood ({len(reads)} reads)", reads),
    ):
        print(f"| {name} | {statistics.median(times) * 1000:.2f} ms | {max(times) * 1000:.2f} ms |")
    print(
        f"\npeak memory {before / 1024:.0f} MB before the flood, {after / 1024:.0f} MB after; "
        f"spill file {size / 1_000_000:.0f} MB"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=20)
    args = parser.parse_args(argv)
    anyio.run(measure, args.runs, backend="trio")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
