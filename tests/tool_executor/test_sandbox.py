"""Bash commands confined by bubblewrap, through the real executor, broker and memory store.

A person answers yes to every question here, so each command reaches the kernel: what these
tests show is what the sandbox stops when the static rules (or a person) let a command through.
"""

from __future__ import annotations

import subprocess
import tempfile
import uuid
from typing import TYPE_CHECKING, Any

import anyio
import pytest

from actors.protocol import DescribeSandbox, Notice
from actors.tool_executor.sandbox.session import REMEDY_LINUX
from tests.tool_executor.harness import Person, with_policy
from tests.tool_executor.sandbox_setup import needs_bwrap

if TYPE_CHECKING:
    from collections.abc import AsyncIterator
    from pathlib import Path

    from tests.tool_executor.harness import PolicySession

pytestmark = needs_bwrap

SECRET = "SECRET-7f3a"
YES = ["y"] * 50


def confined(root: Path, **settings: Any) -> Any:
    return with_policy(root, mode="ask", answers=YES, **settings)


async def run(s: PolicySession, command: str) -> tuple[str, bool]:
    done = await s.one("Bash", command=command)
    return done.result.content, done.result.is_error


def home_of(root: Path) -> Path:
    return root.parent / f"{root.name}-home"  # the home with_policy gives the memory store


