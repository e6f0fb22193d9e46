"""`legato permissions allow|ask|deny|remove RULE [--local|--project|--user]` through the real
command: the rule lands in the file of that level with its other keys kept, the personal file
is git-ignored the first time, and writing never trusts a project."""

from __future__ import annotations

import json
import os
import subprocess
from typing import TYPE_CHECKING, Any

import pytest

from tests.trusting import trust_project

if TYPE_CHECKING:
    from pathlib import Path

    from tests.config.conftest import Setup


def run(setup: Setup, *args: str) -> subprocess.CompletedProcess[str]:
    return setup.legato("permissions", "--project", str(setup.project), *args)


def read(path: Path) -> Any:
    return json.loads(path.read_text())


def git(folder: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=folder, capture_output=True, text=True, check=True)
    return done.stdout


def test_each_level_gets_its_own_file_and_keeps_its_other_keys(setup: Setup) -> None:
    setup.settings({"blockedCommands": ["rm"]}, trust=False)
    setup.config({"theme": "light"})
    for flag, rule in (
        ("--local", "Read(./a)"),
        ("--project", "Read(./b)"),
        ("--user", "WebFetch"),
    ):
        done = run(setup, "deny", rule, flag)
        assert done.returncode == 0, done.stderr
    local = setup.project / ".legato" / "settings.local.json"
    assert read(local) == {"permissions": {"deny": ["Read(./a)"]}}
    assert read(setup.settings_file) == {
        "blockedCommands": ["rm"],
        "permissions": {"deny": ["Read(./b)"]},
    }
    assert read(setup.config_file) == {"theme": "light", "permissions": {"deny": ["WebFetch"]}}
    assert os.stat(local).st_mode & 0o077 == 0
    listing = run(setup).stdout.splitlines()
    at = listing.index(f"  {os.path.realpath(local)}")
    assert listing[at + 1] == "    :4    deny   Read(./a)"


def test_a_rule_moves_between_lists_and_remove_takes_it_out(setup: Setup) -> None:
    local = setup.project / ".legato" / "settings.local.json"
    run(setup, "allow", "Bash(npm test:*)")
    run(setup, "deny", "Bash(npm test:*)")
    assert read(local)["permissions"] == {"allow": [], "deny": ["Bash(npm test:*)"]}
    done = run(setup, "remove", "Bash(npm test:*)")
    assert done.stdout.startswith("Removed 'Bash(npm test:*)' from")
    assert read(local)["permissions"] == {"allow": [], "deny": []}


@pytest.mark.parametrize("rule", ["", "Bash(npm", "Read(a)\nBash", "(x)", "Bäsh"])
def test_a_rule_that_is_not_one_exits_2_and_writes_nothing(setup: Setup, rule: str) -> None:
    done = run(setup, "allow", rule)
    assert done.returncode == 2
    assert "→" in done.stderr and "Traceback" not in done.stderr
    assert not (setup.project / ".legato").exists()


def test_the_personal_file_is_git_ignored_once(setup: Setup) -> None:
    git(setup.project, "init", "-q")
    run(setup, "allow", "Read(./a)")
    run(setup, "allow", "Read(./b)")
    exclude = setup.project / ".git" / "info" / "exclude"
    assert exclude.read_text().count("/.legato/settings.local.json") == 1
    assert git(setup.project, "status", "--porcelain", "--untracked-files=all") == ""


def test_a_worktree_and_a_subfolder_write_the_repositorys_exclude(
    setup: Setup, tmp_path: Path
) -> None:
    main = tmp_path / "main"
    main.mkdir()
    git(main, "init", "-q")
    git(
        main,
        "-c",
        "user.name=t",
        "-c",
        "user.email=t@t",
        "commit",
        "-q",
        "--allow-empty",
        "-m",
        "x",
    )
    tree = tmp_path / "tree"
    git(main, "worktree", "add", "-q", str(tree))
    (tree / "sub").mkdir()
    done = setup.legato("permissions", "--project", str(tree / "sub"), "allow", "Read(./a)")
    assert done.returncode == 0, done.stderr
    assert "/sub/.legato/settings.local.json" in (main / ".git" / "info" / "exclude").read_text()
    assert git(tree, "status", "--porcelain", "--untracked-files=all") == ""


def test_a_linked_exclude_is_never_written_through(setup: Setup, tmp_path: Path) -> None:
    git(setup.project, "init", "-q")
    outside = tmp_path / "outside.txt"
    outside.write_text("mine\n")
    exclude = setup.project / ".git" / "info" / "exclude"
    exclude.unlink()
    exclude.symlink_to(outside)
    assert run(setup, "allow", "Read(./a)").returncode == 0
    assert outside.read_text() == "mine\n"


