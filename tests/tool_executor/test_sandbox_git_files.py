"""git's files, and the files hooks and MCP servers run, against confined commands (real bwrap,
real git, the real executor, broker and memory store).

A person answers yes to every question, so each command reaches the kernel. The attack each
time: make the user's next ``git status`` (outside the sandbox) run a program, by pointing git
at a config of the command's own (``commondir``, a swapped ``.git``) or by changing a file that
a hook or a server runs with the user's full rights.
"""

from __future__ import annotations

import json
import os
import subprocess
from typing import TYPE_CHECKING

import pytest

from actors.protocol import SandboxSettings
from actors.tool_executor.sandbox.places import Skipped, layout
from tests.tool_executor.git_helpers import IDENTITY, YES, git, run
from tests.tool_executor.harness import with_policy
from tests.tool_executor.sandbox_setup import needs_bwrap

if TYPE_CHECKING:
    from pathlib import Path


pytestmark = needs_bwrap


def repository(root: Path) -> str:
    """A repository with one commit in ``root``; its real path."""
    (root / "a.txt").write_text("one\n")
    git(root, "init", "-q")
    git(root, *IDENTITY.split(), "commit", "-q", "--allow-empty", "-m", "first")
    return os.path.realpath(root)


def planted(root: Path) -> str:
    """A shell line that copies the repository to ``evil/`` in the project, with a config that
    runs a program leaving ``marker`` beside the project, and sets E to it."""
    marker = root.parent / f"{root.name}-marker"
    config = f'[core]\\n\\trepositoryformatversion = 0\\n\\tfsmonitor = "touch {marker}; false"\\n'
    copy = 'E="$PWD/evil"; mkdir -p "$E" && cp -r .git/. "$E"/'
    return f"{copy} && printf '{config}' > \"$E/config\""


def ran_planted(root: Path) -> bool:
    marker = root.parent / f"{root.name}-marker"
    subprocess.run(["git", "status"], cwd=root, capture_output=True, check=False)
    return marker.exists()


ATTACKS = [
    # Point git at another repository's folder: its config runs core.fsmonitor.
    'echo "$E" > .git/commondir',
    # A per-worktree config that git reads once extensions.worktreeConfig is on.
    'echo "[core] fsmonitor = touch x" > .git/config.worktree',
    "echo '* filter=x' > .git/info/attributes",
    # Swap .git for a copy whose config runs a program.
    'mv .git old && cp -r "$E" .git',
    'rm -rf .git && cp -r "$E" .git',
    'mv .git old; mkdir .git; echo "gitdir: $E" > .git',
]


@pytest.mark.parametrize("attack", ATTACKS)
async def test_a_command_cannot_point_git_at_a_config_of_its_own(
    tmp_path: Path, attack: str
) -> None:
    root = tmp_path / "p"
    root.mkdir()
    repository(root)
    attributes = (root / ".git" / "info" / "exclude").read_text()
    async with with_policy(root, answers=YES) as s:
        output, failed = await run(s, f"{planted(root)}; {attack}")
    assert failed, output
    if attack.startswith("mv .git"):
        assert "The sandbox refused '.git': commands cannot move, remove or replace it" in output
    assert (root / ".git").is_dir()
    assert not (root / ".git" / "commondir").exists()  # nor left behind by the session
    # What keeps it from being created stays behind, empty: git reads it as no settings.
    assert (root / ".git" / "config.worktree").read_text() == ""
    assert not (root / ".git" / "info" / "attributes").exists()
    assert (root / ".git" / "info" / "exclude").read_text() == attributes
    assert not ran_planted(root)


async def test_git_add_commit_checkout_and_stash_work_in_a_repository_that_was_there(
    tmp_path: Path,
) -> None:
    real = repository(tmp_path)
    async with with_policy(tmp_path, answers=YES) as s:
        done, failed = await run(
            s,
            f"echo two >> a.txt && git add a.txt && git {IDENTITY} commit -qm second && "
            f"git checkout -q -b other && echo three >> a.txt && git {IDENTITY} stash -q && "
            "git stash list | wc -l && git checkout -q - && git status --short a.txt && "
            "git rev-parse --git-common-dir",
        )
        # Outside, while the session lasts, git works too: the commondir written says '.'.
        outside = git(tmp_path, "log", "--format=%s")
    # Absolute, where git alone would say '.git': the one difference the written one makes.
    assert (done, failed) == (f"1\n{real}/.git", False), done
    assert outside == "second\nfirst\n"
    assert git(tmp_path, "branch", "--format=%(refname:short)").split() == ["master", "other"]
    assert not (tmp_path / ".git" / "commondir").exists()


