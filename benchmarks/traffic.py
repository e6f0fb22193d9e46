"""The messages actors send each other over one two-call prompt, for docs/architecture.md.

    .venv/bin/python -m benchmarks.traffic

One headless `legato` process with the debug log on, against the scripted server: the model
says a sentence (eight words, eight text deltas) and calls Read and Bash; their results go
back and the model ends with a sentence of three words. The kernel traces every message an
actor handles with the replies it sent back (``runtime/actor.py``), so the log holds the whole
of the traffic: an ask is one message and one reply, a stream one message and its items, a
tell one message. The events are paced (5 ms apart), so that each reaches the client on its
own and the count is the same on every run; the table says where the messages went, and the
last line how many bookkeeping requests (session saves, checkpoints) the conductor waited on.
"""

from __future__ import annotations

import argparse
import glob
import os
import re
import sys

from benchmarks.harness import LEGATO, Project, run_process
from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls

HANDLED = re.compile(r" handled actor=(\S+) msg=(\S+) ms=\S+ replies=(\d+)")
# The messages a session exchanges once, to start and stop, whatever its prompts.
PACE = 0.005  # seconds between SSE events: each delta arrives, and is shown, on its own
SESSION = frozenset(
    {
        "GetContext",
        "ListTools",
        "ListAgents",
        "LoadSession",
        "RunPrompt",
        # Asked by the headless frontend once the prompt has ended, for the json result and
        # what still runs in the background.
        "DescribeSandbox",
        "ListBackground",
        "ListBackgroundAgents",
    }
)
# Requests the conductor waits on that are neither the model's answer nor the tools' results
# (ListChanges is the name an earlier version used, kept so that its runs count the same way).
BOOKKEEPING = frozenset({"SaveEvents", "CaptureCheckpoint", "ListChanges"})


def count(log: str) -> dict[tuple[str, str], tuple[int, int]]:
    """(messages, replies) per (actor, message type)."""
    traffic: dict[tuple[str, str], tuple[int, int]] = {}
    with open(log, encoding="utf-8") as lines:
        for line in lines:
            found = HANDLED.search(line)
            if found is not None:
                actor, kind, replies = found.groups()
                messages, answered = traffic.get((actor, kind), (0, 0))
                traffic[actor, kind] = (messages + 1, answered + int(replies))
    return traffic


def two_call_prompt() -> dict[tuple[str, str], tuple[int, int]]:
    project = Project({"notes.txt": "one\ntwo\n"}, allowed_commands=["echo *"])
    calls = [
        call("Read", {"file_path": project.path("notes.txt")}),
        call("Bash", {"command": "echo hi"}),
    ]
    steps = [
        tool_calls(calls, "I will read the notes and say hi.", delay=PACE),
        text("Both are done.", delay=PACE),
    ]
    try:
        with ScriptedServer(steps) as server:
            env = project.env(server.url) | {"ASSISTANT_LOG": "debug"}
            done = run_process([LEGATO, project.root, "--headless", "go"], env=env)
        if done.exit_code != 0:
            raise SystemExit(f"the run failed with exit {done.exit_code}")
        (log,) = glob.glob(os.path.join(project.home, ".legato", "logs", "*.log"))
        return count(log)
    finally:
        project.close()


def main(argv: list[str] | None = None) -> int:
    argparse.ArgumentParser(description=__doc__.split("\n")[0]).parse_args(argv)
    traffic = two_call_prompt()
    width = max(len(f"{actor} <- {kind}") for actor, kind in traffic)
    print("".ljust(width), f"{'messages':>9} {'replies':>9}")
    for (actor, kind), (messages, replies) in sorted(traffic.items(), key=lambda i: -sum(i[1])):
        print(f"{actor} <- {kind}".ljust(width), f"{messages:9d} {replies:9d}")
    session = sum(sum(n) for (_, kind), n in traffic.items() if kind in SESSION)
    total = sum(sum(n) for n in traffic.values())
    waits = sum(n[0] for (_, kind), n in traffic.items() if kind in BOOKKEEPING)
    print(f"\nall messages and replies: {total}")
    print(f"of which the session's own start and the prompt itself: {session}")
    print(f"the prompt's traffic between actors: {total - session}")
    print(f"bookkeeping requests the conductor waited on: {waits}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
