"""Per-turn cost over one long session, for docs/performance.md.

    .venv/bin/python -m benchmarks.turns [--turns 1000] [--runs 1]

One headless session of N tool turns against the scripted server: each answer asks for a Read of
a small file, the last one is text. Legato's own time per turn is the wall time from the server
writing the end of one answer to the next request arriving (its headers read, before the server
reads and checks the body), so the server's own time, which grows with the request, is left out.
Printed are medians over windows of eleven turns around turn 10, 100 and 1,000 (those the session
reaches), and the peak RSS of the legato process (GNU time).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from typing import TYPE_CHECKING

from benchmarks.harness import LEGATO, Project, run_process
from benchmarks.run import precompile
from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls

if TYPE_CHECKING:
    from collections.abc import Sequence

    from frontends.demo.scripted_api import RecordedRequest, Step

CENTRES = (10, 100, 1000)
HALF = 5  # a window is the turns centre-5 .. centre+5
MESSAGE_STOP = b"event: message_stop"


def session_gaps(
    project: Project, turns: int, legato: Sequence[str] = (LEGATO,)
) -> tuple[list[float], float]:
    """Seconds of Legato time before each request after the first, and peak RSS in MB."""
    read = tool_calls([call("Read", {"file_path": project.path("notes.txt")})])
    done = text("Done.")
    arrived: list[float] = []
    sent: list[float] = []

    def answer(request: RecordedRequest) -> Step:
        return read if len(sent) < turns else done

    def on_sent(data: bytes) -> None:
        if data.startswith(MESSAGE_STOP):
            sent.append(time.perf_counter())

    def on_received() -> None:
        arrived.append(time.perf_counter())

    project.reset()
    with ScriptedServer(
        answer, on_sent=on_sent, on_received=on_received, keep_requests=False
    ) as server:
        run = run_process(
            [*legato, project.root, "--headless", "go", "--max-turns", str(turns + 1)],
            env=project.env(server.url),
        )
    if run.exit_code != 0:
        raise SystemExit(f"the session failed with exit {run.exit_code}")
    if len(arrived) != turns + 1 or len(sent) != turns + 1:
        raise SystemExit(f"expected {turns + 1} requests, saw {len(arrived)}")
    # Turn k (from 1) is the gap between the end of answer k and request k + 1.
    return [arrived[k] - sent[k - 1] for k in range(1, turns + 1)], run.peak_rss_mb


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--turns", type=int, default=105, help="tool turns in the session (105)")
    parser.add_argument("--runs", type=int, default=1, help="sessions, windows pooled (1)")
    args = parser.parse_args()
    precompile()
    os.environ.pop("ASSISTANT_LOG", None)
    project = Project({"notes.txt": "A small file to read.\n" * 4})
    centres = [c for c in CENTRES if c <= args.turns]
    pooled: dict[int, list[float]] = {c: [] for c in centres}
    peaks: list[float] = []
    totals: list[float] = []
    try:
        for _ in range(args.runs):
            gaps, peak = session_gaps(project, args.turns + HALF)
            peaks.append(peak)
            totals.append(sum(gaps))
            for centre in centres:
                pooled[centre].extend(gaps[centre - HALF - 1 : centre + HALF])
    finally:
        project.close()
    print(f"{args.turns + HALF} tool turns, {args.runs} session(s)\n")
    print("| turns | Legato time per turn (median) | min | max |\n|---|---|---|---|")
    for centre in centres:
        window = pooled[centre]
        print(
            f"| {centre - HALF}-{centre + HALF} | {statistics.median(window) * 1000:.1f} ms "
            f"| {min(window) * 1000:.1f} ms | {max(window) * 1000:.1f} ms |"
        )
    print(
        f"\nLegato time over the whole session: {statistics.median(totals):.2f} s; "
        f"peak RSS {max(peaks):.0f} MB"
    )
    sys.stdout.flush()


if __name__ == "__main__":
    main()
