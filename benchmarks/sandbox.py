"""What confining Bash commands costs, for docs/security.md.

    .venv/bin/python -m benchmarks.sandbox [--runs 200] [--turns 5]

- per command: `true` through the real tool executor (memory store, broker, executor), with
  the sandbox on and off, runs interleaved; the median of each and the difference. Once in a
  project with no blockedPaths, once in one of 2,000 files with a blockedPaths entry (the
  project's files are listed and judged before each command; unchanged folders cost a stat).
- a turn: four `sleep 1` commands in one headless turn, sandbox on and off (floor 1 s).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio

from actors.memory_store import MemoryStore, Overrides
from actors.permission_broker import PermissionBroker
from actors.protocol import DescribeSandbox, RunTools, ToolCall, ToolFinished
from actors.tool_executor import ToolExecutor
from benchmarks.harness import Project, headless_runs
from benchmarks.run import precompile
from frontends.demo.scripted_api import call, text, tool_calls
from runtime import supervise

if TYPE_CHECKING:
    from frontends.demo.scripted_api import Step

FILES = 2_000


def make_project(files: int, settings: dict[str, Any]) -> str:
    root = os.path.realpath(tempfile.mkdtemp(prefix="legato-bench-sandbox-"))
    for i in range(files):
        folder = Path(root, f"pkg{i // 100}")
        folder.mkdir(exist_ok=True)
        (folder / f"m{i}.py").write_text("x = 1\n")
    Path(root, ".legato").mkdir()
    Path(root, ".legato", "settings.json").write_text(json.dumps(settings))
    return root


async def command_times(root: str, runs: int) -> tuple[list[float], bool]:
    """Seconds for each of ``runs`` `true` calls, and whether they ran confined."""
    home = tempfile.mkdtemp(prefix="legato-bench-home-")
    memory = MemoryStore(root, home=home, overrides=Overrides(permission_mode="custom"))
    broker = PermissionBroker(memory.address)
    executor = ToolExecutor(broker.address, project_root=root, memory=memory.address)
    times = []
    async with supervise([memory, broker, executor]):
        active = (await executor.address.ask(DescribeSandbox())).active
        for n in range(runs + 5):  # the first few warm the caches: not counted
            tool_call = ToolCall(id=f"toolu_{n}", name="Bash", input={"command": "true"})
            started = anyio.current_time()
            async with executor.address.stream(RunTools(calls=(tool_call,))) as events:
                async for event in events:
                    if isinstance(event, ToolFinished):
                        assert not event.result.is_error, event.result.content
            if n >= 5:
                times.append(anyio.current_time() - started)
    return times, active


def per_command(runs: int) -> None:
    print("| project | unconfined (median) | confined (median) | added |\n|---|---|---|---|")
    for files, blocked in ((0, []), (FILES, ["*.pem", "secrets/"])):
        base = {"allowedCommands": ["true"], "blockedPaths": blocked}
        off = make_project(files, base | {"sandbox": {"enabled": False}})
        on = make_project(files, base)
        plain: list[float] = []
        confined: list[float] = []
        for _ in range(5):  # interleaved, so that the machine's load falls on both alike
            plain += anyio.run(command_times, off, runs // 5, backend="trio")[0]
            times, active = anyio.run(command_times, on, runs // 5, backend="trio")
            if not active:
                raise SystemExit("the sandbox is not active here: nothing to measure")
            confined += times
        a, b = statistics.median(plain), statistics.median(confined)
        name = f"{files:,} files, blockedPaths" if files else "no files, no blockedPaths"
        print(f"| {name} | {a * 1000:.1f} ms | {b * 1000:.1f} ms | {(b - a) * 1000:+.1f} ms |")


class SandboxProject(Project):
    def __init__(self, enabled: bool) -> None:
        self.enabled = enabled
        super().__init__({"README.md": "bench\n"}, allowed_commands=["sleep"])

    def reset(self) -> None:
        super().reset()
        settings = Path(self.root, ".legato", "settings.json")
        values = json.loads(settings.read_text())
        values["sandbox"] = {"enabled": self.enabled}
        settings.write_text(json.dumps(values))


def four_sleeps(turns: int) -> None:
    def steps() -> list[Step]:
        sleeps = [call("Bash", {"command": "sleep 1"}) for _ in range(4)]
        return [tool_calls(sleeps), text("All four done.")]

    print("\n| four `sleep 1` commands in one turn | run (median) | worst |\n|---|---|---|")
    for enabled in (False, True):
        project = SandboxProject(enabled)
        try:
            runs = headless_runs(project, steps, "run four sleeps", runs=turns)
        finally:
            project.close()
        seconds = [run.seconds for run in runs]
        name = "sandbox on" if enabled else "sandbox off"
        print(f"| {name} | {statistics.median(seconds):.2f} s | {max(seconds):.2f} s |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=200, help="commands timed per setting")
    parser.add_argument("--turns", type=int, default=5, help="headless turns per setting")
    args = parser.parse_args()
    precompile()
    per_command(args.runs)
    four_sleeps(args.turns)


if __name__ == "__main__":
    main()
