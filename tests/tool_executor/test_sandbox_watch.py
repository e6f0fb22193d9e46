"""Under Landlock, what bubblewrap keeps read-only inside the project is put back after each
command that changed it (real Landlock, real git, the real executor, broker and memory store;
a bwrap that fails makes the session fall back, and a person answers yes to every question)."""

from __future__ import annotations

import json
import os
import subprocess
from typing import TYPE_CHECKING

import pytest

from tests.tool_executor.git_helpers import IDENTITY, YES, git, run
from tests.tool_executor.harness import with_policy
from tests.tool_executor.sandbox_setup import needs_landlock

if TYPE_CHECKING:
    from pathlib import Path


pytestmark = needs_landlock


def repository(root: Path) -> str:
    (root / "fmt.sh").write_text("#!/bin/sh\nexit 0\n")
    git(root, "init", "-q")
    git(root, *IDENTITY.split(), "commit", "-q", "--allow-empty", "-m", "first")
    return os.path.realpath(root)


def planted(marker: Path) -> str:
    config = f'[core]\\n\\trepositoryformatversion = 0\\n\\tfsmonitor = "touch {marker}; false"\\n'
    return f"E=$PWD/evil; mkdir -p $E && cp -r .git/. $E/ && printf '{config}' > $E/config"


def ran_planted(root: Path, marker: Path) -> bool:
    """Whether the user's next ``git status`` runs what the command planted."""
    subprocess.run(["git", "status"], cwd=root, capture_output=True, check=False)
    return marker.exists()


@pytest.mark.parametrize(
    ("attack", "named"),
    [
        ('echo "$E" > .git/commondir', ".git/commondir"),
        ("printf '[core]\\n\\thooksPath = evil\\n' >> .git/config", ".git/config"),
        ("printf '#!/bin/sh\\ntouch x\\n' > .git/hooks/post-checkout", ".git/hooks"),
        ("rm -rf .git/hooks .git/info", ".git/hooks', '.git/info"),
        ("echo 'touch pwned' >> fmt.sh", "fmt.sh"),
        ("echo '{}' > .legato/settings.json", ".legato"),
    ],
)
async def test_what_a_command_changes_there_is_put_back_and_said(
    tmp_path: Path, failing_bwrap: str, attack: str, named: str
) -> None:
    root = tmp_path / "p"
    root.mkdir()
    repository(root)
    hooks = {"Stop": [{"hooks": [{"type": "command", "command": "./fmt.sh"}]}]}
    marker = tmp_path / "marker"
    with_hooks = with_policy(root, answers=YES, bwrap=failing_bwrap, hooks=hooks)
    async with with_hooks as s:
        before = {
            name: (root / name).read_bytes()
            for name in (".git/config", "fmt.sh", ".legato/settings.json", ".git/info/exclude")
        }
        hook_names = sorted(os.listdir(root / ".git" / "hooks"))
        output, _ = await run(s, f"{planted(marker)} && {attack}")
    assert f"Legato put back '{named}' as before the command" in output, output
    for name, content in before.items():
        assert (root / name).read_bytes() == content, name
    assert sorted(os.listdir(root / ".git" / "hooks")) == hook_names
    assert not (root / ".git" / "commondir").exists()
    assert not ran_planted(root, marker)
    assert json.loads((root / ".legato" / "settings.json").read_text()) == {"hooks": hooks}


async def test_commands_that_leave_them_alone_say_nothing_and_git_still_commits(
    tmp_path: Path, failing_bwrap: str
) -> None:
    repository(tmp_path)
    async with with_policy(tmp_path, answers=YES, bwrap=failing_bwrap) as s:
        output, failed = await run(
            s,
            f"echo two > a.txt && git add a.txt && git {IDENTITY} commit -qm second && "
            "git checkout -q -b other && git log --format=%s",
        )
    assert (output, failed) == ("second\nfirst", False)


async def test_a_background_command_is_put_back_when_it_ends(
    tmp_path: Path, failing_bwrap: str
) -> None:
    root = tmp_path / "p"
    root.mkdir()
    repository(root)
    marker = tmp_path / "marker"
    async with with_policy(root, answers=YES, bwrap=failing_bwrap) as s:
        started = await s.one(
            "Bash",
            command=f'{planted(marker)} && echo "$E" > .git/commondir',
            run_in_background=True,
        )
        assert "in the background with ID: bash_1" in started.result.content
        ended = await s.one("TaskOutput", task_id="bash_1")  # waits for its end
    assert "Legato put back '.git/commondir' as before the command" in ended.result.content
    assert not (root / ".git" / "commondir").exists()
    assert not ran_planted(root, marker)


def test_a_fifo_put_in_place_after_the_look_is_not_opened_to_wait_for_a_writer(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # A process that left the command's group can swap a watched file for a FIFO between the
    # look (lstat) and the read: reading it must not block the session for ever.
    import threading

    from actors.tool_executor.sandbox import watch

    regular = tmp_path / "regular"
    regular.write_bytes(b"x")
    fifo = tmp_path / "hook"
    os.mkfifo(fifo)
    looked = os.lstat(regular)
    real_lstat = os.lstat
    monkeypatch.setattr(
        os, "lstat", lambda path: looked if str(path) == str(fifo) else real_lstat(path)
    )
    kept: list[object] = []
    reader = threading.Thread(target=lambda: kept.append(watch.take([str(fifo)])), daemon=True)
    reader.start()
    reader.join(timeout=5)
    if reader.is_alive():
        with open(fifo, "wb"):  # let the blocked reader go, so the test process can end
            pass
        pytest.fail("the FIFO was opened and waited on")
    assert kept == [{}]  # not a regular file when read: not watched