async def test_a_submodules_repository_is_kept_like_the_main_one(tmp_path: Path) -> None:
    repository(tmp_path)
    module = tmp_path / ".git" / "modules" / "lib"
    module.mkdir(parents=True)
    git(module, "init", "-q", "--bare")
    config = (module / "config").read_text()
    async with with_policy(tmp_path, answers=YES) as s:
        for command in (
            "echo '[core] fsmonitor = touch x' >> .git/modules/lib/config",
            "echo x > .git/modules/lib/hooks/pre-commit",
            "echo /tmp > .git/modules/lib/commondir",
            "mv .git/modules/lib .git/modules/old",
            "mv .git/modules .git/old",
        ):
            output, failed = await run(s, command)
            assert failed, (command, output)
    assert (module / "config").read_text() == config
    assert not (module / "commondir").exists()
    assert not (module / "hooks" / "pre-commit").exists()


@pytest.mark.parametrize("nested", ["modules", "worktrees"])
async def test_a_link_in_place_of_the_nested_repositories_folder_leads_nowhere(
    tmp_path: Path, nested: str
) -> None:
    """``.git/modules`` made a link to the home folder: the repositories there are not the
    project's. Before, every later command failed (bubblewrap cannot mount over the link),
    the home was searched before each one, and a ``commondir`` was written in each."""
    root = tmp_path / "p"
    root.mkdir()
    repository(root)
    home = tmp_path / "p-home"
    (home / "code" / "r").mkdir(parents=True)
    git(home / "code" / "r", "init", "-q")
    async with with_policy(root, answers=YES) as s:
        linked, link_failed = await run(s, f"ln -s {home} .git/{nested}")
        after, after_failed = await run(s, "echo still here")
    assert not link_failed, linked
    assert (after, after_failed) == ("still here", False)
    assert not (home / "code" / "r" / ".git" / "commondir").exists()


async def test_a_file_a_hook_or_an_mcp_server_runs_is_read_only_to_commands(
    tmp_path: Path,
) -> None:
    (tmp_path / "fmt.sh").write_text("#!/bin/sh\nexit 0\n")
    (tmp_path / "tools").mkdir()
    (tmp_path / "tools" / "server.py").write_text("print('serving')\n")
    (tmp_path / ".mcp.json").write_text(
        json.dumps({"mcpServers": {"tools": {"command": "python3", "args": ["tools/server.py"]}}})
    )
    hooks = {
        "PostToolUse": [
            {"matcher": "Write", "hooks": [{"type": "command", "command": "./fmt.sh --all"}]}
        ],
        # Not there yet: creating it is enough to have the hook run it.
        "Stop": [{"hooks": [{"type": "command", "command": "bash scripts/done.sh"}]}],
    }
    async with with_policy(tmp_path, answers=YES, hooks=hooks) as s:
        for command in (
            "echo 'touch pwned' >> fmt.sh",
            "echo 'import os' > tools/server.py",
            "echo '{}' > .mcp.json",
            "cp /dev/null fmt.sh",
            "mkdir -p scripts && echo 'touch pwned' > scripts/done.sh",
            # Carry the read-only file away with its folder, and put another in its place.
            "mv tools t && mkdir tools && echo 'import os' > tools/server.py",
        ):
            output, failed = await run(s, command)
            assert failed, (command, output)
        explained, _ = await run(s, "echo x >> fmt.sh")
        mcp, _ = await run(s, "echo x >> .mcp.json")
        other, other_failed = await run(s, "echo x > other.sh && cat other.sh")
    assert "The sandbox refused 'fmt.sh': it is read-only to commands (a hook or an MCP " in (
        explained
    )
    assert "'.mcp.json': it is read-only to commands (the project's MCP servers, " in mcp
    assert (other, other_failed) == ("x", False)
    assert (tmp_path / "fmt.sh").read_text() == "#!/bin/sh\nexit 0\n"
    # What kept it from being created stays, empty (an empty folder, then an empty file).
    assert (tmp_path / "scripts" / "done.sh").read_text() == ""
    assert (tmp_path / "tools" / "server.py").read_text() == "print('serving')\n"
    assert "tools" in (tmp_path / ".mcp.json").read_text()


