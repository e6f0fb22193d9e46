"""The path rules against the reference: git's own reading of the same patterns on the same tree.

Hypothesis makes trees and gitignore-style rule sets; ``git check-ignore`` says which files a
``.gitignore`` holding those lines would ignore, and the broker must block (or allow) exactly
those. Folders, depth, anchoring, ``**``, classes and negation all come up. One repository,
made once for the module, serves every example's tree as its work tree (``GIT_WORK_TREE``):
what git reads is the tree's ``.gitignore``, and a ``git init`` per example cost most of the time.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from typing import TYPE_CHECKING

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from actors.path_entries import PathRules

if TYPE_CHECKING:
    from collections.abc import Iterator

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")

NAMES = ("a", "b", "ab", ".env", "x.pem", "k.key", "secrets", "é")
SEGMENTS = (*NAMES, "*", "**", "?", "*.pem", "[ab]", "[!a]*", "a*", "*b", "[a-c]*", "?.key")

names = st.sampled_from(NAMES)
files = st.lists(st.lists(names, min_size=1, max_size=4).map("/".join), min_size=1, max_size=14)


@st.composite
def patterns(draw: st.DrawFn, *, negation: bool) -> str:
    text = "/".join(draw(st.lists(st.sampled_from(SEGMENTS), min_size=1, max_size=3)))
    if draw(st.booleans()):
        text = "/" + text
    if draw(st.integers(0, 3)) == 0:
        text += "/"
    if negation and draw(st.integers(0, 3)) == 0:
        text = "!" + text
    return text


@pytest.fixture(scope="module")
def git_dir() -> Iterator[str]:
    """An empty repository's git folder, for ``GIT_DIR``."""
    with tempfile.TemporaryDirectory() as tmp:
        subprocess.run(["git", "init", "-q", tmp], check=True)
        yield os.path.join(tmp, ".git")


def make_tree(root: str, paths: list[str]) -> list[str]:
    """Create the files (skipping any that clash with a folder); the ones made."""
    made = []
    for rel in paths:
        full = os.path.join(root, rel)
        try:
            os.makedirs(os.path.dirname(full), exist_ok=True)
            if not os.path.isdir(full):
                with open(full, "w"):
                    pass
                made.append(rel)
        except (FileExistsError, NotADirectoryError):
            continue
    return sorted(set(made))


def git_ignored(git_dir: str, root: str, lines: list[str], paths: list[str]) -> set[str]:
    with open(os.path.join(root, ".gitignore"), "w") as file:
        file.write("\n".join(lines) + "\n")
    done = subprocess.run(
        ["git", "-C", root, "check-ignore", "--no-index", "--stdin", "-z"],
        input="\0".join(paths) + "\0",
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, "GIT_DIR": git_dir, "GIT_WORK_TREE": root},
    )
    assert done.returncode in (0, 1), done.stderr
    return {path for path in done.stdout.split("\0") if path}


def run_case(git_dir: str, paths: list[str], lines: list[str], *, blocked: bool) -> None:
    # One deliberate difference: '?' and '[...]' match one character, where git's matcher
    # takes one byte (so in git '?' never matches 'é', two bytes in UTF-8).
    assume(not (any(c in "".join(lines) for c in "?[") and not "".join(paths).isascii()))
    with tempfile.TemporaryDirectory() as tmp:
        root = os.path.realpath(tmp)
        made = make_tree(root, paths)
        expected = git_ignored(git_dir, root, lines, made)
        if blocked:
            rules = PathRules(root, (), lines)
            got = {rel for rel in made if rules.blocked_by(os.path.join(root, rel)) is not None}
        else:
            rules = PathRules(root, lines, ())
            got = {rel for rel in made if rules.allowed_by(os.path.join(root, rel)) is not None}
        assert got == expected, (lines, made)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(paths=files, lines=st.lists(patterns(negation=False), min_size=1, max_size=5))
def test_blocked_paths_block_what_git_would_ignore(
    git_dir: str, paths: list[str], lines: list[str]
) -> None:
    run_case(git_dir, paths, lines, blocked=True)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(paths=files, lines=st.lists(patterns(negation=True), min_size=1, max_size=6))
def test_allowed_paths_with_exceptions_allow_what_git_would_ignore(
    git_dir: str, paths: list[str], lines: list[str]
) -> None:
    run_case(git_dir, paths, lines, blocked=False)


single_names = st.sampled_from(SEGMENTS).filter(lambda segment: segment != "**")


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(paths=files, first=single_names, second=single_names)
def test_braces_mean_the_union_of_their_alternatives(
    git_dir: str, paths: list[str], first: str, second: str
) -> None:
    # Two names at any depth, braced as one: '{x,y}' blocks what 'x' and 'y' would.
    lines = [first, second]
    assume(not (any(c in "".join(lines) for c in "?[") and not "".join(paths).isascii()))
    braced = f"{{{first},{second}}}"
    with tempfile.TemporaryDirectory() as tmp:
        root = os.path.realpath(tmp)
        made = make_tree(root, paths)
        expected = git_ignored(git_dir, root, lines, made)
        rules = PathRules(root, (), (braced,))
        got = {rel for rel in made if rules.blocked_by(os.path.join(root, rel)) is not None}
        assert got == expected, (braced, made)
