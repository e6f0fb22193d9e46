"""The walk skips what git ignores: on random trees with random .gitignore files (nested ones,
negations, folder patterns) and a random ``.git/info/exclude``, git itself is the reference,
for the Python walk and for ripgrep's alike (differential: both walks list the same)."""

from __future__ import annotations

import contextlib
import os
import shutil
import subprocess
import tempfile
import threading
from typing import TYPE_CHECKING

import pytest
import trio
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from actors.tool_executor import ripgrep
from actors.tool_executor.walk import walk_files

if TYPE_CHECKING:
    from pathlib import Path

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

NAMES = ("a", "b", "c.txt", "d.py", ".e", "f g")
PATTERNS = (
    "a", "b", "/a", "/b", "a/", "b/", "!a", "!b/", "!/a", "*.txt", "*.py", "!*.py", "!c.txt",
    ".e", "!.e", "*", "!*/", "a/b", "a/*", "a/**", "**/b", "**/c.txt", "a/**/d.py", "b/*.py",
    "[ab]", "[!a]", "?", "c.*", "f g", "f\\ g", "\\!a", "#a", "", "d.py  ", "**", "b/**/",
)  # fmt: skip

Segments = tuple[str, ...]
paths = st.lists(st.sampled_from(NAMES), min_size=1, max_size=3).map(tuple)
folders = st.lists(st.sampled_from(NAMES), max_size=2).map(tuple)
ignore_lines = st.lists(st.sampled_from(PATTERNS), min_size=1, max_size=5)


def git(root: str, *args: str) -> list[str]:
    """git's answer, with no configuration of the machine's or the user's in play."""
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": root,
        "XDG_CONFIG_HOME": os.path.join(root, ".git", "no-config"),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_CONFIG_GLOBAL": os.devnull,
    }
    done = subprocess.run(
        ["git", "-c", "core.quotepath=off", *args],
        cwd=root,
        env=env,
        capture_output=True,
        check=True,
    )
    return [path for path in os.fsdecode(done.stdout).split("\0") if path]


def build(
    root: str, files: list[Segments], ignores: dict[Segments, list[str]], exclude: list[str]
) -> None:
    git(root, "init", "-q")
    with open(os.path.join(root, ".git", "info", "exclude"), "w") as file:
        file.write("\n".join(exclude) + "\n")
    for segments in files:
        path = os.path.join(root, *segments)
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            if not os.path.isdir(path):
                with open(path, "a") as file:
                    file.write("x")
        except (FileExistsError, NotADirectoryError):
            continue  # a file where this path wants a folder: the tree has the other
    for folder, lines in ignores.items():
        try:
            os.makedirs(os.path.join(root, *folder), exist_ok=True)
        except (FileExistsError, NotADirectoryError):
            continue
        if not os.path.isdir(os.path.join(root, *folder, ".gitignore")):
            with open(os.path.join(root, *folder, ".gitignore"), "w") as file:
                file.write("\n".join(lines) + "\n")


def walked(root: str, top: str) -> set[str]:
    """What the Python walk lists, having checked that ripgrep's lists the same."""
    python = {found.rel for found in walk_files(root, threading.Event(), top=top)}
    assert trio.run(listed, root, top) == python
    return python


async def listed(root: str, top: str) -> set[str]:
    found: set[str] = set()
    async with contextlib.aclosing(ripgrep.files(root, top, threading.Event())) as batches:
        async for batch in batches:
            found.update(hit.rel for hit in batch)
    return found


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    files=st.lists(paths, min_size=1, max_size=12),
    ignores=st.dictionaries(folders, ignore_lines, max_size=3),
    exclude=st.lists(st.sampled_from(PATTERNS), max_size=2),
    start=folders,
)
def test_differential_both_walks_leave_out_what_git_ignores(
    files: list[Segments],
    ignores: dict[Segments, list[str]],
    exclude: list[str],
    start: Segments,
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = os.path.realpath(tmp)
        build(root, files, ignores, exclude)
        untracked = git(root, "ls-files", "-z", "--others", "--exclude-standard")
        assert walked(root, root) == set(untracked)
        # From a folder inside: the ignore files above it apply too. (A folder git ignores is
        # searched whole when a tool is pointed at it, by design, and so is one whose own
        # .gitignore ignores that very file, as uv and virtualenv mark theirs.)
        folder = os.path.join(root, *start)
        if not start or not os.path.isdir(folder):
            return
        rel = "/".join(start)
        ignored = git(
            root, "ls-files", "-z", "--others", "--ignored", "--exclude-standard", "--directory"
        )
        if any(rel == path.rstrip("/") or rel.startswith(path) for path in ignored):
            return
        if f"{rel}/.gitignore" in ignored:
            return
        below = [path[len(rel) + 1 :] for path in untracked if path.startswith(rel + "/")]
        assert walked(folder, root) == set(below)


@pytest.mark.parametrize(
    ("ignores", "expected"),
    [
        # A deeper .gitignore overrides a higher one for what is under it...
        ({".gitignore": "*.txt\n", "a/.gitignore": "!keep.txt\n"}, {"a/keep.txt", "b.py"}),
        # ...but cannot re-include what is in a folder a higher one excludes.
        ({".gitignore": "a/\n", "a/.gitignore": "!keep.txt\n"}, {"b.py", "b.txt"}),
        # Within one file the last match wins; ** spans folders.
        ({".gitignore": "a/**\n!a/keep.txt\n*.py\n"}, {"a/keep.txt", "b.txt"}),
    ],
)
def test_differential_git_precedence_by_example(
    tmp_path: Path, ignores: dict[str, str], expected: set[str]
) -> None:
    root = os.fspath(tmp_path)
    for name in ("a/keep.txt", "a/x.txt", "b.py", "b.txt"):
        os.makedirs(os.path.join(root, os.path.dirname(name)), exist_ok=True)
        with open(os.path.join(root, name), "w") as file:
            file.write("x")
    for name, text in ignores.items():
        with open(os.path.join(root, name), "w") as file:
            file.write(text)
    assert walked(root, root) - set(ignores) == expected


@pytest.mark.parametrize("outer", ["", "# nothing but a comment\n"])
def test_differential_a_nested_repositorys_exclude_file_is_read_by_neither_walk(
    tmp_path: Path, outer: str
) -> None:
    # The walk reads the project's .git/info/exclude only; rg, where the project's has no
    # pattern, is told to read none (it looks for one in every folder it enters otherwise).
    # Where the project's has patterns rg reads them, and a nested repository's too: the one
    # case the two walks still differ on (test_differential_both_walks_... holds the rest).
    root = os.fspath(tmp_path)
    git(root, "init", "-q")
    with open(os.path.join(root, ".git", "info", "exclude"), "w") as file:
        file.write(outer)
    nested = os.path.join(root, "vendor", "lib")
    os.makedirs(os.path.join(nested, ".git", "info"))
    with open(os.path.join(nested, ".git", "info", "exclude"), "w") as file:
        file.write("hidden.txt\n")
    for name in ("vendor/lib/hidden.txt", "vendor/lib/kept.py", "app.log", "app.py"):
        with open(os.path.join(root, name), "w") as file:
            file.write("x")
    everything = {"vendor/lib/hidden.txt", "vendor/lib/kept.py", "app.log", "app.py"}
    assert walked(root, root) == everything
    assert walked(nested, root) == {"hidden.txt", "kept.py"}