async def test_what_a_hooks_task_runner_reads_its_tasks_from_is_read_only(
    tmp_path: Path,
) -> None:
    """A hook that runs ``npm run fmt`` or ``make fmt`` runs what ``package.json`` or the
    Makefile says, with the user's rights: a command that rewrote the task would run it."""
    package = json.dumps({"scripts": {"fmt": "prettier -w ."}})
    (tmp_path / "package.json").write_text(package)
    (tmp_path / "Makefile").write_text("fmt:\n\ttrue\n")
    (tmp_path / ".npmrc").write_text("fund=false\n")
    hooks = {
        "PostToolUse": [
            {"hooks": [{"type": "command", "command": "npm run fmt"}]},
            {"hooks": [{"type": "command", "command": "FMT=1 make -s fmt"}]},
        ]
    }
    async with with_policy(tmp_path, answers=YES, hooks=hooks) as s:
        for command in (
            """sed -i 's/prettier -w ./touch pwned/' package.json""",
            "printf 'fmt:\\n\\ttouch pwned\\n' > Makefile",
            "echo 'script-shell=./evil.sh' >> .npmrc",  # npm runs scripts with this shell
        ):
            output, failed = await run(s, command)
            assert failed, (command, output)
        said, _ = await run(s, "echo '{}' > package.json")
        other, other_failed = await run(s, "echo x > notes.txt && cat notes.txt")
    assert (
        "The sandbox refused 'package.json': it is read-only to commands (a hook or an MCP "
        "server runs it, or runs what it says, outside the sandbox)" in said
    ), said
    assert (other, other_failed) == ("x", False)
    assert (tmp_path / "package.json").read_text() == package
    assert (tmp_path / "Makefile").read_text() == "fmt:\n\ttrue\n"
    assert (tmp_path / ".npmrc").read_text() == "fund=false\n"


async def test_where_every_project_server_is_trusted_mcp_json_cannot_be_created(
    tmp_path: Path,
) -> None:
    root = tmp_path / "p"
    root.mkdir()
    config = tmp_path / "p-home" / ".config" / "legato" / "config.json"
    config.parent.mkdir(parents=True)
    config.write_text(json.dumps({"enableAllProjectMcpServers": True}))
    evil = {"mcpServers": {"evil": {"command": "sh", "args": ["-c", "touch pwned"]}}}
    async with with_policy(root, answers=YES) as s:
        output, failed = await run(s, f"echo '{json.dumps(evil)}' > .mcp.json")
    assert failed, output
    # The empty file that kept it from being created holds no servers for the next session.
    assert (root / ".mcp.json").read_text() == ""
    async with with_policy(root, answers=YES) as s:
        listed, _ = await run(s, "true")
    assert listed == "(no output)"


async def test_what_gits_config_names_outside_git_is_read_only(tmp_path: Path) -> None:
    root = tmp_path / "p"
    root.mkdir()
    repository(root)
    # A shared hooks folder in the working tree, husky's layout, and a local config to include.
    for name in ("pre-commit", "_/pre-commit"):
        (root / ".husky" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / ".husky" / name).write_text("#!/bin/sh\nexit 0\n")
    git(root, "config", "core.hooksPath", ".husky/_")
    git(root, "config", "include.path", "../.gitconfig.local")
    marker = tmp_path / "p-marker"
    async with with_policy(root, answers=YES) as s:
        for command in (
            f"printf '[core]\\n\\tfsmonitor = \"touch {marker}; false\"\\n' > .gitconfig.local",
            "echo 'touch pwned' >> .husky/pre-commit",
            "echo 'touch pwned' >> .husky/_/pre-commit",
            "mv .husky h && mkdir -p .husky/_",
        ):
            output, failed = await run(s, command)
            assert failed, (command, output)
    assert (root / ".gitconfig.local").read_text() == ""  # kept from being created: empty
    assert (root / ".husky" / "pre-commit").read_text() == "#!/bin/sh\nexit 0\n"
    assert not ran_planted(root)


