"""FilterReadable's fast path against its plain definition, on random trees with symlinks.

The broker judges a walk's files in batches, resolving each folder once and keeping the verdict
on each folder for all its files. The answer must be exactly what the plain definition gives:
blocked as written or resolved -> no; inside the walked folder once resolved -> yes; anything
else is judged as a read of its own, and what would need a person is left out.
"""

from __future__ import annotations

import os
import tempfile

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from actors.path_entries import within
from actors.permission_broker.policy import Policy
from actors.protocol import (
    Decision,
    GlobalConfig,
    PermissionMode,
    PermissionRequest,
    ProjectContext,
    ProjectSettings,
)

NAMES = ("a", "b", "secrets", ".env", "k.pem", "x.py")
ENTRIES = ("secrets/", ".env", "*.pem", "a/b", "/b", "a/**/x.py", "b/*", "**/a/secrets")
ALLOWED = ("a/**", "*.py", "b/", "!a/b/**")

paths = st.lists(st.sampled_from(NAMES), min_size=1, max_size=3).map(tuple)


def plain(policy: Policy, folder: str, path: str) -> bool:
    rules = policy.rules.paths
    resolved = rules.resolve(path)
    if not os.path.exists(resolved):
        return False  # nothing to read
    if rules.blocked_by(path) is not None:
        return False
    if rules.blocked and os.path.isfile(resolved) and os.stat(resolved).st_nlink > 1:
        return False  # another name may be blocked: only a person could tell
    if within(rules.resolve(path), rules.resolve(folder)):
        return True
    outcome = policy.assess(PermissionRequest(tool="Walk", kind="read", paths=(path,)))
    return isinstance(outcome, Decision) and outcome.allowed


def build(
    root: str, outside: str, files: list[tuple[str, ...]], links: list[tuple[int, int]]
) -> list[str]:
    made: list[str] = []
    for segments in files:
        path = os.path.join(root, *segments)
        try:
            os.makedirs(os.path.dirname(path), exist_ok=True)
            if not os.path.isdir(path):
                with open(path, "a") as file:
                    file.write("x")
                made.append(path)
        except (FileExistsError, NotADirectoryError):
            continue
    targets = [*made, outside, os.path.join(root, "a"), os.path.join(root, "nowhere")]
    for index, (source, target) in enumerate(links):
        link = os.path.join(os.path.dirname(made[source % len(made)]), f"link{index}")
        if not os.path.lexists(link):
            if target % 5 == 0:
                os.link(made[target % len(made)], link)  # another name for a file
            else:
                os.symlink(targets[target % len(targets)], link)
    return made


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    files=st.lists(paths, min_size=1, max_size=10),
    links=st.lists(st.tuples(st.integers(0, 20), st.integers(0, 20)), max_size=4),
    blocked=st.lists(st.sampled_from(ENTRIES), max_size=3),
    allowed=st.lists(st.sampled_from(ALLOWED), max_size=2),
    mode=st.sampled_from(["ask", "auto", "plan", "custom"]),
    start=st.lists(st.sampled_from(NAMES), max_size=1).map(tuple),
    alias=st.booleans(),
)
def test_the_batch_answer_is_the_plain_answer(
    files: list[tuple[str, ...]],
    links: list[tuple[int, int]],
    blocked: list[str],
    allowed: list[str],
    mode: PermissionMode,
    start: tuple[str, ...],
    alias: bool,
) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        tmp = os.path.realpath(tmp)
        root = os.path.join(tmp, "project")
        outside = os.path.join(tmp, "outside.txt")
        with open(outside, "w") as file:
            file.write("x")
        build(root, outside, files, links)
        folder = os.path.join(root, *start)
        if not os.path.isdir(folder) or os.path.islink(folder):
            folder = root
        if alias:  # the walk reaches the project through a symlinked folder
            os.symlink(root, os.path.join(tmp, "alias"))
            folder = os.path.normpath(os.path.join(tmp, "alias", os.path.relpath(folder, root)))
        met = sorted(
            os.path.join(here, name)
            for here, dirs, names in os.walk(folder)
            for name in [*names, *dirs]
        )
        # Paths no walk gives, which must be judged the same all the same: relative ones, and
        # ones through a folder and back (through a symlinked folder, .. goes elsewhere).
        met += [os.path.relpath(path, root) for path in met[:2]]
        met += [os.path.join(os.path.dirname(path), "..", "b") for path in met[:3]]
        settings_ = ProjectSettings(allowed_paths=tuple(allowed), blocked_paths=tuple(blocked))
        context = ProjectContext(
            project_root=root,
            config=GlobalConfig(),
            settings=settings_,
            model="claude-sonnet-4-6",
            permission_mode=mode,
        )
        policy = Policy(context)
        assert policy.filter_readable(folder, met) == tuple(
            plain(policy, folder, path) for path in met
        )
