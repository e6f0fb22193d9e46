"""Search end to end: each search as the only tool call of one whole headless turn.

    .venv/bin/python -m benchmarks.search_turns [--runs N] [--big] [--tree DIR] [--profile LABEL]

What a person waits for is the whole turn, not the tool: ``legato -p`` is started against the
scripted Messages API on loopback, whose first answer is the one tool call and whose second is
a word of text. The turn is timed from the process's start to its exit. Each search's cost is
its turn's median less the median of the same turn whose call is a Read of a small file (the
start, two requests and the exit are in both), set against ``rg`` doing the same search, in
the same order Legato gives (``--sortr=modified`` where Legato lists newest first,
``--sort=path`` where it sorts by path), and against ``rg`` held to the bounds Legato keeps
("rg, bounds": the folders every walk skips left out, and for Grep no file over 20 MB read,
which costs rg a stat of every file): the difference is what those bounds cost. All runs
are interleaved (Read turn, search turn, rg, run by run), so a noisy neighbour weighs on every
side alike; the spread (lowest-highest) of each side is printed beside its median. Where the
time of a turn goes, stage by stage, is ``benchmarks.search_timeline``.

The tree is a copy of this environment's site-packages (``__pycache__`` left out) at
``project/site``; ``--big`` adds nine more of it (hard links, so the page cache holds one copy)
beside it, each file's modification time drawn from a seeded generator, so the same tree and the
same newest-first order come back on every run.

``--profile LABEL`` runs that search's turn once under cProfile (the whole process, written to
``search-LABEL.prof`` in the current folder) and prints the 25 costliest functions by their own
and by cumulative time.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import shutil
import site
import statistics
import subprocess
import sys
import tempfile
import time
from typing import Any

from frontends.demo.scripted_api import (
    RecordedRequest,
    ScriptedServer,
    Step,
    call,
    text,
    tool_calls,
)

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SEED = 33
COPIES = 10
HEAD = 200

# (label, the tool call, rg's arguments for the same answer in the same order, lines wanted
# or None for all).
Turn = tuple[str, str, dict[str, Any], list[str], int | None]
TURNS: list[Turn] = [
    (
        "grep-files",
        "Grep",
        {"pattern": r"def __init__\(self"},
        ["-l", "--hidden", "--sortr=modified", r"def __init__\(self", "site"],
        None,
    ),
    (
        "grep-content",
        "Grep",
        {"pattern": r"class \w+Error\(", "output_mode": "content", "-n": True, "head_limit": HEAD},
        ["-n", "--hidden", "--sort=path", r"class \w+Error\(", "site"],
        HEAD,
    ),
    (
        "glob",
        "Glob",
        {"pattern": "**/*.py"},
        ["--files", "--hidden", "-g", "*.py", "--sortr=modified", "site"],
        None,
    ),
]


_CLI = "from frontends.cli import main; main()"


def capped(tool: str, rg_args: list[str]) -> list[str]:
    """rg's arguments with the bounds Legato's ``tool`` keeps: the folders every walk skips
    are not entered, and Grep reads no file over its size cap (``--max-filesize``, which
    costs rg a stat of every file)."""
    from actors.tool_executor.search import MAX_FILE_BYTES
    from actors.tool_executor.walk import SKIP_DIRS

    bounds = [f"--glob=!{name}/" for name in sorted(SKIP_DIRS)]
    if tool == "Grep":
        bounds.append(f"--max-filesize={MAX_FILE_BYTES}")
    return [*bounds, *rg_args]


def find_rg(given: str | None) -> str:
    beside = os.path.join(os.path.dirname(sys.executable), "rg")
    found = given or (beside if os.access(beside, os.X_OK) else shutil.which("rg"))
    if found is None:
        raise SystemExit("rg not found: give it with --rg")
    return found


def build(base: str, big: bool) -> str:
    """The project (``base/project``), with the site-packages copy in it, once per ``base``."""
    root = os.path.realpath(os.path.join(base, "project"))
    first = os.path.join(root, "site")
    if not os.path.isdir(first):
        ignore = shutil.ignore_patterns("__pycache__")
        shutil.copytree(site.getsitepackages()[0], first, symlinks=True, ignore=ignore)
    if big and not os.path.isdir(os.path.join(first, "copy1")):
        _multiply(first)
    os.makedirs(os.path.join(root, ".legato"), exist_ok=True)
    with open(os.path.join(root, ".legato", "settings.json"), "w") as file:
        json.dump({}, file)
    with open(os.path.join(root, "small.txt"), "w") as file:
        file.write("a small file for the Read turn\n")
    return root


def _multiply(first: str) -> None:
    """Nine more of the tree inside it (``site/copyN``, hard links), and seeded dates."""
    originals = [
        os.path.join(folder, name)
        for folder, _, names in os.walk(first)
        for name in sorted(names)
        if not os.path.islink(os.path.join(folder, name))
    ]
    originals.sort()
    draw = random.Random(SEED)
    now = 1_780_000_000.0
    for path in originals:
        stamp = now - draw.uniform(0, 365 * 86400)
        os.utime(path, (stamp, stamp))
    for copy in range(1, COPIES):
        target = os.path.join(first, f"copy{copy}")
        for path in originals:
            rel = os.path.relpath(path, first)
            os.makedirs(os.path.dirname(os.path.join(target, rel)), exist_ok=True)
            os.link(path, os.path.join(target, rel))


def script(name: str, args: dict[str, Any]) -> Any:
    """The call, then "Done." if it worked, else the tool's error as the answer (a turn timed
    on an error would measure nothing)."""

    def answer(request: RecordedRequest) -> Step:
        if len(request.body["messages"]) == 1:
            return tool_calls([call(name, args)])
        result = request.body["messages"][-1]["content"][0]
        if result.get("is_error"):
            return text(f"{name} failed: {result['content']}")
        return text("Done.")

    return answer


def turn(
    root: str,
    home: str,
    name: str,
    args: dict[str, Any],
    start: list[str] | None = None,
    more_env: dict[str, str] | None = None,
) -> tuple[float, float]:
    """Wall and CPU seconds of one whole headless turn whose one tool call is ``name(args)``;
    ``start`` replaces the usual way in (``-c`` and frontends.cli.main)."""
    with ScriptedServer(script(name, args), keep_requests=False) as server:
        env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
        env.pop("ANTHROPIC_API_KEY", None)
        env.update(HOME=home, ASSISTANT_BASE_URL=server.url, ASSISTANT_API_KEY="bench-key")
        env.update(more_env or {})
        command = [sys.executable, *(start or ["-c", _CLI])]
        began, used = time.perf_counter(), _children_cpu()
        done = subprocess.run(
            [*command, root, "-p", "go", "--permission-mode", "auto"],
            cwd=REPO,
            env=env,
            capture_output=True,
            text=True,
        )
        seconds, cpu = time.perf_counter() - began, _children_cpu() - used
    if done.returncode != 0 or "Done." not in done.stdout:
        raise SystemExit(f"the {name} turn failed:\n{done.stdout}\n{done.stderr}")
    return seconds, cpu


def _children_cpu() -> float:
    """CPU seconds (user and system) of the ended child processes and theirs (rg, under
    legato): far steadier than wall time on a busy machine, where waiting for a core is most of
    the noise."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def rg_run(rg: str, args: list[str], root: str, wanted: int | None) -> tuple[float, float]:
    """Wall and CPU seconds of rg's search (stopped after ``wanted`` lines, as ``| head``)."""
    used = _children_cpu()
    seconds = run_command([rg, *args], root, wanted)[0]
    return seconds, _children_cpu() - used