async def test_what_gits_config_names_inside_git_is_read_only_too(tmp_path: Path) -> None:
    """A hooks folder and an included config kept in ``.git`` under names of their own are no
    less git's than ``hooks/`` and ``config``."""
    root = tmp_path / "p"
    root.mkdir()
    repository(root)
    hooks = root / ".git" / "shared-hooks"
    hooks.mkdir()
    (hooks / "pre-commit").write_text("#!/bin/sh\nexit 0\n")
    git(root, "config", "core.hooksPath", ".git/shared-hooks")
    git(root, "config", "include.path", "local.cfg")  # beside the config: .git/local.cfg
    marker = tmp_path / "p-marker"
    async with with_policy(root, answers=YES) as s:
        for command in (
            f"printf '[core]\\n\\tfsmonitor = \"touch {marker}; false\"\\n' > .git/local.cfg",
            "echo 'touch pwned' >> .git/shared-hooks/pre-commit",
            "echo 'touch pwned' > .git/shared-hooks/post-checkout",
            "mv .git/shared-hooks .git/h && mkdir .git/shared-hooks",
        ):
            output, failed = await run(s, command)
            assert failed, (command, output)
    assert (root / ".git" / "local.cfg").read_text() == ""  # kept from being created: empty
    assert (hooks / "pre-commit").read_text() == "#!/bin/sh\nexit 0\n"
    assert not (hooks / "post-checkout").exists()
    assert not ran_planted(root)


PRE_COMMIT_HOOK = """#!/usr/bin/env bash
# File generated by pre-commit: https://pre-commit.com
INSTALL_PYTHON=/usr/bin/python3
ARGS=(hook-impl --config=.pre-commit-config.yaml --hook-type=pre-commit)
HERE="$(cd "$(dirname "$0")" && pwd)"
exec "$INSTALL_PYTHON" -mpre_commit "${ARGS[@]}"
"""


async def test_the_config_a_git_hook_names_is_read_only(tmp_path: Path) -> None:
    repository(tmp_path)
    hook = tmp_path / ".git" / "hooks" / "pre-commit"
    hook.write_text(PRE_COMMIT_HOOK)
    config = "repos: []\n"
    (tmp_path / ".pre-commit-config.yaml").write_text(config)
    local = "- repo: local\n  hooks: [{id: x, name: x, entry: touch pwned, language: system}]\n"
    async with with_policy(tmp_path, answers=YES) as s:
        output, failed = await run(s, f"printf '{local}' >> .pre-commit-config.yaml")
        listed, _ = await run(s, "ls -A . .git/hooks")
    assert failed, output
    assert (tmp_path / ".pre-commit-config.yaml").read_text() == config
    # No folder nor file left behind for words of the script that are not files.
    assert "$" not in listed and "(" not in listed, listed


def test_a_git_folder_that_is_a_symlink_is_reported_and_the_layout_is_exact(
    tmp_path: Path,
) -> None:
    project, elsewhere = tmp_path / "project", tmp_path / "elsewhere"
    project.mkdir()
    repository(project)
    (project / ".git").rename(elsewhere)
    (project / ".git").symlink_to(elsewhere)
    skipped = Skipped()
    real = os.path.realpath(project)
    linked = layout(
        SandboxSettings(deny_read=()),
        project=real,
        home=str(tmp_path),
        tmpdir="/t",
        skipped=skipped,
    )
    assert linked.fixed == () and ".git is a symlink" in skipped.notes[0]
    (project / ".git").unlink()
    elsewhere.rename(project / ".git")
    (project / "sub").mkdir()
    plan = layout(
        SandboxSettings(deny_read=()),
        project=real,
        home=str(tmp_path),
        tmpdir="/t",
        runs=(f"{real}/sub/run.sh",),
    )
    git_dir = f"{real}/.git"
    assert plan.fixed == (git_dir, f"{real}/sub")
    assert set(plan.read_only) >= {f"{git_dir}/config", f"{git_dir}/hooks", f"{git_dir}/info"}
    assert set(plan.sealed) >= {
        (f"{git_dir}/commondir", False),
        (f"{git_dir}/config.worktree", False),
        (f"{real}/sub/run.sh", False),
    }
