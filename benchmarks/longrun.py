"""Memory over a long session, for docs/performance.md.

    .venv/bin/python -m benchmarks.longrun [--prompts 600] [--every 50] [--trace]

One session of the real actors, in this process (so its memory is this process's), against the
scripted server on loopback, on a compressed schedule: no pauses between prompts. Each prompt
is five model turns: a Read of a 1 MB file, a Bash command printing 2 MB, a background command
that ends soon after, a subagent (one turn of its own), and an answer. The context window is
made small (150,000 tokens) so the conversation is compacted every few prompts. 600 prompts
are 3,000 model turns (3,600 requests with the subagents'), about two hours of steady use.

Printed is the process's resident size (``VmRSS``) and its peak (``VmHWM``) every ``--every``
prompts, and the growth from the first sample after warm-up to the last. ``--trace`` also
compares tracemalloc snapshots taken there and prints the ten lines that grew most (slower).
The figures include the scripted server's own (its prompt cache keeps a hash a request).

    .venv/bin/python -m benchmarks.longrun --idle 60

instead measures a real ``legato`` in tmux idle at its prompt, without and with a status line
command: its CPU time (``/proc/<pid>/stat``) and its threads' wake-ups (voluntary context
switches) over the given seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import shlex
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path
from typing import TYPE_CHECKING, Any

import anyio

from actors.conductor.compaction import SUMMARY_INSTRUCTION
from actors.protocol import GetConversation, RunPrompt
from actors.ui import Renderer
from benchmarks.harness import Project
from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls
from frontends.session import assemble
from frontends.session_options import SessionOptions
from runtime import supervise

if TYPE_CHECKING:
    from collections.abc import Callable

    from actors.protocol import AskUser, UiEvent
    from frontends.demo.scripted_api import RecordedRequest, Step

WINDOW = 150_000  # tokens: small, so compaction comes round every few prompts
BIG_FILE = "lorem ipsum dolor sit amet, consectetur adipiscing elit\n" * 18_000  # ~1 MB
TURNS = 5  # model turns a prompt: Read, Bash, background Bash, Agent, answer
SUBAGENT = "Look over the project as a subagent."
COMMANDS = ("head", "tr", "fold", "sleep", "echo")
PRINT_MB = "head -c 2000000 /dev/zero | tr '\\0' x | fold -w 100"


class Quiet(Renderer):
    async def show(self, event: UiEvent) -> None:
        pass

    async def ask(self, question: AskUser) -> str:
        return "y"


def status_mb(field: str) -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return 0.0


def is_summary_request(body: dict[str, Any]) -> bool:
    return any(
        SUMMARY_INSTRUCTION in block.get("text", "")
        for message in body["messages"]
        for block in message["content"]
        if isinstance(block, dict)
    )


def refusals(body: dict[str, Any]) -> int:
    """Tool results in the latest message that say a tool did not run: the figures would be
    of a session that did no work."""
    return sum(
        1
        for block in body["messages"][-1]["content"]
        if isinstance(block, dict)
        and block.get("type") == "tool_result"
        and "Permission denied" in str(block.get("content"))
    )


def model(root: str) -> tuple[Callable[[RecordedRequest], Step], list[int]]:
    """The answers, and counters: summary requests (compactions) and tools refused."""
    counts = [0, 0]
    turn = 0

    def answer(request: RecordedRequest) -> Step:
        nonlocal turn
        counts[1] += refusals(request.body)
        if is_summary_request(request.body):
            counts[0] += 1
            return text(
                f"## Summary\nRead and printed files (pass {counts[0]}).\n"
                "## Decisions\n- none\n## Open steps\n- none\n"
            )
        first = request.body["messages"][0]["content"]
        if SUBAGENT in str(first):
            return text("The subagent looked and found nothing to change.")
        turn += 1
        step = turn % TURNS
        if step == 1:
            return tool_calls([call("Read", {"file_path": os.path.join(root, "big.txt")})])
        if step == 2:
            return tool_calls([call("Bash", {"command": PRINT_MB})])
        if step == 3:
            background = {"command": "sleep 0.05; echo done", "run_in_background": True}
            return tool_calls([call("Bash", background)])
        if step == 4:
            agent = {"description": "look", "prompt": SUBAGENT, "subagent_type": "general-purpose"}
            return tool_calls([call("Agent", agent)])
        return text("Done with this one.")

    return answer, counts


async def drive(prompts: int, every: int, trace: bool) -> None:
    project = Project({"big.txt": BIG_FILE}, allowed_commands=COMMANDS)
    root = project.root
    answer, counts = model(root)
    warm: tracemalloc.Snapshot | None = None
    samples: list[tuple[int, float, float]] = []
    try:
        with ScriptedServer(answer, keep_requests=False) as server:
            options = SessionOptions(
                project_root=root, headless=True, env=project.env(server.url), home=project.home
            )
            session = assemble(options, renderer=Quiet())
            session.conductor.context_window = WINDOW
            async with supervise(session.actors):
                conductor = session.conductor.address
                for number in range(1, prompts + 1):
                    outcome = await conductor.ask(RunPrompt(text=f"Task {number}"))
                    if outcome.subtype != "success":
                        raise SystemExit(f"prompt {number} failed: {outcome.error}")
                    if number % every == 0 or number == 1:
                        samples.append((number, status_mb("VmRSS"), status_mb("VmHWM")))
                        print(f"prompt {number}: {samples[-1][1]:.1f} MB", file=sys.stderr)
                    if trace and number == every:
                        warm = tracemalloc.take_snapshot()
                conversation = await conductor.ask(GetConversation())
                held = len(conversation)
    finally:
        project.close()
    if counts[1]:
        raise SystemExit(f"{counts[1]} tool calls were refused: the project's settings are wrong")
    print(f"{prompts} prompts, {prompts * TURNS} model turns, {counts[0]} compactions, "
          f"{held} messages held at the end\n")  # fmt: skip
    print("| prompts | RSS | peak RSS |\n|---|---|---|")
    for number, rss, peak in samples:
        print(f"| {number} | {rss:.1f} MB | {peak:.1f} MB |")
    after_warm = [s for s in samples if s[0] >= every]
    if len(after_warm) >= 2:
        print(f"\ngrowth after warm-up: {after_warm[-1][1] - after_warm[0][1]:+.1f} MB")
    if warm is not None:
        print("\nlargest growth since warm-up (tracemalloc):")
        for stat in tracemalloc.take_snapshot().compare_to(warm, "lineno")[:10]:
            print(f"  {stat}")
    sys.stdout.flush()


def proc_counts(pid: int) -> tuple[float, int]:
    """CPU seconds (user + system) of a process and the times its threads were woken (their
    voluntary context switches: each is a sleep that ended)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    wakes = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        for line in (task / "status").read_text().splitlines():
            if line.startswith("voluntary_ctxt_switches:"):
                wakes += int(line.split()[1])
    return cpu, wakes


