"""Shared pieces of the benchmarks: whole `legato` processes against the scripted server.

Every figure is a median over several runs, printed beside its floor: what the same work costs
with Legato taken out (interpreter start-up, the scripted server's own time, the commands' own
sleep). Peak RSS is read per run from the kernel's accounting of that one child (``wait4``).
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Callable, Sequence

    from frontends.demo.scripted_api import Step

REPO = Path(__file__).resolve().parent.parent
LEGATO = str(REPO / ".venv" / "bin" / "legato")


@dataclass
class Run:
    seconds: float
    peak_rss_mb: float
    exit_code: int
    stdout: bytes


@dataclass
class Result:
    name: str
    runs: list[Run]
    floor_seconds: float
    floor_label: str
    target: str
    notes: list[str] = field(default_factory=list)

    @property
    def median(self) -> float:
        return statistics.median(r.seconds for r in self.runs)

    @property
    def worst(self) -> float:
        return max(r.seconds for r in self.runs)

    @property
    def peak_rss_mb(self) -> float:
        return max(r.peak_rss_mb for r in self.runs)

    def row(self) -> str:
        return (
            f"| {self.name} | {self.median * 1000:.0f} ms | {self.worst * 1000:.0f} ms | "
            f"{self.floor_seconds * 1000:.0f} ms ({self.floor_label}) | "
            f"{self.peak_rss_mb:.0f} MB | {self.target} |"
        )


HEADER = "| benchmark | median | worst | floor | peak RSS | target |\n|---|---|---|---|---|---|"


GNU_TIME = shutil.which("time") if os.path.exists("/usr/bin/time") else None


def run_process(argv: Sequence[str], *, env: dict[str, str], cwd: str | None = None) -> Run:
    """Run one process to the end; its wall time and its own peak RSS.

    The peak is read by GNU time when the machine has it: the kernel's figure for a child
    forked straight from this (large) Python process would start at this process's size.
    """
    with tempfile.TemporaryFile() as out, tempfile.NamedTemporaryFile("r") as rss:
        command = list(argv)
        if GNU_TIME:
            command = [GNU_TIME, "-f", "%M", "-o", rss.name, *command]
        started = time.perf_counter()
        process = subprocess.Popen(
            command, stdout=out, stderr=subprocess.DEVNULL, stdin=subprocess.DEVNULL,
            env=env, cwd=cwd,
        )  # fmt: skip
        _, status, usage = os.wait4(process.pid, 0)
        elapsed = time.perf_counter() - started
        process.returncode = os.waitstatus_to_exitcode(status)
        peak_kb = float(rss.read().strip().splitlines()[-1]) if GNU_TIME else usage.ru_maxrss
        out.seek(0)
        stdout = out.read()
    return Run(elapsed, peak_kb / 1024, process.returncode, stdout)


class Project:
    """A throwaway project and home folder, with settings that allow what a benchmark does."""

    def __init__(self, files: dict[str, str], allowed_commands: Sequence[str] = ()) -> None:
        self._scratch = tempfile.mkdtemp(prefix="legato-bench-")
        self.root = os.path.realpath(os.path.join(self._scratch, "project"))
        self.home = os.path.join(self._scratch, "home")
        os.makedirs(self.home)
        self.files = files
        self.allowed_commands = list(allowed_commands)
        self.reset()

    def reset(self) -> None:
        shutil.rmtree(self.root, ignore_errors=True)
        for relative, content in self.files.items():
            path = os.path.join(self.root, relative)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            Path(path).write_text(content)
        os.makedirs(os.path.join(self.root, ".legato"), exist_ok=True)
        settings = {
            "permissionMode": "custom",
            "allowedPaths": ["**"],
            "allowedCommands": self.allowed_commands,
        }
        Path(self.root, ".legato", "settings.json").write_text(json.dumps(settings))

    def path(self, relative: str) -> str:
        return os.path.join(self.root, relative)

    def env(self, base_url: str) -> dict[str, str]:
        env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
        env.update(HOME=self.home, ASSISTANT_BASE_URL=base_url, ASSISTANT_API_KEY="bench-key")
        return env

    def close(self) -> None:
        shutil.rmtree(self._scratch, ignore_errors=True)


def trust(root: str, home: str) -> None:
    """Trust the project's settings as they are now, as its user would with `legato trust`:
    a benchmark that measures what they widen (the sandbox off, an allowed MCP tool) needs
    them applied."""
    import contextlib
    import io

    from frontends.commands.trust_command import run_trust

    with contextlib.redirect_stdout(io.StringIO()) as shown:
        if run_trust(["--project", root], env={**os.environ, "HOME": home}) != 0:
            raise SystemExit(f"could not trust the benchmark's project:\n{shown.getvalue()}")


def headless_runs(
    project: Project,
    steps_for_run: Callable[[], list[Step]],
    prompt: str,
    *,
    runs: int,
    extra: Sequence[str] = (),
) -> list[Run]:
    """Run `legato --headless` ``runs`` times, each against a fresh server playing the steps."""
    from frontends.demo.scripted_api import ScriptedServer

    results = []
    for _ in range(runs):
        project.reset()
        with ScriptedServer(steps_for_run()) as server:
            run = run_process(
                [LEGATO, project.root, "--headless", prompt, *extra], env=project.env(server.url)
            )
            if run.exit_code != 0:
                raise SystemExit(f"benchmark run failed with exit {run.exit_code}: {prompt}")
        results.append(run)
    return results


def print_results(results: Sequence[Result]) -> None:
    print(HEADER)
    for result in results:
        print(result.row())
    for result in results:
        for note in result.notes:
            print(f"- {result.name}: {note}")
    sys.stdout.flush()
