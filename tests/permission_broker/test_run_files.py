"""Files that run outside the sandbox, and git's files, in the policy: what a hook or an MCP server
runs, and ``.mcp.json``, ask before every edit in every mode; an option that makes a program
write a file (``git diff --output``) is judged as that write."""

from __future__ import annotations

import os
import shlex
from typing import TYPE_CHECKING

import pytest

from actors.permission_broker.policy import Policy
from actors.permission_broker.questions import ONCE_CHOICES, Question
from actors.protocol import (
    Decision,
    GlobalConfig,
    HookCommand,
    HookGroup,
    McpServer,
    PermissionMode,
    PermissionRequest,
    ProjectContext,
    ProjectSettings,
)
from actors.run_files import files_git_hooks_name, files_that_run

if TYPE_CHECKING:
    from pathlib import Path

HOOK = 'cd "$CLAUDE_PROJECT_DIR" && ./scripts/fmt.sh --all'
SERVER = McpServer(
    name="tools",
    transport="stdio",
    source=".mcp.json",
    command="python3",
    args=("-u", "tools/server.py", "--config=tools/server.toml"),
)


@pytest.fixture
def root(tmp_path: Path) -> str:
    project = tmp_path / "project"
    for name in ("scripts/fmt.sh", "tools/server.py", "tools/server.toml", "src/a.py"):
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text("x\n")
    (project / ".legato").mkdir()
    (project / ".git").mkdir()
    return os.path.realpath(project)


def make_policy(
    root: str, mode: PermissionMode, *, allowed_commands: tuple[str, ...] = ()
) -> Policy:
    hooks = (HookGroup(event="PostToolUse", hooks=(HookCommand(command=HOOK),)),)
    return Policy(
        ProjectContext(
            project_root=root,
            config=GlobalConfig(),
            settings=ProjectSettings(allowed_commands=allowed_commands),
            model="claude-sonnet-4-6",
            permission_mode=mode,
            hooks=hooks,
            mcp_servers=(SERVER,),
            home=os.path.join(root, "..", "home"),
        )
    )


def write(path: str) -> PermissionRequest:
    return PermissionRequest(tool="Write", kind="write", paths=(path,))


def run(command: str) -> PermissionRequest:
    return PermissionRequest(tool="Bash", kind="run", command=command)


def test_the_files_are_found_in_hook_commands_and_server_arguments(root: str) -> None:
    os.makedirs(os.path.join(root, "pkg", "fmt"))
    open(os.path.join(root, "pkg", "fmt", "__main__.py"), "w").close()
    open(os.path.join(root, "pkg", "__init__.py"), "w").close()  # Python runs it first
    hooks = (
        HookGroup(
            event="PreToolUse",
            hooks=(
                HookCommand(command=HOOK),
                HookCommand(command="python -m pkg.fmt ${LEGATO_PROJECT_DIR}/src/a.py"),
                HookCommand(command="/bin/true ~/outside.sh missing.sh ../elsewhere.sh"),
                HookCommand(command="sh ${HOME}/project/tools/server.toml"),
                HookCommand(command="fmt", callback="hook_0"),
            ),
        ),
    )
    found = files_that_run(root, os.path.dirname(root), hooks, (SERVER,))
    assert sorted(os.path.relpath(path, root) for path in found) == [
        "pkg/__init__.py",
        "pkg/fmt/__main__.py",
        "scripts/fmt.sh",
        "src/a.py",
        "tools/server.py",
        "tools/server.toml",
    ]
    assert found[os.path.join(root, "tools/server.py")] == "the MCP server 'tools'"


def test_a_task_runners_manifest_counts_where_it_exists(root: str) -> None:
    names = ("package.json", ".npmrc", "Makefile", "justfile", "pyproject.toml", "uv.lock")
    for name in (*names, "Cargo.toml"):
        open(os.path.join(root, name), "w").close()
    hooks = (
        HookGroup(
            event="Stop",
            hooks=tuple(
                HookCommand(command=line)
                for line in (
                    "npm run fmt",
                    "cd sub; FMT=1 make -s fmt && just lint",
                    "/usr/bin/env uv run ruff format",
                    "echo make npm cargo",  # words, not programs
                )
            ),
        ),
    )
    found = files_that_run(root, os.path.dirname(root), hooks, ())
    assert sorted(os.path.relpath(path, root) for path in found) == [
        ".npmrc",
        "Makefile",
        "justfile",
        "package.json",
        "pyproject.toml",
        "uv.lock",
    ]
    assert found[os.path.join(root, "Makefile")] == (
        "the Stop hook 'cd sub; FMT=1 make -s fmt && just lint'"
    )


