"""What confining Bash commands costs, for docs/security.md.

    .venv/bin/python -m benchmarks.sandbox [--runs 200] [--turns 5]

- per command: `true` through the real tool executor (memory store, broker, executor),
  unconfined, under bubblewrap, and under Landlock (the fallback, made to happen by a bwrap
  that fails as one does where user namespaces are turned off), runs interleaved; the median
  of each and the difference. Once in a project with no blockedPaths, once in one of 2,000
  files with a blockedPaths entry (the project's files are listed and judged before each
  command under bubblewrap; unchanged folders cost a stat). Landlock does not hide blocked
  files, so it does not list them; its ruleset is built again before each command here, since
  the homes lie in /tmp, a folder on the way to ~/.ssh that changes all the time. A third
  project has an empty denyRead: nothing on the way changes, and the ruleset is built once.
- the Landlock launcher alone: `python -I -S launcher.pyc FD -- true` against `true`, started
  the same way (``subprocess.run``), with a ruleset built as for a session.
- a turn: four `sleep 1` commands in one headless turn, sandbox on and off (floor 1 s).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio

from actors.protocol import DescribeSandbox, RunTools, ToolCall, ToolFinished
from actors.tool_executor.sandbox import landlock
from actors.tool_executor.sandbox.landlock import make_launcher
from actors.tool_executor.sandbox.places import DEVICES, UNREADABLE
from benchmarks.harness import Project, headless_runs, trust
from benchmarks.run import precompile
from frontends.demo.scripted_api import call, text, tool_calls
from frontends.session import tool_parts
from frontends.session_options import SessionOptions
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


def failing_bwrap() -> str:
    """A bwrap that fails as one does where unprivileged user namespaces are turned off."""
    path = Path(tempfile.mkdtemp(prefix="legato-bench-bwrap-"), "bwrap")
    path.write_text("#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n")
    path.chmod(0o755)
    return str(path)


async def command_times(root: str, runs: int, bwrap: str | None = None) -> tuple[list[float], str]:
    """Seconds for each of ``runs`` `true` calls, and what confined them ("" for nothing)."""
    home = tempfile.mkdtemp(prefix="legato-bench-home-")
    os.mkdir(os.path.join(home, ".ssh"))  # a credential folder, as on a real machine
    await anyio.to_thread.run_sync(trust, root, home)  # the sandbox off widens: trust it
    options = SessionOptions(project_root=root, home=home, permission_mode="custom")
    parts = tool_parts(options, bwrap=bwrap)
    executor = parts.tools
    times = []
    async with supervise(parts.actors):
        report = await executor.address.ask(DescribeSandbox())
        active = report.mechanism if report.active else ""
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
    print(
        "| project | unconfined | bubblewrap | added | landlock | added |\n"
        "|---|---|---|---|---|---|"
    )
    failing = failing_bwrap()
    rows: tuple[tuple[int, list[str], dict[str, list[str]]], ...] = (
        (0, [], {}),
        (FILES, ["*.pem", "secrets/"], {}),
        (0, [], {"denyRead": []}),  # nothing on the way changes: the ruleset is built once
    )
    for files, blocked, sandbox in rows:
        base = {"allowedCommands": ["true"], "blockedPaths": blocked}
        off = make_project(files, base | {"sandbox": {"enabled": False}})
        on = make_project(files, base | {"sandbox": sandbox})
        times: dict[str, list[float]] = {"": [], "bubblewrap": [], "landlock": []}
        for _ in range(5):  # interleaved, so that the machine's load falls on all alike
            times[""] += anyio.run(command_times, off, runs // 5, backend="trio")[0]
            for bwrap, wanted in ((None, "bubblewrap"), (failing, "landlock")):
                taken, mechanism = anyio.run(command_times, on, runs // 5, bwrap, backend="trio")
                if not mechanism.startswith(wanted):
                    raise SystemExit(f"{wanted} is not active here ({mechanism or 'nothing'})")
                times[wanted] += taken
        plain, bubblewrap, landlock = (statistics.median(each) * 1000 for each in times.values())
        name = f"{files:,} files, blockedPaths" if files else "no files, no blockedPaths"
        name += ", denyRead []" if sandbox else ""
        print(
            f"| {name} | {plain:.1f} ms | {bubblewrap:.1f} ms | {bubblewrap - plain:+.1f} ms | "
            f"{landlock:.1f} ms | {landlock - plain:+.1f} ms |"
        )


def launcher_alone(runs: int) -> None:
    """The launcher's own cost, without the executor: what the interpreter's start adds."""
    version = landlock.abi()
    if version < 1:
        raise SystemExit("this kernel has no Landlock: nothing to measure")
    home = os.path.expanduser("~")
    unreadable = tuple(os.path.join(home, name) for name in (".ssh", ".aws", ".gnupg"))
    project = tempfile.mkdtemp(prefix="legato-bench-launch-")
    plan = landlock.Plan((project, *DEVICES), (*unreadable, *UNREADABLE), False)
    started = time.perf_counter()
    ruleset = landlock.build(version, plan)
    built = time.perf_counter() - started
    launcher = make_launcher()
    plain: list[float] = []
    launched: list[float] = []
    for _ in range(runs):
        for argv, into in (
            (["true"], plain),
            ([*launcher.argv(ruleset), "true"], launched),
        ):
            started = time.perf_counter()
            subprocess.run(argv, check=True, pass_fds=(ruleset,), cwd=project)
            into.append(time.perf_counter() - started)
    os.close(ruleset)
    launcher.remove()
    a, b = statistics.median(plain) * 1000, statistics.median(launched) * 1000
    print(
        f"\n| `true`, started alone (ABI {version}) | median |\n|---|---|\n"
        f"| as it is | {a:.1f} ms |\n| through the launcher | {b:.1f} ms ({b - a:+.1f} ms) |\n"
        f"| building the ruleset (once, and when a folder on the way changes) | "
        f"{built * 1000:.1f} ms |"
    )


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
        trust(self.root, self.home)  # the sandbox off widens: applied once trusted


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
    launcher_alone(args.runs)
    four_sleeps(args.turns)


if __name__ == "__main__":
    main()
