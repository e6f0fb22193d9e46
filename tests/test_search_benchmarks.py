"""The search benchmarks measure what they say: the timeline's marks sit on the code that owns
each stage (a renamed method would leave a stage unmarked, or the turn failing), in the order
a turn goes through them; the unbounded run drops exactly the bounds rg is given."""

from __future__ import annotations

import types
from typing import TYPE_CHECKING, Any

from benchmarks.search_timeline import STAGES, timed_turn
from benchmarks.search_turns import build, capped
from benchmarks.unbounded import _unbounded

if TYPE_CHECKING:
    from pathlib import Path

# A Grep content turn passes every edge, in this order (the files' check is during rg's run or
# after it, below).
ORDER = [
    "start",
    "request 1",
    "answer 1",
    "tool start",
    "check start",
    "check end",
    "rg start",
    "rg output",
    "rg end",
    "tool end",
    "request 2",
    "answer 2",
    "exit",
]


def test_a_grep_turns_stages_are_marked_in_the_order_they_happen(tmp_path: Path) -> None:
    root = tmp_path / "project"
    (root / "site" / "pkg").mkdir(parents=True)
    (root / "site" / "pkg" / "errors.py").write_text("class BadError(Exception):\n    pass\n")
    (root / "site" / "notes.txt").write_text("nothing here\n")
    project = build(str(tmp_path), big=False)
    assert project == str(root.resolve())
    home = tmp_path / "home"
    home.mkdir()
    args = {"pattern": r"class \w+Error\(", "output_mode": "content", "-n": True}
    marks = timed_turn(project, str(home), "Grep", args)
    assert [label for label in ORDER if label in marks] == ORDER, marks
    times = [marks[label] for label in ORDER]
    assert times == sorted(times), marks
    assert marks["rg output"] < marks["files start"] < marks["files end"] < marks["tool end"]
    assert {edge for _, first, second in STAGES for edge in (first, second)} <= set(marks)


def test_the_unbounded_run_drops_the_bounds_and_nothing_else() -> None:
    given: list[list[str]] = []

    def running(rg: str, args: list[str], cwd: str) -> Any:
        given.append(args)

    ripgrep = types.SimpleNamespace(running=running)
    _unbounded(ripgrep)
    plain = ["-n", "--hidden", "--sort=path", "-e", "x", "--", "./"]
    ripgrep.running("rg", capped("Grep", plain), "/")
    assert given == [plain]
    assert capped("Glob", plain) != capped("Grep", plain)  # Glob keeps no size cap
    assert not any(arg.startswith("--max-filesize") for arg in capped("Glob", plain))
