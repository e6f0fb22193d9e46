"""Path rules against real files: gitignore's meaning, folders, and no escape through '..' or
symlinks."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import hypothesis
import pytest
from hypothesis import strategies as st

from actors.path_entries import PathRules, parse_entry
from actors.path_patterns import PatternError
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
        allowed_paths=("src/**", "/*.md", "docs"),
        blocked_paths=(".env", "secrets/", "*.pem"),
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
    ("README.md", "allowed", "allowed by allowedPaths entry '/*.md' (path 'README.md')"),
    ("docs/guide.md", "allowed", "allowed by allowedPaths entry 'docs' (path 'docs/guide.md')"),
    ("./src/../README.md", "allowed", "allowed by allowedPaths entry '/*.md' (path 'README.md')"),
    ("notes.txt", "unlisted", "'notes.txt' is not in allowedPaths"),
    # the folder whose contents an entry allows
    ("src", "allowed", "allowed by allowedPaths entry 'src/**' (path 'src')"),
    ("docs/../notes.txt", "unlisted", "'notes.txt' is not in allowedPaths"),
    # '..' cannot leave the project
    ("src/../../outside.txt", "unlisted", "'{tmp}/outside.txt' is outside the project root"),
    # a symlink inside the project that points outside is outside
    ("src/escape.py", "unlisted", "'{tmp}/outside.txt' is outside the project root"),
    ("src/outdir/new.py", "unlisted", "'{tmp}/elsewhere/new.py' is outside the project root"),
    # blocked wins, and is checked on the resolved path
    (".env", "blocked", "blocked by blockedPaths entry '.env' (path '.env')"),
    # a name without a slash matches at any depth, as in .gitignore
    ("config/.env", "blocked", "blocked by blockedPaths entry '.env' (path 'config/.env')"),
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
    ("src/cert.pem", "blocked", "blocked by blockedPaths entry '*.pem' (path 'src/cert.pem')"),
    ("src/../.env", "blocked", "blocked by blockedPaths entry '.env' (path '.env')"),
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
        "entry '/*.md' (path 'README.md')"
    )


def test_one_blocked_path_blocks_the_request(project: Path, rules: Rules) -> None:
    judgement = rules.judge_paths([str(project / "src/util.py"), str(project / ".env")])
    assert judgement.verdict == "blocked"


def test_a_project_entry_never_reaches_outside_the_project(tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    rules = Rules(str(root), ProjectSettings(allowed_paths=("**", "/**", "*")))
    assert rules.judge_paths([str(tmp_path / "other.txt")]).verdict == "unlisted"
    assert rules.judge_paths([str(root / "deep/in/side.txt")]).verdict == "allowed"


def test_a_symlink_placed_in_a_blocked_folder_is_blocked_as_written(project: Path) -> None:
    (project / "secrets" / "readme-link").symlink_to(project / "README.md")
    rules = Rules(os.path.realpath(project), ProjectSettings(blocked_paths=("secrets/",)))
    assert rules.judge_paths([str(project / "secrets/readme-link")]).verdict == "blocked"


def test_home_and_absolute_entries_reach_outside_the_project(tmp_path: Path) -> None:
    root = tmp_path / "p"
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    root.mkdir()
    (tmp_path / "private").mkdir()
    paths = PathRules(
        str(root), ("//" + str(tmp_path / "shared").lstrip("/") + "/**",),
        (f"/{tmp_path}/private", "~/.ssh"), home=str(home),
    )  # fmt: skip
    private = paths.blocked_by(str(tmp_path / "private/x"))
    assert private is not None and private.text == f"/{tmp_path}/private"
    ssh = paths.blocked_by(str(home / ".ssh/id_ed25519"))
    assert ssh is not None and ssh.text == "~/.ssh"
    assert paths.blocked_by(str(home / "ssh")) is None
    assert paths.allowed_by(str(tmp_path / "shared/a/b.txt")) is not None
    assert paths.allowed_by(str(tmp_path / "sharedx/b.txt")) is None


@pytest.mark.parametrize("entry", ["~", "~/", "//", "///"])
def test_the_whole_home_or_file_system_is_blocked_as_spelt(tmp_path: Path, entry: str) -> None:
    home = tmp_path / "home"
    (home / "notes").mkdir(parents=True)
    paths = PathRules(str(tmp_path), (), (entry,), home=str(home))
    found = paths.blocked_by(str(home / "notes" / "a.txt"))
    assert found is not None and found.text == entry


def test_a_leading_slash_anchors_at_the_project_root_not_the_file_system(tmp_path: Path) -> None:
    root = tmp_path / "p"
    (root / "sub").mkdir(parents=True)
    (root / "a" / "sub").mkdir(parents=True)
    paths = PathRules(str(root), (), ("/sub/",))
    assert paths.blocked_by(str(root / "sub/id.key")) is not None
    assert paths.blocked_by(str(root / "a/sub/id.key")) is None
    assert paths.blocked_by("/sub/id.key") is None  # the file system's /sub is not named


# The rule sets users write, each with files that must be blocked and files that must not.
USER_RULES: list[tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]] = [
    (
        ("*.pem", "*.key", "secrets/"),
        ("certs/server.pem", "sub/id.key", "sub/secrets/a.txt", "deep/a/b/token.pem", "x.key"),
        ("src/main.py", "certs/server.pem.txt", "secretsx/a.txt", "b.txt"),
    ),
    (
        ("**/*.{pem,key}", "secrets"),
        ("certs/server.pem", "sub/id.key", "sub/secrets/a.txt", "deep/a/b/token.pem"),
        ("src/main.py", "keys/k.txt", "b.txt"),
    ),
    (
        ("[!a]*.key", "*.pem", "secrets/"),
        ("certs/server.pem", "sub/id.key", "sub/secrets/a.txt", "deep/a/b/token.pem"),
        ("sub/a.key", "src/main.py"),
    ),
    (
        ("./certs/server.pem", "/sub/", "**/b.txt", "deep/**/token.pem"),
        ("certs/server.pem", "sub/id.key", "sub/secrets/a.txt", "deep/a/b/token.pem", "b.txt"),
        ("x/certs/server.pem", "a/sub/x", "src/main.py"),
    ),
    (
        ("secrets/**", "build/*.log", "?.tmp"),
        ("secrets/a.txt", "secrets/d/e", "build/x.log", "a.tmp", "d/b.tmp"),
        ("build/sub/x.log", "ab.tmp", "x/secrets/a.txt"),
    ),
]


@pytest.mark.parametrize(("blocked", "hit", "miss"), USER_RULES, ids=lambda v: str(v)[:40])
def test_the_rules_users_write_mean_what_they_mean_in_gitignore(
    tmp_path: Path, blocked: tuple[str, ...], hit: tuple[str, ...], miss: tuple[str, ...]
) -> None:
    root = tmp_path / "p"
    for name in (*hit, *miss):
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text("x")
    paths = PathRules(str(root), (), blocked)
    assert [name for name in hit if paths.blocked_by(str(root / name)) is None] == []
    assert [name for name in miss if paths.blocked_by(str(root / name)) is not None] == []


def test_exceptions_in_allowed_paths_re_include_and_cannot_reopen_a_folder(tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    entries = ("src/**", "!src/generated/", "!src/generated/**", "!*.lock", "docs/", "!docs/a")
    paths = PathRules(str(root), entries, ())
    assert paths.allowed_by(str(root / "src/a.py")) is not None
    assert paths.allowed_by(str(root / "src/generated/a.py")) is None
    assert paths.allowed_by(str(root / "src/poetry.lock")) is None
    # As in git, nothing under a matched folder can be taken back out of it.
    assert paths.allowed_by(str(root / "docs/a")) is not None


BAD_ENTRIES: list[tuple[str, bool, str]] = [
    ("", True, "empty"),
    ("!secrets", False, "not accepted in blockedPaths"),
    ("#notes", True, "comment"),
    ("[abc", False, "no closing ']'"),
    ("*.{pem,key", False, "braces do not pair up"),
    ("a}b", False, "braces do not pair up"),
    ("src/../x", True, "'..' inside a pattern"),
    ("../x", False, "'..' inside a pattern"),
    ("ends\\", False, "lone backslash"),
    ("~bob/x", False, "'~user' folders"),
    ("a\0b", False, "NUL"),
    ("!", True, "needs a pattern"),
]


@pytest.mark.parametrize(("text", "negation", "why"), BAD_ENTRIES)
def test_an_entry_that_cannot_mean_what_it_says_is_refused(
    tmp_path: Path, text: str, negation: bool, why: str
) -> None:
    with pytest.raises(PatternError, match=why):
        parse_entry(text, str(tmp_path), negation=negation)


@hypothesis.given(
    st.lists(st.sampled_from(["a", "b.c", ".", "..", ".env", "", "~", "x y"]), max_size=6),
    st.booleans(),
    st.booleans(),
)
def test_a_path_taken_as_written_is_what_normalising_gives(
    parts: list[str], absolute: bool, trailing: bool
) -> None:
    """A walk's paths skip normalising; any path that does must come out as it would."""
    path = ("/" if absolute else "") + "/".join(parts) + ("/" if trailing else "")
    rules = PathRules("/project", (), (".env",), home="/home/me")
    assert rules.written(path) == os.path.normpath(
        os.path.join("/project", os.path.expanduser(path))
    )