def idle(seconds: float, status_line: bool) -> str:
    """A real ``legato`` in tmux at its prompt: its CPU time and wake-ups over ``seconds``."""
    from benchmarks.harness import REPO
    from benchmarks.interactive import Tmux

    project = Project({"notes.txt": "idle\n"})
    if status_line:
        settings = {"statusLine": {"type": "command", "command": "echo status"}}
        config = Path(project.home, ".config", "legato")
        config.mkdir(parents=True, exist_ok=True)
        (config / "config.json").write_text(json.dumps(settings))
    tmux = Tmux()
    try:
        with ScriptedServer([text("unused")]) as server:
            env = [f"{k}={v}" for k, v in project.env(server.url).items()]
            command = (
                f"cd {shlex.quote(str(REPO))} && exec {shlex.quote(sys.executable)} -c "
                f"'from frontends.cli import main; main()' {shlex.quote(project.root)}"
            )
            tmux("new-session", "-d", "-x", "120", "-y", "40", "-s", "b", "env", "-i",
                 *env, "TERM=xterm-256color", "sh", "-c", command)  # fmt: skip
            tmux.wait("›")
            if status_line:
                tmux.wait("status")
            pid = int(tmux("display", "-p", "-t", "b", "#{pane_pid}").strip())
            time.sleep(2)  # let start-up's last work (the first paint, a status run) settle
            cpu0, wakes0 = proc_counts(pid)
            time.sleep(seconds)
            cpu1, wakes1 = proc_counts(pid)
    finally:
        subprocess.run(["tmux", "-L", tmux.socket, "kill-server"], capture_output=True)
        project.close()
    label = "with a status line command" if status_line else "no status line"
    return (
        f"| idle at the prompt, {label} ({seconds:.0f} s) | {(cpu1 - cpu0) * 1000:.0f} ms CPU "
        f"| {(wakes1 - wakes0) / seconds:.1f} wake-ups/s |"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--prompts", type=int, default=600, help="prompts, five turns each (600)")
    parser.add_argument("--every", type=int, default=50, help="prompts between samples (50)")
    parser.add_argument("--trace", action="store_true", help="compare tracemalloc snapshots")
    parser.add_argument(
        "--idle", type=float, default=0, help="instead: seconds of an idle terminal (needs tmux)"
    )
    args = parser.parse_args()
    if args.idle:
        print("| what | CPU | wake-ups |\n|---|---|---|")
        for status_line in (False, True):
            print(idle(args.idle, status_line), flush=True)
        return
    os.environ.pop("ASSISTANT_LOG", None)
    if args.trace:
        tracemalloc.start()
    anyio.run(drive, args.prompts, args.every, args.trace, backend="trio")


if __name__ == "__main__":
    main()