def test_a_linked_legato_folder_is_not_written_through(setup: Setup, tmp_path: Path) -> None:
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (setup.project / ".legato").symlink_to(elsewhere)
    done = run(setup, "allow", "Read(./a)")
    assert done.returncode == 2
    assert list(elsewhere.iterdir()) == []


def test_writing_a_rule_never_trusts_an_untrusted_project(setup: Setup) -> None:
    (setup.project / ".claude").mkdir()
    (setup.project / ".claude" / "settings.json").write_text(
        json.dumps({"permissions": {"allow": ["Bash"]}})
    )
    done = run(setup, "allow", "Bash(make:*)")
    assert "It applies once you trust this project's settings" in done.stdout
    shown = setup.legato("trust", "--show", "--project", str(setup.project))
    assert "is not trusted" in shown.stdout


def test_a_trusted_project_stays_trusted_when_the_person_adds_a_rule(setup: Setup) -> None:
    setup.settings({"permissions": {"allow": ["Bash(make:*)"]}})  # trusted
    done = run(setup, "allow", "Bash(npm test:*)", "--project")
    assert done.returncode == 0, done.stderr
    assert "It applies once you trust" not in done.stdout
    shown = setup.legato("trust", "--show", "--project", str(setup.project))
    assert "is trusted" in shown.stdout


def test_a_project_that_widened_nothing_is_trusted_with_the_persons_rule_alone(
    setup: Setup,
) -> None:
    # Nothing of the repository's widens; the person's own rule is all there is to trust.
    (setup.project / ".claude").mkdir()
    (setup.project / ".claude" / "settings.json").write_text(
        json.dumps({"permissions": {"deny": ["Read(./.env)"]}})
    )
    done = run(setup, "allow", "Bash(npm test:*)")
    assert done.returncode == 0, done.stderr
    assert "It applies once you trust" not in done.stdout
    shown = setup.legato("trust", "--show", "--project", str(setup.project))
    assert "is trusted" in shown.stdout
    # Once the repository adds a widening entry of its own, that entry waits for trust again.
    (setup.project / ".claude" / "settings.json").write_text(
        json.dumps({"permissions": {"allow": ["Bash"], "deny": ["Read(./.env)"]}})
    )
    shown = setup.legato("trust", "--show", "--project", str(setup.project))
    assert "is not trusted" in shown.stdout


def test_a_git_file_naming_another_folder_gets_nothing_written_there(
    setup: Setup, tmp_path: Path
) -> None:
    target = tmp_path / "not-a-git-folder"
    target.mkdir()
    (setup.project / ".git").write_text(f"gitdir: {target}\n")
    assert run(setup, "allow", "Read(./a)").returncode == 0
    assert list(target.iterdir()) == []


def test_removing_a_rule_that_lives_in_the_references_file_says_where_it_is(
    setup: Setup,
) -> None:
    # A Claude Code user's rules are in .claude/, which this command does not write.
    claude = setup.project / ".claude" / "settings.json"
    claude.parent.mkdir()
    claude.write_text(
        '{"permissions": {\n  "deny": ["Read(./.env)"],\n  "allow": ["Bash(git diff *)"]\n}}\n'
    )
    local = setup.project / ".legato" / "settings.local.json"
    for rule, where in (("Read(./.env)", f"{claude}:2"), ("Bash(git diff *)", str(claude))):
        done = run(setup, "remove", rule)
        assert done.returncode == 0, done.stderr
        assert done.stdout.splitlines() == [
            f"'{rule}' is not in {local}",
            f"  It is in {where}, which 'legato permissions' does not write: take it out there",
        ]
    assert claude.read_text().count("Bash(git diff *)") == 1
    trust_project(setup.project, setup.home)  # now applied, so also listed with its line
    assert run(setup, "remove", "Bash(git diff *)").stdout.splitlines()[1:] == [
        f"  It is in {claude}:3, which 'legato permissions' does not write: take it out there"
    ]
    # One in Legato's own project file: the flag that reaches it.
    assert run(setup, "deny", "Bash(rm *)", "--project").returncode == 0
    assert run(setup, "remove", "Bash(rm *)").stdout.splitlines()[1] == (
        f"  It is in {setup.settings_file}:4: legato permissions remove 'Bash(rm *)' --project"
    )
