"""Path rules against real files: globs, directories, and no escape through '..' or symlinks."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import pytest

from actors.permission_broker.paths import PathPattern
from actors.permission_broker.rules import Rules
from actors.protocol import ProjectSettings

if TYPE_CHECKING:
    from pathlib import Path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    for name in ("src/app/main.py", "src/util.py", "README.md", "docs/guide.md", ".env",
                 "secrets/key.pem", "config/.env", "notes.txt"):  # fmt: skip
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("x")
    (tmp_path / "outside.txt").write_text("x")
    (tmp_path / "elsewhere").mkdir()
    # Links inside the project: one leading out of it, one into a blocked folder.
    (root / "src" / "escape.py").symlink_to(tmp_path / "outside.txt")
    (root / "src" / "outdir").symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    (root / "src" / "key.py").symlink_to(root / "secrets" / "key.pem")
    (root / "public").symlink_to(root / "secrets", target_is_directory=True)
    return root


@pytest.fixture
def rules(project: Path) -> Rules:
    settings = ProjectSettings(
        allowed_paths=("src/**", "*.md", "docs"),
        blocked_paths=(".env", "secrets/", "**/*.pem"),
    )
    return Rules(os.path.realpath(project), settings)


# (path relative to the project, verdict, reason)
CASES: list[tuple[str, str, str]] = [
    ("src/util.py", "allowed", "allowed by allowedPaths entry 'src/**' (path 'src/util.py')"),
    (
        "src/app/main.py",
        "allowed",
        "allowed by allowedPaths entry 'src/**' (path 'src/app/main.py')",
    ),
    # a file still to be created
    (
        "src/new/file.py",
        "allowed",
        "allowed by allowedPaths entry 'src/**' (path 'src/new/file.py')",
    ),
    ("README.md", "allowed", "allowed by allowedPaths entry '*.md' (path 'README.md')"),
    ("docs/guide.md", "allowed", "allowed by allowedPaths entry 'docs' (path 'docs/guide.md')"),
    ("./src/../README.md", "allowed", "allowed by allowedPaths entry '*.md' (path 'README.md')"),
    ("notes.txt", "unlisted", "'notes.txt' is not in allowedPaths"),
    ("src", "allowed", "allowed by allowedPaths entry 'src/**' (path 'src')"),
    ("docs/../notes.txt", "unlisted", "'notes.txt' is not in allowedPaths"),
    # '..' cannot leave the project
    ("src/../../outside.txt", "unlisted", "'{tmp}/outside.txt' is outside the project root"),
    # a symlink inside the project that points outside is outside
    ("src/escape.py", "unlisted", "'{tmp}/outside.txt' is outside the project root"),
    ("src/outdir/new.py", "unlisted", "'{tmp}/elsewhere/new.py' is outside the project root"),
    # blocked wins, and is checked on the resolved path
    (".env", "blocked", "blocked by blockedPaths entry '.env' (path '.env')"),
    (
        "secrets/key.pem",
        "blocked",
        "blocked by blockedPaths entry 'secrets/' (path 'secrets/key.pem')",
    ),
    ("secrets", "blocked", "blocked by blockedPaths entry 'secrets/' (path 'secrets')"),
    ("src/key.py", "blocked", "blocked by blockedPaths entry 'secrets/' (path 'secrets/key.pem')"),
    (
        "public/key.pem",
        "blocked",
        "blocked by blockedPaths entry 'secrets/' (path 'secrets/key.pem')",
    ),
    ("src/cert.pem", "blocked", "blocked by blockedPaths entry '**/*.pem' (path 'src/cert.pem')"),
    ("src/../.env", "blocked", "blocked by blockedPaths entry '.env' (path '.env')"),
    # '.env' is anchored at the root: config/.env is merely not allowed
    ("config/.env", "unlisted", "'config/.env' is not in allowedPaths"),
]


@pytest.mark.parametrize(("path", "verdict", "reason"), CASES, ids=[c[0] for c in CASES])
def test_a_path_is_judged_by_where_it_really_is(
    project: Path, rules: Rules, path: str, verdict: str, reason: str
) -> None:
    tmp = os.path.realpath(project.parent)
    judgement = rules.judge_paths([str(project / path)])
    assert (judgement.verdict, judgement.reason) == (verdict, reason.format(tmp=tmp))


def test_relative_paths_start_at_the_project_root(rules: Rules) -> None:
    assert rules.judge_paths(["src/util.py"]).verdict == "allowed"


def test_every_path_of_a_request_must_be_allowed(project: Path, rules: Rules) -> None:
    judgement = rules.judge_paths([str(project / "src/util.py"), str(project / "notes.txt")])
    assert (judgement.verdict, judgement.reason) == (
        "unlisted",
        "'notes.txt' is not in allowedPaths",
    )
    both = rules.judge_paths([str(project / "src/util.py"), str(project / "README.md")])
    assert both.reason == (
        "allowed by allowedPaths entry 'src/**' (path 'src/util.py'), "
        "entry '*.md' (path 'README.md')"
    )


def test_one_blocked_path_blocks_the_request(project: Path, rules: Rules) -> None:
    judgement = rules.judge_paths([str(project / "src/util.py"), str(project / ".env")])
    assert judgement.verdict == "blocked"


def test_an_allowed_glob_never_reaches_outside_the_project(tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    rules = Rules(str(root), ProjectSettings(allowed_paths=("**", "../*", "/**")))
    assert rules.judge_paths([str(tmp_path / "other.txt")]).verdict == "unlisted"
    assert rules.judge_paths([str(root / "deep/in/side.txt")]).verdict == "allowed"


def test_a_symlink_placed_in_a_blocked_folder_is_blocked_as_written(project: Path) -> None:
    (project / "secrets" / "readme-link").symlink_to(project / "README.md")
    rules = Rules(os.path.realpath(project), ProjectSettings(blocked_paths=("secrets/",)))
    assert rules.judge_paths([str(project / "secrets/readme-link")]).verdict == "blocked"


def test_absolute_and_home_patterns_block_outside_the_project(tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    (tmp_path / "private").mkdir()
    settings = ProjectSettings(blocked_paths=(f"{tmp_path}/private", "~/.ssh"))
    rules = Rules(str(root), settings)
    assert rules.judge_paths([str(tmp_path / "private/x")]).verdict == "blocked"
    ssh = os.path.expanduser("~/.ssh/id_ed25519")
    assert rules.judge_paths([ssh]).reason.startswith("blocked by blockedPaths entry '~/.ssh'")


# (pattern, path relative to the root, covered)
GLOBS: list[tuple[str, str, bool]] = [
    ("src/**", "src/a/b/c.py", True),
    ("src/**", "src", True),
    ("src/**", "srcx/a.py", False),
    ("*.md", "README.md", True),
    ("*.md", "docs/guide.md", False),
    ("**/*.md", "docs/guide.md", True),
    ("**/*.md", "README.md", True),
    ("src/*.py", "src/a.py", True),
    ("src/*.py", "src/sub/a.py", False),
    ("src/*", "src/sub/a.py", True),  # src/sub is named, and covers what is under it
    ("secrets/", "secrets/a/b", True),
    ("secrets", "secrets/a/b", True),
    ("secrets", "secretsx", False),
    ("a/**/z.txt", "a/z.txt", True),
    ("a/**/z.txt", "a/b/c/z.txt", True),
    ("file?.txt", "file1.txt", True),
    ("file?.txt", "file10.txt", False),
    ("file[0-9].txt", "file7.txt", True),
    ("file[!0-9].txt", "file7.txt", False),
    ("[[]x].txt", "[x].txt", True),
    ("a.b", "axb", False),  # '.' is literal
    ("*", ".env", True),
]


@pytest.mark.parametrize(("pattern", "path", "covered"), GLOBS)
def test_glob_patterns(pattern: str, path: str, covered: bool) -> None:
    assert PathPattern.parse(pattern).covers(path) is covered
