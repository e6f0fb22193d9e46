"""The policy: modes, blocked-wins, the session's always/never, and headless reasons."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import pytest

from actors.permission_broker.answers import FORGET_NEVER
from actors.permission_broker.policy import Policy
from actors.permission_broker.questions import FULL_CHOICES, ONCE_CHOICES, Question
from actors.protocol import (
    Decision,
    GlobalConfig,
    OperationKind,
    PermissionMode,
    PermissionRequest,
    ProjectContext,
    ProjectSettings,
    Reply,
)

if TYPE_CHECKING:
    from pathlib import Path

MODES: tuple[PermissionMode, ...] = ("ask", "auto", "custom", "plan")


@pytest.fixture
def root(tmp_path: Path) -> str:
    project = tmp_path / "project"
    (project / "src").mkdir(parents=True)
    (project / ".legato").mkdir()
    return os.path.realpath(project)


def make_policy(
    root: str,
    mode: PermissionMode = "ask",
    *,
    allowed_paths: tuple[str, ...] = ("docs/**",),
    blocked_paths: tuple[str, ...] = (".env",),
    allowed_commands: tuple[str, ...] = ("git status", "ls"),
    blocked_commands: tuple[str, ...] = ("rm",),
) -> Policy:
    settings = ProjectSettings(
        allowed_paths=allowed_paths,
        blocked_paths=blocked_paths,
        allowed_commands=allowed_commands,
        blocked_commands=blocked_commands,
    )
    context = ProjectContext(
        project_root=root,
        config=GlobalConfig(),
        settings=settings,
        model="claude-sonnet-4-6",
        permission_mode=mode,
    )
    return Policy(context)


def files(kind: OperationKind, *paths: str) -> PermissionRequest:
    return PermissionRequest(tool="Test", kind=kind, paths=paths)


def run(command: str) -> PermissionRequest:
    return PermissionRequest(tool="Bash", kind="run", command=command)


def decision(outcome: Decision | Question) -> Decision:
    assert isinstance(outcome, Decision), outcome
    return outcome


def question(outcome: Decision | Question) -> Question:
    assert isinstance(outcome, Question), outcome
    return outcome


# (mode, request, None = asks, else (allowed, reason))
OUTSIDE = "/somewhere/else.txt"
MODE_TABLE: list[tuple[PermissionMode, PermissionRequest, tuple[bool, str] | None]] = [
    # ask: every operation asks, but allowed rules pre-approve
    ("ask", files("read", "src/a.py"), None),
    ("ask", files("write", "src/a.py"), None),
    ("ask", run("make"), None),
    ("ask", files("read", "docs/x.md"), (True, "allowed by allowedPaths entry 'docs/**'")),
    ("ask", run("git status -s"), (True, "allowed by allowedCommands entry 'git status'")),
    # auto: reading and editing inside the project is accepted; commands and outside ask
    ("auto", files("read", "src/a.py"), (True, "reading inside the project is accepted in")),
    ("auto", files("write", "src/a.py"), (True, "writing inside the project is accepted in")),
    ("auto", files("create", "src/new.py"), (True, "creating inside the project is accepted")),
    ("auto", files("read", OUTSIDE), None),
    ("auto", files("write", "src/a.py", OUTSIDE), None),
    ("auto", run("make"), None),
    ("auto", run("ls -la"), (True, "allowed by allowedCommands entry 'ls'")),
    # custom: the project's allowed rules accept, everything else asks
    ("custom", files("read", "docs/x.md"), (True, "allowed by allowedPaths entry 'docs/**'")),
    ("custom", files("read", "src/a.py"), None),
    ("custom", run("ls"), (True, "allowed by allowedCommands entry 'ls'")),
    ("custom", run("make"), None),
    # plan: read-only
    ("plan", files("read", "src/a.py"), (True, "reading inside the project is accepted in plan")),
    ("plan", files("read", OUTSIDE), None),
    ("plan", files("write", "src/a.py"), (False, "plan mode is read-only: writing 'src/a.py'")),
    ("plan", files("create", "docs/n.md"), (False, "plan mode is read-only: creating")),
    ("plan", run("ls"), (False, "plan mode is read-only: running 'ls' is not allowed")),
]


@pytest.mark.parametrize(("mode", "request_", "expected"), MODE_TABLE)
def test_modes(
    root: str,
    mode: PermissionMode,
    request_: PermissionRequest,
    expected: tuple[bool, str] | None,
) -> None:
    outcome = make_policy(root, mode).assess(request_)
    if expected is None:
        assert isinstance(outcome, Question)
    else:
        allowed, reason = expected
        assert decision(outcome).allowed is allowed
        assert decision(outcome).reason.startswith(reason)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize(
    ("request_", "reason"),
    [
        (files("read", ".env"), "blocked by blockedPaths entry '.env' (path '.env')"),
        (run("ls && rm -rf x"), "blocked by blockedCommands entry 'rm' (command 'rm -rf x')"),
        (run("ls > .env"), "blocked by blockedPaths entry '.env' (redirection '> .env')"),
    ],
)
def test_blocked_rules_hold_in_every_mode(
    root: str, mode: PermissionMode, request_: PermissionRequest, reason: str
) -> None:
    policy = make_policy(root, mode)
    assert decision(policy.assess(request_)) == blocked_by(policy, reason)


def blocked_by(policy: Policy | Path, reason: str) -> Decision:
    """A blocked entry's refusal: its reason, and that no reply can override it. ``policy``:
    the policy, or the project whose settings file holds the entry."""
    if isinstance(policy, Policy):
        settings = policy.settings_file
    else:
        settings = str(policy / ".legato" / "settings.json")
    return Decision(
        False,
        reason,
        remedy="A blocked entry holds in every mode and no reply overrides it; to allow this, "
        f"remove the entry from {settings}",
    )


def test_blocked_wins_over_allowed(root: str) -> None:
    policy = make_policy(root, allowed_commands=("rm",), allowed_paths=("**",))
    assert not decision(policy.assess(run("rm x"))).allowed
    assert not decision(policy.assess(files("read", ".env"))).allowed


@pytest.mark.parametrize("mode", ["ask", "auto", "custom"])
def test_writing_the_rules_themselves_always_asks_with_y_n_only(
    root: str, mode: PermissionMode
) -> None:
    policy = make_policy(root, mode, allowed_paths=("**",))
    asked = question(policy.assess(files("write", ".legato/settings.json")))
    assert asked.choices == ONCE_CHOICES
    assert asked.headless_reason.startswith(
        "writing '.legato/settings.json' changes Legato's own settings, skills and agents "
        "(.legato/), which always needs a person's approval whatever the mode"
    )
    # Reading them is an ordinary read.
    assert decision(policy.assess(files("read", ".legato/settings.json"))).allowed


OWN_FILES = [
    ".legato/settings.json",
    ".legato/skills/x/SKILL.md",
    ".legato/agents/a.md",
    ".claude/settings.json",
    ".claude/commands/deploy.md",
    ".claude/skills/x/SKILL.md",
    ".claude/agents/a.md",
    ".git/config",
    ".git/hooks/pre-commit",
    "src/../.git/info/../config",
    "vendor/lib/.git/config",
    "sub/.git/hooks/post-checkout",
]


@pytest.mark.parametrize("path", OWN_FILES)
@pytest.mark.parametrize("kind", ["write", "create"])
def test_legato_and_git_files_ask_before_any_write_even_in_auto_mode(
    root: str, path: str, kind: OperationKind
) -> None:
    policy = make_policy(root, "auto", allowed_paths=("**", "*", ".*"))
    assert question(policy.assess(files(kind, path))).choices == ONCE_CHOICES


def test_a_symlink_to_an_own_file_is_an_own_file(root: str) -> None:
    os.makedirs(os.path.join(root, ".git"))
    os.symlink(os.path.join(root, ".git", "config"), os.path.join(root, "src", "notes.txt"))
    os.symlink(os.path.join(root, ".legato"), os.path.join(root, "docs"))
    policy = make_policy(root, "auto")
    assert question(policy.assess(files("write", "src/notes.txt"))).choices == ONCE_CHOICES
    assert question(policy.assess(files("create", "docs/x.md"))).choices == ONCE_CHOICES


def test_the_global_config_and_legato_data_ask_before_any_write(tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".config" / "legato").mkdir(parents=True)
    project = tmp_path / "p"
    project.mkdir()
    context = ProjectContext(
        project_root=str(project),
        config=GlobalConfig(),
        settings=ProjectSettings(allowed_paths=("//**",)),
        model="claude-sonnet-4-6",
        permission_mode="auto",
        home=str(home),
    )
    policy = Policy(context)
    for path in (
        home / ".config/legato/config.json",
        home / ".legato/projects/x/s.jsonl",
        home / ".claude/commands/x.md",
    ):
        assert question(policy.assess(files("write", str(path)))).choices == ONCE_CHOICES


def test_an_entry_that_names_an_own_place_explicitly_allows_writing_there(root: str) -> None:
    policy = make_policy(root, "custom", allowed_paths=(".legato/skills/**", "**"))
    assert decision(policy.assess(files("create", ".legato/skills/x/SKILL.md"))).allowed
    assert question(policy.assess(files("write", ".legato/settings.json")))
    assert question(policy.assess(files("write", ".git/config")))


def test_a_walk_reads_what_is_not_blocked_and_stays_in_its_folder(tmp_path: Path) -> None:
    project = tmp_path / "p"
    (project / "src").mkdir(parents=True)
    (tmp_path / "home" / ".ssh").mkdir(parents=True)
    key = tmp_path / "home" / ".ssh" / "id_rsa"
    key.write_text("k")
    (project / ".env").write_text("s")
    (project / "src" / "a.py").write_text("a")
    (project / "src" / "e.txt").symlink_to(project / ".env")
    (project / "src" / "k.txt").symlink_to(key)
    (project / "src" / "readme.md").symlink_to(project / "README.md")
    (project / "README.md").write_text("r")
    root = os.path.realpath(project)
    policy = make_policy(root, "custom", allowed_paths=("src/**",), blocked_paths=(".env",))
    folder = os.path.join(root, "src")
    readable = {
        name: policy.readable_in_walk(folder, os.path.join(folder, name))
        for name in ("a.py", "e.txt", "k.txt", "readme.md")
    }
    # e.txt leads to a blocked file, k.txt out of the project, readme.md out of the folder to
    # a file no rule allows: only a.py may be read.
    assert readable == {"a.py": True, "e.txt": False, "k.txt": False, "readme.md": False}
    auto = make_policy(root, "auto", blocked_paths=(".env",))
    assert auto.readable_in_walk(folder, os.path.join(folder, "readme.md"))


def test_always_remembers_the_kind_of_operation_for_the_session(root: str) -> None:
    policy = make_policy(root)
    asked = question(policy.assess(files("write", "src/a.py")))
    assert asked.choices == FULL_CHOICES
    assert asked.scope == "editing existing files inside the project"
    assert policy.answer(asked, "always") == Decision(
        True, "the user allowed editing existing files inside the project for this session"
    )
    # Edits of existing files inside the project: accepted from now on.
    assert decision(policy.assess(files("write", "src/b.py"))) == Decision(
        True, "the user allowed editing existing files inside the project for this session"
    )
    # A create, a read, or a write outside the project, is another kind: still asks.
    assert isinstance(policy.assess(files("create", "src/c.py")), Question)
    assert isinstance(policy.assess(files("read", "src/a.py")), Question)
    assert isinstance(policy.assess(files("write", OUTSIDE)), Question)


def test_never_remembers_and_wins_over_an_allowed_rule(root: str) -> None:
    policy = make_policy(root)
    asked = question(policy.assess(run("git log")))
    assert asked.scope == "running 'git'"
    never = Decision(False, "the user denied running 'git' for this session", remedy=FORGET_NEVER)
    assert policy.answer(asked, "never") == never
    assert decision(policy.assess(run("git status"))) == never
    assert decision(policy.assess(run("ls"))).allowed


def test_always_for_a_command_remembers_its_first_word(root: str) -> None:
    policy = make_policy(root)
    policy.answer(question(policy.assess(run("npm test"))), "always")
    assert decision(policy.assess(run("npm run build"))).allowed
    assert isinstance(policy.assess(run("make")), Question)
    # A compound line is accepted only when every command is.
    assert isinstance(policy.assess(run("npm test && make")), Question)
    asked = question(policy.assess(run("npm test && make")))
    assert asked.scope == "running 'npm', 'make'"
    policy.answer(asked, "always")
    assert decision(policy.assess(run("make && npm test"))).allowed


def test_never_for_one_command_denies_a_line_that_contains_it(root: str) -> None:
    policy = make_policy(root)
    policy.answer(question(policy.assess(run("curl x"))), "never")
    assert decision(policy.assess(run("ls | curl -d @- x"))) == Decision(
        False, "the user denied running 'curl' for this session", remedy=FORGET_NEVER
    )


def test_y_and_n_are_for_this_operation_only(root: str) -> None:
    policy = make_policy(root)
    asked = question(policy.assess(run("make")))
    assert policy.answer(asked, "y") == Decision(True, "the user allowed it")
    assert policy.answer(asked, "n") == Decision(False, "the user denied it")
    assert isinstance(policy.assess(run("make")), Question)


def test_an_answer_outside_the_choices_is_no(root: str) -> None:
    policy = make_policy(root)
    asked = question(policy.assess(run("$CMD")))
    assert asked.choices == ONCE_CHOICES
    assert policy.answer(asked, "always") == Decision(
        False, "the answer 'always' is not one of the choices; taken as no"
    )
    assert policy.answer(asked, "maybe").allowed is False


def test_an_unknowable_line_asks_even_in_auto_mode(root: str) -> None:
    asked = question(make_policy(root, "auto").assess(run("eval $X")))
    assert asked.choices == ONCE_CHOICES
    assert asked.headless_reason == (
        "the script in 'eval $X' is only known when it runs, so it needs a person's approval "
        "and a headless run cannot ask. Write the command out literally, or run it "
        "interactively"
    )


def test_headless_reasons_say_why_and_how_to_allow(root: str) -> None:
    policy = make_policy(root)
    settings = os.path.join(root, ".legato", "settings.json")
    assert question(policy.assess(run("curl example.com"))).headless_reason == (
        "'curl example.com' is not in allowedCommands, so ask mode asks before running it, "
        "and a headless run cannot ask. To allow it, add 'curl' (or the whole command) to "
        f"allowedCommands in {settings}, or the rule 'Bash(curl *)' to permissions.allow in "
        ".claude/settings.json"
    )
    assert question(policy.assess(files("write", "src/a.py"))).headless_reason == (
        "'src/a.py' is not in allowedPaths, so ask mode asks before writing 'src/a.py', and a "
        "headless run cannot ask. To allow it, add a matching pattern to allowedPaths in "
        f"{settings}, or run with --permission-mode auto"
    )
    assert question(policy.assess(files("read", "/etc/hostname"))).headless_reason == (
        "'/etc/hostname' is outside the project root; reading outside the project always "
        "needs a person's approval unless allowedPaths names it, and a headless run cannot "
        "ask. Run interactively to approve it, or add '//etc/hostname' to allowedPaths in "
        f"{settings}"
    )
    # A symlink in the project named with the folder it leads to: the folder is named once.
    os.symlink("/etc", os.path.join(root, "etcdir"))
    reason = question(policy.assess(files("read", "etcdir", "/etc"))).headless_reason
    assert reason.endswith(f"or add '//etc' to allowedPaths in {settings}")


def test_a_request_without_paths_is_about_the_project_root(root: str) -> None:
    policy = make_policy(root, "auto")
    assert decision(policy.assess(files("read"))).allowed
    assert isinstance(make_policy(root).assess(files("read")), Question)


def test_switching_the_mode_changes_the_answers(root: str) -> None:
    policy = make_policy(root)
    assert isinstance(policy.assess(files("write", "src/a.py")), Question)
    policy.mode = "auto"
    assert decision(policy.assess(files("write", "src/a.py"))).allowed
    policy.mode = "plan"
    assert not decision(policy.assess(files("write", "src/a.py"))).allowed


def test_always_on_a_create_does_not_cover_editing_existing_files(root: str) -> None:
    policy = make_policy(root)
    asked = question(policy.assess(files("create", "src/new.py")))
    assert asked.scope == "creating new files inside the project"
    policy.answer(asked, "always")
    assert decision(policy.assess(files("create", "src/other.py"))).allowed
    # The person saw a new file's contents, never a diff of an existing one: that still asks.
    edit = question(policy.assess(files("write", "src/old.py")))
    assert edit.scope == "editing existing files inside the project"


def test_replies_are_listed_in_order_and_one_can_be_forgotten(root: str) -> None:
    policy = make_policy(root)
    policy.answer(question(policy.assess(files("create", "src/new.py"))), "always")
    policy.answer(question(policy.assess(run("curl x"))), "never")
    assert policy.replies() == (
        Reply("creating new files inside the project", True),
        Reply("running 'curl'", False),
    )
    assert policy.forget(3) is None and policy.forget(0) is None
    assert policy.forget(2) == Reply("running 'curl'", False)
    assert isinstance(policy.assess(run("curl x")), Question)  # asked again, not refused
    assert policy.replies() == (Reply("creating new files inside the project", True),)


def test_a_command_naming_a_blocked_file_warns_in_its_question(root: str) -> None:
    policy = make_policy(root, "auto", allowed_commands=("cat",), blocked_paths=(".env",))
    asked = question(policy.assess(run("cat .env")))
    assert asked.choices == ONCE_CHOICES
    assert asked.warning == (
        "It names '.env', which blockedPaths entry '.env' covers: the rules cannot stop an "
        "allowed program from reading it."
    )
    own = question(policy.assess(run("cat x > .legato/settings.json")))
    assert own.warning is not None and "Legato's own settings" in own.warning
