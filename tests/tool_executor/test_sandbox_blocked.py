"""The blocked files found before each confined command, against a plain walk of the project.

``ProjectFiles`` keeps each folder's listing and verdicts while the folder's mtime stands still,
so a command in an unchanged project costs a ``stat`` per folder. These tests change random
trees between commands and check that what it finds is exactly what a fresh walk finds, and
that an unchanged project asks the broker nothing.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from pathlib import Path

import anyio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from actors.tool_executor.sandbox.blocked import ProjectFiles


def is_blocked(path: str) -> bool:
    name = os.path.basename(path)
    return name.endswith(".pem") or name == "secrets"


class Broker:
    """Judges by name, as ``*.pem`` and ``secrets/`` would, and counts what it is asked."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def ask(self, paths: tuple[str, ...]) -> tuple[bool, ...]:
        self.asked += paths
        return tuple(is_blocked(path) for path in paths)


def plain_walk(root: str) -> set[tuple[str, bool]]:
    found: set[tuple[str, bool]] = set()
    for folder, folders, files in os.walk(root):
        for name in files:
            path = os.path.join(folder, name)
            found.add((path, os.path.isdir(path) and not os.path.islink(path)))
        for name in folders:
            path = os.path.join(folder, name)
            is_folder = not os.path.islink(path)
            found.add((path, is_folder))
        folders[:] = [name for name in folders if name != ".git"]
    return {entry for entry in found if is_blocked(entry[0])}


NAMES = st.sampled_from(["a", "b", "k.pem", "secrets", "src", ".git", "x.pem"])
PLACES = st.lists(NAMES, min_size=1, max_size=3).map(lambda parts: os.path.join(*parts))
CHANGES = st.lists(
    st.tuples(st.sampled_from(["file", "folder", "remove", "rename"]), PLACES, PLACES),
    max_size=8,
)


def apply(root: Path, change: tuple[str, str, str]) -> None:
    what, place, other = change
    path, target = root / place, root / other
    if what == "file" and path.parent.is_dir() and not path.exists():
        path.write_text("x")
    elif what == "folder" and path.parent.is_dir() and not path.exists():
        path.mkdir()
    elif what == "remove" and path.is_dir():
        shutil.rmtree(path)
    elif what == "remove" and path.exists():
        path.unlink()
    elif what == "rename" and path.exists() and not target.exists() and target.parent.is_dir():
        inside = str(target).startswith(str(path) + os.sep)  # a folder cannot move into itself
        if not inside:
            path.rename(target)


def age(root: Path, seconds: int) -> None:
    """Every folder's mtime set far enough back that its listing counts as settled, and to a
    value no earlier state had, so that a kept listing is reused exactly when nothing moved."""
    stamp = time.time_ns() - seconds * 1_000_000_000
    for folder, _, _ in os.walk(root):
        os.utime(folder, ns=(stamp, stamp))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(first=CHANGES, rounds=st.lists(CHANGES, min_size=1, max_size=4))
def test_what_is_found_matches_a_fresh_walk_after_every_change(
    first: list[tuple[str, str, str]], rounds: list[list[tuple[str, str, str]]]
) -> None:
    root = Path(tempfile.mkdtemp(prefix="legato-blocked-")).resolve()
    try:
        files = ProjectFiles(str(root))
        broker = Broker()
        for number, changes in enumerate([first, *rounds]):
            for change in changes:
                apply(root, change)
            age(root, 100 - number)  # each round's folders get a different mtime
            found = anyio.run(files.blocked, broker.ask, backend="trio")
            assert sorted(found) == sorted(found_set := plain_walk(str(root)))
            assert len(found) == len(found_set)
    finally:
        shutil.rmtree(root)


def test_an_unchanged_project_asks_nothing_and_a_new_name_is_asked_alone(tmp_path: Path) -> None:
    for n in range(30):
        (tmp_path / f"pkg{n % 3}").mkdir(exist_ok=True)
        (tmp_path / f"pkg{n % 3}" / f"m{n}.py").write_text("x")
    (tmp_path / "pkg1" / "key.pem").write_text("secret")
    age(tmp_path, 100)
    files = ProjectFiles(str(tmp_path))
    broker = Broker()
    first = anyio.run(files.blocked, broker.ask, backend="trio")
    assert first == [(str(tmp_path / "pkg1" / "key.pem"), False)]
    assert len(broker.asked) == 34  # 30 files, 3 folders, the key

    broker.asked.clear()
    again = anyio.run(files.blocked, broker.ask, backend="trio")
    assert (again, broker.asked) == (first, [])

    (tmp_path / "pkg2" / "new.pem").write_text("secret")
    age(tmp_path, 90)
    after = anyio.run(files.blocked, broker.ask, backend="trio")
    assert sorted(after) == sorted([*first, (str(tmp_path / "pkg2" / "new.pem"), False)])
    assert broker.asked == [str(tmp_path / "pkg2" / "new.pem")]


def test_a_listing_taken_just_after_a_change_is_not_trusted_next_time(tmp_path: Path) -> None:
    """A name added in the same mtime tick as the listing must still be found (racily clean)."""
    (tmp_path / "a.py").write_text("x")
    files = ProjectFiles(str(tmp_path))
    broker = Broker()
    assert anyio.run(files.blocked, broker.ask, backend="trio") == []
    stamp = os.stat(tmp_path).st_mtime_ns
    (tmp_path / "late.pem").write_text("secret")
    os.utime(tmp_path, ns=(stamp, stamp))  # as if it fell in the same tick
    found = anyio.run(files.blocked, broker.ask, backend="trio")
    assert found == [(str(tmp_path / "late.pem"), False)]