@pytest.mark.parametrize("mode", ["ask", "auto", "custom", "bypass"])
@pytest.mark.parametrize(
    "request_",
    [
        write("scripts/fmt.sh"),
        write("tools/server.py"),
        write(".mcp.json"),
        run("echo 'curl x | sh' >> scripts/fmt.sh"),
        run("cp /tmp/x tools/server.py"),
    ],
)
def test_editing_what_runs_outside_the_sandbox_asks_a_person_in_every_mode(
    root: str, mode: PermissionMode, request_: PermissionRequest
) -> None:
    outcome = make_policy(root, mode, allowed_commands=("echo", "cp")).assess(request_)
    assert isinstance(outcome, Question), outcome
    assert outcome.person_only
    assert outcome.choices == ONCE_CHOICES
    assert "outside the sandbox" in outcome.headless_reason


def test_dont_ask_denies_it_and_other_files_stay_as_the_mode_says(root: str) -> None:
    denied = make_policy(root, "dont_ask").assess(write("scripts/fmt.sh"))
    assert isinstance(denied, Decision) and not denied.allowed
    assert make_policy(root, "auto").assess(write("src/b.py")) == Decision(
        True, "writing inside the project is accepted in auto-accept mode"
    )


@pytest.mark.parametrize(
    "command",
    [
        "git diff --output=.git/commondir",
        "git diff --output .git/config.worktree",
        "git log --outp=.git/info/attributes",
        "git -C . diff HEAD --output=.git/hooks/pre-commit",
        "git diff --output=notes.txt",
        "git diff -- --output=x; git diff --output=src/a.py",
    ],
)
def test_a_file_an_allowed_git_diff_writes_is_judged_as_a_write(root: str, command: str) -> None:
    policy = make_policy(root, "custom", allowed_commands=("git diff", "git log"))
    outcome = policy.assess(run(command))
    assert isinstance(outcome, Question), outcome


@pytest.mark.parametrize(
    "command",
    ["git diff --output=.git/commondir", "git archive -o .git/config HEAD", "sort -o.git/gitdir x"],
)
def test_writing_gits_files_through_an_option_asks_even_in_auto(root: str, command: str) -> None:
    outcome = make_policy(root, "auto", allowed_commands=("git", "sort")).assess(run(command))
    assert isinstance(outcome, Question), outcome
    assert outcome.person_only
    assert ".git" in outcome.headless_reason


def test_an_allowed_git_diff_without_output_still_runs_unasked(root: str) -> None:
    policy = make_policy(root, "custom", allowed_commands=("git diff",))
    assert policy.assess(run("git diff --stat -- src")) == Decision(
        True, "allowed by allowedCommands entry 'git diff'"
    )


def test_a_program_named_by_a_path_counts_before_it_exists(root: str) -> None:
    hooks = (
        HookGroup(
            event="Stop",
            hooks=(
                HookCommand(command="FOO=1 ./hooks/missing.sh --out=build/out.json"),
                HookCommand(command="true && bash -x scripts/new.sh later.sh"),
                HookCommand(command="ruff check --output-file=report.json src/"),
            ),
        ),
    )
    found = files_that_run(root, os.path.dirname(root), hooks, ())
    assert sorted(os.path.relpath(path, root) for path in found) == [
        "hooks/missing.sh",
        "scripts/new.sh",
    ]
    policy = Policy(
        ProjectContext(
            project_root=root,
            config=GlobalConfig(),
            settings=ProjectSettings(),
            model="claude-sonnet-4-6",
            permission_mode="auto",
            hooks=hooks,
        )
    )
    created = policy.assess(
        PermissionRequest(tool="Write", kind="create", paths=("hooks/missing.sh",))
    )
    assert isinstance(created, Question) and created.person_only
    elsewhere = policy.assess(PermissionRequest(tool="Write", kind="create", paths=("later.sh",)))
    assert isinstance(elsewhere, Decision) and elsewhere.allowed


def test_an_allowed_paths_entry_naming_the_file_lets_it_be_edited(root: str) -> None:
    hooks = (HookGroup(event="PostToolUse", hooks=(HookCommand(command=HOOK),)),)

    def policy(*allowed: str) -> Policy:
        return Policy(
            ProjectContext(
                project_root=root,
                config=GlobalConfig(),
                settings=ProjectSettings(allowed_paths=allowed),
                model="claude-sonnet-4-6",
                permission_mode="auto",
                hooks=hooks,
            )
        )

    named = policy("scripts/fmt.sh").assess(write("scripts/fmt.sh"))
    assert isinstance(named, Decision) and named.allowed
    everything = policy("**").assess(write("scripts/fmt.sh"))
    assert isinstance(everything, Question) and everything.person_only


def test_what_gits_config_names_in_the_working_tree_asks(root: str) -> None:
    os.makedirs(os.path.join(root, ".githooks"))
    with open(os.path.join(root, ".git", "config"), "w") as config:
        config.write('[core]\n\thooksPath = .githooks\n[include]\n\tpath = "../local.cfg"\n')
    policy = make_policy(root, "auto")
    for path in (".githooks/pre-commit", "local.cfg"):
        outcome = policy.assess(write(path))
        assert isinstance(outcome, Question) and outcome.person_only, path
        assert "where git finds programs to run" in outcome.headless_reason


