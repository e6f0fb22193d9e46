"""Where a search turn's time goes: one whole headless turn cut into its stages.

    .venv/bin/python -m benchmarks.search_timeline [--runs N] [--big] [--tree DIR]

The turns of ``benchmarks.search_turns`` (a Read, then each search as the only call of a
``legato -p`` turn against the scripted Messages API), each run ``--runs`` times with marks
set at the edges of its stages, the median of each stage printed. The marks wrap the parts
that own each stage (the HTTP client's send, the tool scheduler's attempt, the tool's
permission check, rg's run and its first output, the broker's check of the files listed,
the process's exit); the clock is the system's monotonic one, read by this process before
the turn starts and by the turn itself, so the first stage is the interpreter's own start.
A cProfile of one turn, function by function, is ``benchmarks.search_turns --profile``.
"""

from __future__ import annotations

import os
import sys
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Callable

_START = "LEGATO_TIMELINE_START"
_MARKS = "LEGATO_TIMELINE_MARKS"

# The stages, each from the first mark named to the second.
STAGES = [
    ("start, imports, settings", "start", "request 1"),
    ("the API's first answer", "request 1", "answer 1"),
    ("answer to the tool's start", "answer 1", "tool start"),
    ("the call's permission check", "check start", "check end"),
    ("tool, before rg", "check end", "rg start"),
    ("rg, to its first output", "rg start", "rg output"),
    ("rg, the rest of its run", "rg output", "rg end"),
    ("tool, after rg", "rg end", "tool end"),
    ("  the files' check, within those", "files start", "files end"),
    ("tool's end to request 2", "tool end", "request 2"),
    ("the API's second answer", "request 2", "answer 2"),
    ("answer to the process's exit", "answer 2", "exit"),
]


def main() -> None:
    if sys.argv[1:2] == ["--cli"]:  # the marked turn: legato itself
        marked(sys.argv[2:])
        return
    import argparse
    import tempfile

    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--big", action="store_true", help="ten times the tree")
    parser.add_argument("--tree", help="a folder to build the tree in and reuse")
    options = parser.parse_args()
    from benchmarks.search_turns import TURNS, build

    base = options.tree or tempfile.mkdtemp(prefix="legato-search-timeline-")
    root = build(base, options.big)
    home = os.path.join(base, "home")
    os.makedirs(home, exist_ok=True)
    calls = [("read", "Read", {"file_path": os.path.join(root, "small.txt")})]
    calls += [(label, name, args) for label, name, args, _, _ in TURNS]
    runs: dict[str, list[dict[str, float]]] = {label: [] for label, _, _ in calls}
    for _ in range(options.runs):
        for label, name, args in calls:  # interleaved, as search_turns runs them
            runs[label].append(timed_turn(root, home, name, args))
    print(f"medians of {options.runs} turns, ms; the tree at {root}")
    print(f"  {'stage':32}" + "".join(f"{label:>14}" for label in runs))
    for stage, first, second in [*STAGES, ("the whole turn", "start", "exit")]:
        cells = [_stage(marks, first, second) for marks in runs.values()]
        print(f"  {stage:32}" + "".join(f"{cell:>14}" for cell in cells))


def _stage(turns: list[dict[str, float]], first: str, second: str) -> str:
    import statistics

    spans = [marks[second] - marks[first] for marks in turns if first in marks and second in marks]
    if not spans:
        return "-"
    return f"{statistics.median(spans) * 1000:.1f}"


def timed_turn(root: str, home: str, name: str, args: dict[str, Any]) -> dict[str, float]:
    """The marks of one turn, in seconds from the moment before its process was started."""
    import ast
    import tempfile

    from benchmarks.search_turns import turn

    with tempfile.NamedTemporaryFile("r", suffix=".marks") as marks:
        more_env = {_MARKS: marks.name, _START: repr(time.perf_counter())}
        start = ["-m", "benchmarks.search_timeline", "--cli"]
        turn(root, home, name, args, start, more_env)
        written: list[tuple[str, float]] = ast.literal_eval(marks.read())
    seen: dict[str, float] = {"start": 0.0}
    counts: dict[str, int] = {}
    for label, at in written:
        counts[label] = counts.get(label, 0) + 1
        if label in ("request", "answer"):
            label = f"{label} {counts[label]}"
        if label == "files end":
            seen[label] = at  # the last batch's end; "files start" is the first's
        seen.setdefault(label, at)
    return seen


