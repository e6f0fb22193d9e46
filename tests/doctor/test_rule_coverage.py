"""`legato doctor` names path entries that match nothing: in the project by a walk of it (.git
not entered), outside it by whether the entry's folder exists; the walk's cap is said."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import TYPE_CHECKING

from actors.protocol import CheckRuleCoverage, RuleCoverage, UnmatchedRule
from frontends.commands.doctor import rule_lines
from frontends.session import memory_store, permission_broker
from frontends.session_options import SessionOptions
from runtime import supervise
from tests.frontends.conftest import REPO

if TYPE_CHECKING:
    from tests.frontends.conftest import Project

LEGATO = (sys.executable, "-c", "from frontends.cli import main; main()")
FIX = "    → Fix the entry, or remove it if it is no longer needed"


def setup(project: Project, allowed: list[str], blocked: list[str]) -> str:
    for name in ("src/a.py", "lib/deep/secrets/k.pem", "docs/guide.md", ".git/hooks/pre-commit"):
        project.write(name, "x\n")
    (project.home / "notes").mkdir()
    project.settings(allowedPaths=allowed, blockedPaths=blocked)
    return str(project.root / ".legato" / "settings.json")


def doctor(project: Project) -> subprocess.CompletedProcess[str]:
    env = {"PATH": os.environ["PATH"], "HOME": str(project.home)}
    return subprocess.run(
        [*LEGATO, "doctor", str(project.root), "--no-probe"],
        capture_output=True,
        text=True,
        cwd=REPO,
        env=env,
        timeout=60,
    )


def section(out: str) -> list[str]:
    lines = out.splitlines()
    start = lines.index("Path rules") + 1
    return lines[start : lines.index("", start)]


def test_entries_that_match_nothing_are_named_with_the_remedy(project: Project) -> None:
    file = setup(
        project,
        ["src/**", "docs/*.md", "doc/*.md", "~/notes/**", "~/todo/**", "!src/keep.py"],
        ["secrets/", "*.pem", "/secrets/", ".git/", ".git/hooks/", ".git/info/", "//etc/"],
    )
    done = doctor(project)
    assert done.returncode == 1, done.stdout  # no API key: that is the problem, not the rules
    assert section(done.stdout) == [
        f"  ! {file}: allowedPaths[2] 'doc/*.md' matches no file or folder in the project",
        FIX,
        f"  ! {file}: allowedPaths[4] '~/todo/**' names the folder {project.home}/todo, which "
        "does not exist",
        FIX,
        f"  ! {file}: allowedPaths[5] '!src/keep.py' matches no file or folder in the project",
        FIX,
        f"  ! {file}: blockedPaths[2] '/secrets/' matches no file or folder in the project",
        FIX,
        f"  ! {file}: blockedPaths[5] '.git/info/' names the folder {project.root}/.git/info, "
        "which does not exist",
        FIX,
    ]


def test_all_matching_is_said_and_no_rules_too(project: Project) -> None:
    setup(project, ["src/**"], ["*.pem", ".git/"])
    every = "  every entry matches something (.git/ not searched)"
    assert section(doctor(project).stdout) == [every]
    project.write(".legato/settings.json", json.dumps({"allowedCommands": ["ls"]}))
    assert section(doctor(project).stdout) == ["  no allowedPaths or blockedPaths entries"]


async def check(project: Project, *limits: int) -> list[RuleCoverage]:
    """The broker's answer to ``CheckRuleCoverage`` with each limit, by message."""
    memory = memory_store(SessionOptions(project_root=str(project.root), home=str(project.home)))
    broker = permission_broker(memory)
    async with supervise([memory, broker]):
        return [await broker.address.ask(CheckRuleCoverage(limit=limit)) for limit in limits]


async def test_the_walk_stops_at_its_limit_and_says_so(project: Project) -> None:
    setup(project, ["src/**"], ["zzz/"])
    full, capped = await check(project, 200_000, 2)
    assert (full.entries, full.unmatched, full.capped) == (
        2,
        (UnmatchedRule("blockedPaths[0]", "zzz/", "matches no file or folder in the project"),),
        False,
    )
    assert full.walked == 11  # .git met, not entered; .legato and its settings file counted
    assert (capped.walked, capped.capped) == (2, True)


async def test_doctor_says_when_the_walk_was_cut_short(project: Project) -> None:
    file = setup(project, ["src/**"], ["zzz/"])
    [coverage] = await check(project, 3)
    # Met by then: .git, .legato and docs; src/** would have matched further in.
    assert rule_lines(coverage) == [
        f"  ! {file}: allowedPaths[0] 'src/**' matches no file or folder in the project",
        FIX,
        f"  ! {file}: blockedPaths[0] 'zzz/' matches no file or folder in the project",
        FIX,
        "  ! the walk stopped after 3 files and folders: an entry reported above may match "
        "something further in",
    ]


async def test_no_entries_is_said_without_a_walk(project: Project) -> None:
    project.settings(allowedCommands=["ls"])
    [coverage] = await check(project, 200_000)
    assert (coverage.entries, coverage.walked) == (0, 0)
    assert rule_lines(coverage) == ["  no allowedPaths or blockedPaths entries"]