async def test_a_blocked_file_cannot_be_read_by_cat_nor_python(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text(SECRET)
    (tmp_path / "src").mkdir()
    (tmp_path / "src" / ".env").write_text(SECRET)
    (tmp_path / "secrets").mkdir()
    (tmp_path / "secrets" / "key").write_text(SECRET)
    (tmp_path / "open.txt").write_text("readable")
    async with confined(tmp_path, blockedPaths=[".env", "secrets/"]) as s:
        cat, cat_failed = await run(s, "cat .env")
        # A path the rules cannot see: built inside the program.
        python, python_failed = await run(s, "python3 -c \"print(open('src/.e' + 'nv').read())\"")
        folder, _ = await run(s, "ls -A secrets; cat secrets/key")
        other, other_failed = await run(s, "cat open.txt")
    assert cat_failed and "Permission denied" in cat
    assert python_failed and "PermissionError" in python
    assert "No such file" in folder
    assert SECRET not in cat + python + folder
    assert (other, other_failed) == ("readable", False)
    assert (tmp_path / ".env").read_text() == SECRET  # hidden, not changed


async def test_writing_outside_the_project_fails(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    bashrc = home_of(project) / ".bashrc"
    beside = tmp_path / "beside.txt"
    in_tmp = anyio.Path(tempfile.gettempdir()) / f"legato-sandbox-test-{uuid.uuid4().hex}"
    async with confined(project) as s:
        for target in (bashrc, beside, in_tmp):
            output, failed = await run(s, f"echo x >> {target}")
            assert failed and "Read-only file system" in output, output
    assert not bashrc.exists() and not beside.exists() and not await in_tmp.exists()


async def test_the_project_and_a_private_tmpdir_are_writable(tmp_path: Path) -> None:
    async with confined(tmp_path) as s:
        made, failed = await run(s, "mkdir -p d/e && echo hi > d/e/f && cat d/e/f")
        tmp, tmp_failed = await run(
            s, 'echo "$TMPDIR"; echo t > "$TMPDIR/t" && cat "$TMPDIR/t"; stat -c %a "$TMPDIR"'
        )
        again, _ = await run(s, 'cat "$TMPDIR/t"')  # the same folder for the whole session
        tmpdir = anyio.Path(tmp.splitlines()[0])
        assert await tmpdir.is_dir()
    assert (made, failed) == ("hi", False)
    assert (tmp_path / "d" / "e" / "f").read_text() == "hi\n"
    assert not tmp_failed and tmp.splitlines()[1:] == ["t", "700"]
    assert tmpdir.parent == await anyio.Path(tempfile.gettempdir()).resolve()
    assert again == "t"
    assert not await tmpdir.exists()  # removed with the session


def git(root: Path, *args: str) -> str:
    return subprocess.run(
        ["git", *args], cwd=root, check=True, capture_output=True, text=True
    ).stdout


IDENTITY = "-c user.name=t -c user.email=t@example.com"


async def test_legato_and_git_settings_are_read_only(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    config = (tmp_path / ".git" / "config").read_text()
    hooks = tmp_path / ".git" / "hooks"
    for hook in hooks.iterdir():
        hook.unlink()
    async with confined(tmp_path, permissionMode="ask") as s:
        settings = (tmp_path / ".legato" / "settings.json").read_text()
        for command in (
            "echo '{}' > .legato/settings.json",
            "mkdir .legato/skills",
            "echo '[core] hooksPath=/x' >> .git/config",
            "git config core.fsmonitor 'touch /tmp/x'",
            "printf '#!/bin/sh\\ntouch pwned\\n' > .git/hooks/pre-commit",
        ):
            output, failed = await run(s, command)
            assert failed, (command, output)
    assert (tmp_path / ".legato" / "settings.json").read_text() == settings
    assert not (tmp_path / ".legato" / "skills").exists()
    assert (tmp_path / ".git" / "config").read_text() == config
    assert list(hooks.iterdir()) == []


async def test_missing_protected_places_cannot_be_created(tmp_path: Path) -> None:
    git(tmp_path, "init", "-q")
    (tmp_path / ".git" / "hooks").rename(tmp_path / "old-hooks")
    async with confined(tmp_path, sandbox={"readOnly": ["Makefile", "build/out/"]}) as s:
        (tmp_path / ".legato" / "settings.json").unlink()
        (tmp_path / ".legato").rmdir()
        for command in (
            "mkdir -p .legato && echo '{}' > .legato/settings.json",
            "mkdir -p .git/hooks && echo x > .git/hooks/pre-commit",
            "echo all: > Makefile",
            "mkdir -p build/out && touch build/out/x",
        ):
            output, failed = await run(s, command)
            assert failed, (command, output)
    assert not (tmp_path / ".legato" / "settings.json").exists()
    assert not (tmp_path / ".git" / "hooks" / "pre-commit").exists()
    assert not (tmp_path / "build" / "out" / "x").exists()
    assert (tmp_path / "Makefile").read_text() == ""  # the empty file mounted over


async def test_git_works_inside_the_sandbox(tmp_path: Path) -> None:
    (tmp_path / ".env").write_text(SECRET)
    (tmp_path / ".gitignore").write_text(".env\n")
    (tmp_path / "a.txt").write_text("one\n")
    async with confined(tmp_path, blockedPaths=[".env"]) as s:
        made, failed = await run(
            s,
            f"git init -q && git add -A && git {IDENTITY} commit -qm first && "
            f"git checkout -q -b other && echo two >> a.txt && "
            f"git {IDENTITY} commit -qam second && git checkout -q - && "
            "git log --oneline --all | wc -l && cat a.txt",
        )
    assert (made, failed) == ("2\none", False)
    assert git(tmp_path, "log", "--format=%s", "other") == "second\nfirst\n"
    assert "first" in git(tmp_path, "log", "--format=%s")


@pytest.mark.parametrize("network", [True, False])
async def test_network_false_leaves_commands_no_network(
    tmp_path: Path, loopback: int, network: bool
) -> None:
    connect = (
        f"python3 -c \"import socket; socket.create_connection(('127.0.0.1', {loopback}), 2); "
        "print('connected')\""
    )
    async with confined(tmp_path, sandbox={"network": network}) as s:
        output, failed = await run(s, connect)
    if network:
        assert (output, failed) == ("connected", False)
    else:
        assert failed and "ConnectionRefusedError" in output


async def test_allow_write_and_deny_read_are_applied(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    home = home_of(project)
    (home / "cache").mkdir(parents=True)
    (home / "creds").mkdir()
    (home / "creds" / "key").write_text(SECRET)
    (home / ".ssh").mkdir()
    (home / ".ssh" / "id").write_text(SECRET)
    settings = {"allowWrite": ["~/cache"], "denyRead": ["~/creds"]}
    async with confined(project, sandbox=settings) as s:
        _, wrote_failed = await run(s, f"echo c > {home}/cache/c")
        creds, _ = await run(s, f"ls -A {home}/creds; cat {home}/creds/key")
        ssh, ssh_failed = await run(s, f"cat {home}/.ssh/id")  # the default list still holds
    assert not wrote_failed and (home / "cache" / "c").read_text() == "c\n"
    assert SECRET not in creds and "No such file" in creds
    assert ssh_failed and SECRET not in ssh


async def test_default_credential_folders_are_unreadable(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    home = home_of(project)
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text(SECRET)
    (home / ".netrc").write_text(SECRET)
    async with confined(project) as s:
        output, failed = await run(s, f"cat {home}/.ssh/id_ed25519 {home}/.netrc")
        report = await s.executor.address.ask(DescribeSandbox())
    assert failed and SECRET not in output
    assert report.active and "~/.ssh" in " ".join(report.enforces)


@pytest.mark.parametrize("kind", ["missing", "failing"])
@pytest.mark.usefixtures("no_landlock")
async def test_without_a_working_bwrap_nor_landlock_commands_run_unconfined_and_say_so_once(
    tmp_path: Path, failing_bwrap: str, kind: str
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    bwrap = str(tmp_path / "no" / "bwrap") if kind == "missing" else failing_bwrap
    outside = tmp_path / "outside.txt"
    ui = Person([])
    async with with_policy(project, answers=YES, bwrap=bwrap, ui=ui) as s:
        first, failed = await run(s, f"echo x > {outside} && echo wrote")
        second, _ = await run(s, "echo again")
        report = await s.executor.address.ask(DescribeSandbox())
    assert (first, failed, second) == ("wrote", False, "again")
    assert outside.exists()  # unconfined: as commands ran before the sandbox
    notices = [event for event in ui.shown if isinstance(event, Notice)]
    assert len(notices) == 1
    assert notices[0].level == "warning"
    assert notices[0].text.startswith("Bash commands run unconfined: they can write outside")
    assert bwrap in notices[0].text
    assert "the fallback, Landlock, is not in this kernel, or is turned off" in notices[0].text
    assert notices[0].text.endswith(REMEDY_LINUX)
    assert not report.active
    assert report.why_not is not None and bwrap in report.why_not


async def test_enabled_false_turns_it_off_without_a_warning(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    outside = tmp_path / "outside.txt"
    ui = Person([])
    async with with_policy(project, answers=YES, ui=ui, sandbox={"enabled": False}) as s:
        output, failed = await run(s, f"echo x > {outside} && echo wrote")
        report = await s.executor.address.ask(DescribeSandbox())
    assert (output, failed) == ("wrote", False)
    assert outside.exists()
    assert [event for event in ui.shown if isinstance(event, Notice)] == []
    assert not report.active
    assert report.why_not == "sandbox.enabled is false in .legato/settings.json"


@pytest.fixture
async def many(tmp_path: Path) -> AsyncIterator[PolicySession]:
    async with confined(tmp_path) as s:
        yield s


async def test_commands_started_together_share_one_trial_and_one_tmpdir(
    many: PolicySession,
) -> None:
    results: list[str] = []

    async def one() -> None:
        output, _ = await run(many, 'echo "$TMPDIR"')
        results.append(output)

    async with anyio.create_task_group() as tasks:
        for _ in range(6):
            tasks.start_soon(one)
    assert len(set(results)) == 1 and results[0].startswith("/")