def run_command(command: list[str], cwd: str, wanted: int | None) -> tuple[float, int]:
    """Seconds until the command has given all its output (or ``wanted`` lines of it, after
    which it is stopped, as ``| head`` would), and the lines it gave."""
    start = time.perf_counter()
    with subprocess.Popen(command, cwd=cwd, stdout=subprocess.PIPE) as process:
        assert process.stdout is not None
        lines = 0
        for _ in process.stdout:
            lines += 1
            if wanted is not None and lines >= wanted:
                process.kill()
                break
        process.stdout.close()
        process.wait()
    return time.perf_counter() - start, lines


def spread(values: list[float]) -> str:
    return f"{min(values) * 1000:.0f}-{max(values) * 1000:.0f}"


def measure(root: str, home: str, runs: int, rg: str, *, unbounded: bool = False) -> None:
    """Each search's cost over a Read turn (the median of the differences between each
    search turn and the Read turn just before it, so that a slow spell of the machine weighs
    on both), and rg's, in the same run: wall time, what a person waits for, and CPU time.
    ``unbounded``: Legato without its searches' bounds too."""
    read = ("Read", {"file_path": os.path.join(root, "small.txt")})
    reads: list[tuple[float, float]] = []
    sides = ["Legato", *(["unbounded"] if unbounded else []), "rg", "rg, bounds"]
    got: dict[tuple[str, str], list[tuple[float, float]]] = {
        (label, side): [] for label, *_ in TURNS for side in sides
    }
    for _ in range(runs):
        for label, name, args, rg_args, wanted in TURNS:
            reads.append(turn(root, home, *read))
            searched = turn(root, home, name, args)
            got[label, "Legato"].append(_less(searched, reads[-1]))
            if unbounded:
                loose = turn(root, home, name, args, ["-m", "benchmarks.unbounded"])
                got[label, "unbounded"].append(_less(loose, reads[-1]))
            got[label, "rg"].append(rg_run(rg, rg_args, root, wanted))
            got[label, "rg, bounds"].append(rg_run(rg, capped(name, rg_args), root, wanted))
    for kind, index in (("wall", 0), ("CPU", 1)):
        times = [entry[index] for entry in reads]
        print(
            f"  {kind}, ms: Read turn median {statistics.median(times) * 1000:.0f}"
            f" ({spread(times)}); Legato's searches over the Read turn"
        )
        ratios = [("Legato", "rg"), ("Legato", "rg, bounds")]
        ratios += [("unbounded", "rg")] if unbounded else []
        print(
            f"    {'search':14}"
            + "".join(f"{side:>12}" for side in sides)
            + "".join(f"{f'{a}/{b}':>20}" for a, b in ratios)
        )
        totals = dict.fromkeys(sides, 0.0)
        for label, *_ in TURNS:
            medians = {
                side: statistics.median(entry[index] for entry in got[label, side])
                for side in sides
            }
            for side in sides:
                totals[side] += medians[side]
            print(
                f"    {label:14}"
                + "".join(f"{medians[side] * 1000:12.0f}" for side in sides)
                + "".join(f"{medians[a] / medians[b]:19.2f}x" for a, b in ratios)
            )
        print(
            f"    {'the three':14}"
            + "".join(f"{totals[side] * 1000:12.0f}" for side in sides)
            + "".join(f"{totals[a] / totals[b]:19.2f}x" for a, b in ratios)
        )
        spreads = "; ".join(
            f"{label} {spread([e[index] for e in got[label, 'Legato']])}"
            f" / {spread([e[index] for e in got[label, 'rg']])}"
            for label, *_ in TURNS
        )
        print(f"    spread (lowest-highest), Legato / rg: {spreads}")