# ── inside the marked turn ──────────────────────────────────────────────────────────────────


def marked(argv: list[str]) -> None:
    """Run legato with ``argv``, the marks set, and write them where the caller said."""
    start = float(os.environ[_START])
    out = os.environ[_MARKS]
    marks: list[tuple[str, float]] = []

    def mark(label: str) -> None:
        marks.append((label, time.perf_counter() - start))

    # Each module is marked as soon as it loads, when it would load unmarked.
    when_loaded(
        "httpx._client",
        lambda module: _wrap_async_method(module.AsyncClient, "send", mark, "request", "answer"),
    )
    when_loaded(
        "actors.tool_executor.outcomes",
        lambda module: _wrap_async_function(module, "attempt", mark, "tool start", "tool end"),
    )
    when_loaded(
        "actors.tool_executor.context",
        lambda module: _wrap_async_method(
            module.CallContext, "check", mark, "check start", "check end"
        ),
    )
    when_loaded(
        "actors.tool_executor.walk",
        lambda walk: _wrap_async_function(walk, "allowed", mark, "files start", "files end"),
    )
    when_loaded("actors.tool_executor.ripgrep", lambda ripgrep: _wrap_rg(ripgrep, mark))

    leave = os._exit

    def write_and_leave(code: int) -> None:  # frontends.cli.main ends with os._exit
        mark("exit")
        with open(out, "w") as file:
            file.write(repr(marks))
        leave(code)

    os._exit = write_and_leave  # type: ignore[assignment]
    from frontends.cli import main as legato

    legato(argv)


def _wrap_async_method(
    owner: Any, name: str, mark: Callable[[str], None], before: str, after: str
) -> None:
    original = getattr(owner, name)  # AttributeError: the benchmark is out of date

    async def wrapped(self: Any, *args: Any, **kwargs: Any) -> Any:
        mark(before)
        try:
            return await original(self, *args, **kwargs)
        finally:
            mark(after)

    setattr(owner, name, wrapped)


def _wrap_async_function(
    module: Any, name: str, mark: Callable[[str], None], before: str, after: str
) -> None:
    original = getattr(module, name)

    async def wrapped(*args: Any, **kwargs: Any) -> Any:
        mark(before)
        try:
            return await original(*args, **kwargs)
        finally:
            mark(after)

    setattr(module, name, wrapped)
    # Those that imported it by name hold the original: they get the wrapped one too.
    for other in list(sys.modules.values()):
        if getattr(other, name, None) is original and other is not module:
            setattr(other, name, wrapped)


def when_loaded(name: str, then: Callable[[Any], None]) -> None:
    """Call ``then`` with module ``name`` as soon as it has been imported (a finder first on
    ``sys.meta_path``; importlib.abc is not loaded for it, so the turn loads what it would)."""
    import importlib.machinery

    class Finder:
        @staticmethod
        def find_spec(fullname: str, path: Any, target: Any = None) -> Any:
            if fullname != name:
                return None
            spec = importlib.machinery.PathFinder.find_spec(fullname, path)
            loader = spec.loader if spec is not None else None
            if loader is None:
                return spec
            execute = loader.exec_module

            def exec_module(module: Any) -> None:
                execute(module)
                then(module)

            loader.exec_module = exec_module  # type: ignore[method-assign]
            return spec

    sys.meta_path.insert(0, Finder())


def _wrap_rg(ripgrep: Any, mark: Callable[[str], None]) -> None:
    import contextlib

    running = ripgrep.running
    records = ripgrep.Run.records

    @contextlib.asynccontextmanager
    async def marked_running(*args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        mark("rg start")
        try:
            async with running(*args, **kwargs) as run:
                yield run
        finally:
            mark("rg end")

    async def marked_records(self: Any, *args: Any, **kwargs: Any) -> Any:
        first = True
        async for batch in records(self, *args, **kwargs):
            if first:
                mark("rg output")
                first = False
            yield batch

    ripgrep.running = marked_running
    ripgrep.Run.records = marked_records


if __name__ == "__main__":
    main()
