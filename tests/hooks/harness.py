"""A hook runner under test: real hook scripts, run by the real actor, watched from /proc."""

from __future__ import annotations

import os
import stat
import sys
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

import anyio

from actors.hooks import HookRunner
from actors.protocol import HookCommand, HookGroup, RunHooks
from runtime import supervise

if TYPE_CHECKING:
    from collections.abc import AsyncIterator
    from pathlib import Path

    from actors.protocol import HookEvent, HookOutcome, HookRunnerMsg
    from runtime import Address

PYTHON = sys.executable
SESSION = "session-1"
TRANSCRIPT = "/tmp/transcript.jsonl"


def script(folder: Path, name: str, text: str) -> str:
    """An executable script in ``folder``; its path, to use as a command."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(text)
    path.chmod(path.stat().st_mode | stat.S_IXUSR)
    return str(path)


def python_hook(folder: Path, name: str, body: str) -> str:
    """A command that runs ``body`` as a Python script by the venv's Python."""
    path = script(folder, name, body)
    return f"{PYTHON} {path}"


def group(event: HookEvent, *commands: str, matcher: str = "", timeout: float = 30.0) -> HookGroup:
    hooks = tuple(HookCommand(command=c, timeout=timeout) for c in commands)
    return HookGroup(event=event, matcher=matcher, hooks=hooks, source="settings.json")


@asynccontextmanager
async def running(root: Path, *groups: HookGroup, **options: Any) -> AsyncIterator[Runner]:
    await anyio.Path(root).mkdir(parents=True, exist_ok=True)
    actor = HookRunner(
        project_root=str(root),
        session_id=SESSION,
        transcript_path=TRANSCRIPT,
        groups=groups,
        **options,
    )
    async with supervise([actor]):
        yield Runner(actor.address)


class Runner:
    def __init__(self, address: Address[HookRunnerMsg]) -> None:
        self.address = address

    async def run(
        self, event: HookEvent, tool_name: str | None = None, **payload: Any
    ) -> HookOutcome:
        if tool_name is not None:
            payload = {"tool_name": tool_name, **payload}
        return await self.address.ask(RunHooks(event=event, payload=payload, tool_name=tool_name))


async def wait_for(path: Path) -> None:
    """Until a hook has created ``path`` (its own signal that it got there)."""
    with anyio.fail_after(20):
        while not await anyio.Path(path).exists():  # noqa: ASYNC110
            await anyio.sleep(0.01)


def running_in(folder: Path) -> list[int]:
    """Live processes whose working folder is ``folder`` or inside it: what a hook started there
    and left behind."""
    found = []
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            cwd = os.readlink(f"/proc/{name}/cwd")
            with open(f"/proc/{name}/stat", "rb") as file:
                state = file.read().rsplit(b")", 1)[1].split()[0]
        except (OSError, IndexError):
            continue  # it ended, or it is not ours to look at
        if (cwd == str(folder) or cwd.startswith(f"{folder}/")) and state not in (b"Z", b"X"):
            found.append(int(name))
    return found