def _less(turn: tuple[float, float], read: tuple[float, float]) -> tuple[float, float]:
    return turn[0] - read[0], turn[1] - read[1]


def profile(root: str, home: str, label: str) -> None:
    import pstats

    chosen = [entry for entry in TURNS if entry[0] == label]
    if not chosen:
        raise SystemExit(f"no search {label!r}: one of {', '.join(t[0] for t in TURNS)}")
    _, name, args, _, _ = chosen[0]
    out = os.path.abspath(f"search-{label}.prof")
    turn(root, home, name, args, ["-m", "benchmarks.search_turns", "--cli", out])
    stats = pstats.Stats(out)
    stats.sort_stats("tottime").print_stats(25)
    stats.sort_stats("cumulative").print_stats(25)


def main() -> None:
    if sys.argv[1:2] == ["--cli"]:  # the profiled turn: legato itself, under cProfile
        import cProfile

        from frontends.cli import run

        # As frontends.cli.main, but the profile is written before the process ends (main
        # leaves with os._exit, which no profiler outlives).
        profiler = cProfile.Profile()
        code = profiler.runcall(run, sys.argv[3:])
        profiler.dump_stats(sys.argv[2])
        raise SystemExit(code)
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--big", action="store_true", help="ten times the tree")
    parser.add_argument("--tree", help="a folder to build the tree in and reuse")
    parser.add_argument("--rg", help="the rg binary (default: beside this Python, or on PATH)")
    parser.add_argument("--profile", metavar="LABEL", help="profile one search's turn")
    parser.add_argument(
        "--unbounded",
        action="store_true",
        help="also run Legato with its searches' bounds left out (what they cost it)",
    )
    options = parser.parse_args()
    rg = find_rg(options.rg)
    base = options.tree or tempfile.mkdtemp(prefix="legato-search-turns-")
    try:
        root = build(base, options.big)
        home = os.path.join(base, "home")
        os.makedirs(home, exist_ok=True)
        files = sum(len(names) for _, _, names in os.walk(os.path.join(root, "site")))
        print(f"{files} files under {root}; rg: {rg}; medians of {options.runs}, interleaved")
        if options.profile:
            profile(root, home, options.profile)
        else:
            measure(root, home, options.runs, rg, unbounded=options.unbounded)
    finally:
        if options.tree is None:
            shutil.rmtree(base)


if __name__ == "__main__":
    main()
