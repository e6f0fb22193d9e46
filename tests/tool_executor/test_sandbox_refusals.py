"""A command the sandbox refused says which path and why, and how to leave the sandbox: real
commands under bubblewrap through the real executor, broker and memory store. A failure the
sandbox is not the reason for (a program's own "Permission denied", a printed line about a
writable path) gets no such line."""

from __future__ import annotations

import tempfile
import uuid
from typing import TYPE_CHECKING, Any

import anyio
import pytest

from actors.tool_executor.sandbox.refusals import REMEDY
from tests.tool_executor.harness import with_policy
from tests.tool_executor.sandbox_setup import needs_bwrap

if TYPE_CHECKING:
    from pathlib import Path

    from tests.tool_executor.harness import PolicySession

pytestmark = needs_bwrap

YES = ["y"] * 20
OUTSIDE = (
    "it is outside the places commands may write (the project, $TMPDIR and the folders in "
    "sandbox.allowWrite)"
)


def refused(content: str) -> list[str]:
    """The lines the sandbox's explanation added to a result."""
    return [line for line in content.splitlines() if line.startswith("The sandbox refused")]


async def run(s: PolicySession, command: str, **fields: Any) -> str:
    done = await s.one("Bash", command=command, **fields)
    assert done.result.is_error and not done.result.denied, done.result.content
    return done.result.content


def project_in(tmp_path: Path) -> tuple[Path, Path]:
    project = tmp_path / "project"
    project.mkdir()
    return project, tmp_path / "project-home"  # the home with_policy gives the memory store


async def test_writes_outside_the_writable_places_are_named(tmp_path: Path) -> None:
    project, home = project_in(tmp_path)
    in_tmp = f"{tempfile.gettempdir()}/legato-refusal-{uuid.uuid4().hex}"
    async with with_policy(project, answers=YES) as s:
        touched = await run(s, f"touch {in_tmp}")
        redirected = await run(s, f"echo 'export X=1' >> {home}/.bashrc")
        beside = await run(s, "python3 -c \"open('../beside.txt', 'w')\"")
    assert refused(touched) == [f"The sandbox refused '{in_tmp}': {OUTSIDE}."]
    assert touched.endswith(f"Exit code 1\n{refused(touched)[0]}\n{REMEDY}")
    assert refused(redirected) == [f"The sandbox refused '{home}/.bashrc': {OUTSIDE}."]
    assert refused(beside) == [f"The sandbox refused '{tmp_path}/beside.txt': {OUTSIDE}."]
    assert REMEDY in redirected and REMEDY in beside


async def test_legato_and_git_settings_and_read_only_entries_are_named(tmp_path: Path) -> None:
    await anyio.run_process(["git", "init", "-q", str(tmp_path)])
    (tmp_path / "Makefile").write_text("all:\n")
    async with with_policy(tmp_path, answers=YES, sandbox={"readOnly": ["Makefile"]}) as s:
        settings = await run(s, "echo '{}' > .legato/settings.json")
        skills = await run(s, "mkdir .legato/skills")
        config = await run(s, "git config core.fsmonitor 'touch /tmp/x'")
        hook = await run(s, "echo 'touch pwned' > .git/hooks/pre-commit")
        makefile = await run(s, "echo x >> Makefile")
    legato = ".legato/ is read-only to commands (Legato's own settings)"
    git = "read-only to commands (git runs the programs its config and hooks name)"
    assert refused(settings) == [f"The sandbox refused '.legato/settings.json': {legato}."]
    assert refused(skills) == [f"The sandbox refused '.legato/skills': {legato}."]
    assert refused(config) == [f"The sandbox refused '.git/config': it is {git}."]
    assert refused(hook) == [f"The sandbox refused '.git/hooks/pre-commit': .git/hooks/ is {git}."]
    assert refused(makefile) == [
        "The sandbox refused 'Makefile': it is read-only to commands (sandbox.readOnly)."
    ]


async def test_blocked_and_denied_reads_are_named(tmp_path: Path) -> None:
    project, home = project_in(tmp_path)
    (project / ".env").write_text("KEY=1\n")
    (project / "secrets").mkdir()
    (project / "secrets" / "key").write_text("k\n")
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_ed25519").write_text("k\n")
    async with with_policy(project, answers=YES, blockedPaths=[".env", "secrets/"]) as s:
        cat = await run(s, "cat .env")
        python = await run(s, "python3 -c \"print(open('.e' + 'nv').read())\"")
        folder = await run(s, "cat secrets/key")
        ssh = await run(s, f"cat {home}/.ssh/id_ed25519")
    blocked = "it is unreadable to commands (blockedPaths)"
    assert refused(cat) == [f"The sandbox refused '.env': {blocked}."]
    assert refused(python) == [f"The sandbox refused '.env': {blocked}."]
    assert refused(folder) == [
        "The sandbox refused 'secrets/key': secrets/ is unreadable to commands (blockedPaths)."
    ]
    assert refused(ssh) == [
        f"The sandbox refused '{home}/.ssh/id_ed25519': {home}/.ssh/ is unreadable to commands "
        "(sandbox.denyRead)."
    ]
    assert REMEDY in cat


@pytest.mark.parametrize(
    "command",
    [
        # A real "Permission denied" that is not the sandbox's: a script without its x bit
        # (refused to root too, unlike a file of mode 000).
        "./build.sh",
        # Lines that say what the sandbox would, about places it leaves writable.
        "echo \"touch: cannot touch 'notes.txt': Read-only file system\"; exit 1",
        'echo "bash: line 1: $TMPDIR/x: Read-only file system" >&2; exit 1',
        "echo \"PermissionError: [Errno 13] Permission denied: 'notes.txt'\"; exit 1",
        # A missing file outside any hidden folder.
        "cat no-such-file",
    ],
)
async def test_failures_the_sandbox_is_not_why_get_no_line(tmp_path: Path, command: str) -> None:
    (tmp_path / "build.sh").write_text("#!/bin/sh\necho built\n")
    (tmp_path / "build.sh").chmod(0o644)
    (tmp_path / "notes.txt").write_text("notes\n")
    async with with_policy(tmp_path, answers=YES) as s:
        content = await run(s, command)
    assert refused(content) == [] and REMEDY not in content, content


async def test_only_a_failed_confined_command_is_looked_at(tmp_path: Path) -> None:
    project, _ = project_in(tmp_path)
    fake = "echo \"touch: cannot touch '/etc/x': Read-only file system\""
    async with with_policy(project, answers=YES) as s:
        succeeded = await s.one("Bash", command=fake)
        confined = await run(s, f"{fake}; exit 1")
        escaped = await run(s, f"{fake}; exit 1", dangerouslyDisableSandbox=True)
    async with with_policy(project, answers=YES, sandbox={"enabled": False}) as s:
        off = await run(s, f"{fake}; exit 1")
    # The layout does keep /etc read-only, so a failed confined command gets the line, true
    # whatever printed it; a command that succeeded, or ran unconfined, gets none.
    assert refused(confined) == [f"The sandbox refused '/etc/x': {OUTSIDE}."]
    assert succeeded.result.content == "touch: cannot touch '/etc/x': Read-only file system"
    assert refused(escaped) == [] and refused(off) == []