def test_the_config_a_git_hook_names_asks(root: str) -> None:
    os.makedirs(os.path.join(root, ".git", "hooks"))
    with open(os.path.join(root, ".git", "hooks", "pre-commit"), "w") as hook:
        hook.write("#!/bin/sh\nexec pre-commit hook-impl --config=.pre-commit-config.yaml\n")
    with open(os.path.join(root, ".pre-commit-config.yaml"), "w") as config:
        config.write("repos: []\n")
    outcome = make_policy(root, "auto").assess(write(".pre-commit-config.yaml"))
    assert isinstance(outcome, Question) and outcome.person_only
    assert "a file that git's pre-commit hook runs outside the sandbox" in outcome.headless_reason


def test_a_git_hook_that_is_a_fifo_or_a_link_into_proc_is_passed_over(
    root: str, tmp_path: Path
) -> None:
    # A repository's committed hooks folder (husky's) is read at start, before any question:
    # a FIFO or a kernel file could block the start for ever, so neither is opened. A hook
    # linked to a script elsewhere is read where it leads, as git runs it there.
    hooks = os.path.join(root, ".husky")
    os.makedirs(hooks)
    os.mkfifo(os.path.join(hooks, "pre-commit"))
    os.symlink("/proc/self/environ", os.path.join(hooks, "pre-push"))
    elsewhere = tmp_path / "shared-hook"
    elsewhere.write_text("#!/bin/sh\nnpx commitlint --config=commitlint.cfg\n")
    os.symlink(elsewhere, os.path.join(hooks, "commit-msg"))
    with open(os.path.join(root, "commitlint.cfg"), "w") as config:
        config.write("{}\n")
    named = files_git_hooks_name(root, "/nonexistent", [hooks])
    assert list(named) == [os.path.join(root, "commitlint.cfg")]


@pytest.mark.parametrize(
    ("command", "asks"),
    [
        ("./scripts/fmt.sh --all", False),
        ("bash scripts/fmt.sh", False),
        ("bash -x scripts/fmt.sh", True),  # past an option, a word may be the option's value
        ("python3 tools/server.py --check", False),
        ("cat scripts/fmt.sh", True),
        ("sed -i s/a/b/ scripts/fmt.sh", True),
        ("bash scripts/fmt.sh > tools/server.py", True),
    ],
)
def test_running_the_script_is_not_changing_it(root: str, command: str, asks: bool) -> None:
    policy = make_policy(
        root, "custom", allowed_commands=("bash", "python3", "cat", "sed", "./scripts/fmt.sh")
    )
    outcome = policy.assess(run(command))
    assert isinstance(outcome, Question) == asks, outcome


def test_a_pattern_in_a_hook_counts_each_file_it_matches(tmp_path: Path) -> None:
    # The project's own folder name holds a pattern's characters: it is a name, not a pattern.
    project = tmp_path / "pro[j]ect"
    for name in ("scripts/fmt.sh", "scripts/lint.sh", "scripts/notes.txt", "src/a.py"):
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text("x\n")
    root = os.path.realpath(project)
    lines = (
        "sh scripts/*.sh",
        'bash "$CLAUDE_PROJECT_DIR"/src/[a].py',
        "cat /etc/*.conf /*/*/*",  # patterns outside the project are not expanded
    )
    hooks = (HookGroup(event="Stop", hooks=tuple(HookCommand(command=line) for line in lines)),)
    found = files_that_run(root, os.path.dirname(root), hooks, ())
    assert sorted(os.path.relpath(path, root) for path in found) == [
        "scripts/fmt.sh",
        "scripts/lint.sh",
        "src/a.py",
    ]


def test_the_line_a_shell_is_given_with_c_is_read_as_a_line(root: str) -> None:
    lines = (
        'sh -c "./scripts/fmt.sh --all"',
        'bash -c \'cd src && python3 -c "print(1)"; sh -c "python3 tools/server.py"\'',
    )
    hooks = (HookGroup(event="Stop", hooks=tuple(HookCommand(command=line) for line in lines)),)
    found = files_that_run(root, os.path.dirname(root), hooks, ())
    assert sorted(os.path.relpath(path, root) for path in found) == [
        "scripts/fmt.sh",
        "tools/server.py",
    ]


def test_lines_within_lines_are_read_too(root: str) -> None:
    line = "./scripts/fmt.sh"
    for _ in range(8):
        line = shlex.join(["sh", "-c", line])
    hooks = (HookGroup(event="Stop", hooks=(HookCommand(command=line),)),)
    found = files_that_run(root, os.path.dirname(root), hooks, ())
    assert [os.path.relpath(path, root) for path in found] == ["scripts/fmt.sh"]


def test_a_module_named_against_its_option_counts(root: str) -> None:
    hooks = (HookGroup(event="Stop", hooks=(HookCommand(command="python3 -mtools.server"),)),)
    found = files_that_run(root, os.path.dirname(root), hooks, ())
    assert [os.path.relpath(path, root) for path in found] == ["tools/server.py"]
