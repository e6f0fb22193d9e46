"""Hook commands as processes: side by side, bounded in time and output, and gone, with all
they started, once the answer is in or the asker gave up. Processes are found from outside, by
their working folder (each test's own project). Both backends: the terminal runs on asyncio."""

from __future__ import annotations

from typing import TYPE_CHECKING

import anyio
import pytest

from tests.hooks.harness import group, running, running_in, script, wait_for

if TYPE_CHECKING:
    from pathlib import Path

    from actors.protocol import HookOutcome

pytestmark = pytest.mark.anyio


@pytest.fixture(params=["trio", "asyncio"])
def anyio_backend(request: pytest.FixtureRequest) -> object:
    return request.param


async def test_hooks_run_side_by_side(tmp_path: Path) -> None:
    # Each waits for the other's marker: run one after the other, neither could finish.
    root = tmp_path / "p"
    a = script(
        tmp_path / "hooks", "a.sh", "#!/bin/bash\ntouch a\nwhile [ ! -e b ]; do sleep 0.01; done\n"
    )
    b = script(
        tmp_path / "hooks", "b.sh", "#!/bin/bash\ntouch b\nwhile [ ! -e a ]; do sleep 0.01; done\n"
    )
    async with running(root, group("Stop", a, b, timeout=60)) as hooks:
        outcome = await hooks.run("Stop")
    assert [(run.exit_code, run.timed_out) for run in outcome.runs] == [(0, False), (0, False)]
    assert outcome.errors == ()


async def test_a_tree_that_ignores_sigterm_is_killed_at_the_timeout(tmp_path: Path) -> None:
    root = tmp_path / "p"
    stubborn = script(
        tmp_path / "hooks",
        "stubborn.sh",
        "#!/bin/bash\ntrap '' TERM\nsleep 300 &\nbash -c \"trap '' TERM; sleep 300\" &\n"
        "touch started\nwait\n",
    )
    async with running(root, group("PreToolUse", stubborn, timeout=0.5)) as hooks:
        outcome = await hooks.run("PreToolUse", "Bash", tool_input={})
        assert running_in(root) == []
    (run,) = outcome.runs
    assert (run.exit_code, run.timed_out) == (None, True)
    assert not outcome.blocked
    (error,) = outcome.errors
    assert error.startswith(f"{stubborn}: timed out after ")
    assert (root / "started").exists()


async def test_giving_up_on_the_ask_ends_the_hooks(tmp_path: Path) -> None:
    root = tmp_path / "p"
    slow = script(
        tmp_path / "hooks",
        "slow.sh",
        "#!/bin/bash\ntrap '' TERM\nsleep 300 &\ntouch started\nsleep 300\n",
    )
    answers: list[HookOutcome] = []
    async with running(root, group("UserPromptSubmit", slow, timeout=600)) as hooks:
        with anyio.CancelScope() as scope:
            async with anyio.create_task_group() as tasks:

                async def ask() -> None:
                    answers.append(await hooks.run("UserPromptSubmit", prompt="hi"))

                tasks.start_soon(ask)
                await wait_for(root / "started")
                assert running_in(root) != []
                scope.cancel()
        # The runner goes on answering.
        assert (await hooks.run("Notification", message="still here")).runs == ()
    # The runner's handler ends the group (shielded) before the actor can end.
    assert answers == []
    assert running_in(root) == []


async def test_output_keeps_its_head_and_tail(tmp_path: Path) -> None:
    loud = script(
        tmp_path / "hooks",
        "loud.sh",
        "#!/bin/bash\necho first\nhead -c 300000 /dev/zero | tr '\\0' x\necho\necho last\n"
        "head -c 300000 /dev/zero | tr '\\0' y >&2\nexit 1\n",
    )
    async with running(tmp_path / "p", group("PostToolUse", loud)) as hooks:
        outcome = await hooks.run("PostToolUse", "Bash", tool_input={}, tool_response={})
    (run,) = outcome.runs
    assert run.stdout.startswith("first\nxxx")
    assert run.stdout.endswith("xxx\nlast\n")
    assert "bytes omitted] ..." in run.stdout
    assert len(run.stdout) < 64 * 1024 + 100
    assert len(run.stderr) < 64 * 1024 + 100
    assert run.exit_code == 1
    (error,) = outcome.errors
    assert error.startswith(f"{loud} exited with 1: ...yyy")
    assert len(error) < 1000


async def test_a_command_that_is_not_there_is_an_error_that_blocks_nothing(
    tmp_path: Path,
) -> None:
    missing = str(tmp_path / "hooks" / "missing.sh")
    async with running(tmp_path / "p", group("PreToolUse", missing)) as hooks:
        outcome = await hooks.run("PreToolUse", "Bash", tool_input={})
    (run,) = outcome.runs
    assert run.exit_code == 127
    assert not outcome.blocked
    (error,) = outcome.errors
    assert error.startswith(f"{missing} exited with 127: ")
    assert "No such file or directory" in error


async def test_a_hook_that_cannot_start_is_an_error_that_blocks_nothing(tmp_path: Path) -> None:
    # The project folder is gone: the shell itself cannot start there.
    hook = script(tmp_path / "hooks", "fine.sh", "#!/bin/bash\nexit 2\n")
    root = tmp_path / "p"
    async with running(root, group("PreToolUse", hook)) as hooks:
        root.rmdir()
        outcome = await hooks.run("PreToolUse", "Bash", tool_input={})
    (run,) = outcome.runs
    assert run.exit_code is None
    assert not run.timed_out
    assert not outcome.blocked
    (error,) = outcome.errors
    assert error.startswith(f"{hook}: could not start: ")


async def test_a_hook_that_does_not_read_its_input_still_answers(tmp_path: Path) -> None:
    deaf = script(tmp_path / "hooks", "deaf.sh", "#!/bin/bash\necho ok\n")
    big = "z" * 1_000_000  # more than a pipe holds
    async with running(tmp_path / "p", group("UserPromptSubmit", deaf)) as hooks:
        outcome = await hooks.run("UserPromptSubmit", prompt=big)
    assert outcome.context == "ok"
