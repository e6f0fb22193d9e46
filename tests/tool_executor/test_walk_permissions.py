"""Glob and Grep as an attacker would use them: every file a walk meets is checked like a Read.

The real memory store and permission broker, headless (nothing can be asked), over a project
with blocked files, a blocked folder deep in the tree and symlinks that lead to a blocked file
and out of the project. Nothing blocked may reach the model, not even a name.
"""

from __future__ import annotations

import os
import threading
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Any

import anyio
import pytest
import trio.testing

from actors import door
from actors.protocol import (
    CheckPermission,
    Decision,
    FilterReadable,
    InterruptTools,
    PermissionBrokerMsg,
    RunTools,
    SetMode,
    ToolFinished,
    ToolResult,
    ToolStarted,
)
from actors.tool_executor import ToolExecutor
from actors.tool_executor.search import Query, Searcher
from actors.tool_executor.walk import BATCH, Found
from runtime import Actor, supervise
from tests.tool_executor.harness import call, with_policy

if TYPE_CHECKING:
    from collections.abc import AsyncIterator, Awaitable, Callable
    from pathlib import Path

    from actors.protocol import PermissionMode, ToolExecutorMsg
    from runtime import Address, Reply

SECRETS = ("SECRET=env", "SECRET=folder", "SECRET=deep", "SECRET=key")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    outside = tmp_path / "home" / ".ssh"
    outside.mkdir(parents=True)
    (outside / "id_rsa").write_text("SECRET=key\n")
    files = {
        ".env": "SECRET=env\n",
        "secrets/token.txt": "SECRET=folder\n",
        "a/b/secrets/x": "SECRET=deep\n",
        "src/app.py": "SECRET_NAME = 'not a secret'\n",
        "README.md": "Where is the SECRET kept?\n",
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    (root / "src" / "e.txt").symlink_to("../.env")  # committed, relative
    (root / "notes.md").symlink_to(outside / "id_rsa")
    return root


@asynccontextmanager
async def tools(
    root: Path, mode: PermissionMode, **settings: Any
) -> AsyncIterator[Callable[..., Awaitable[ToolResult]]]:
    """One tool call at a time through the real broker, headless, in ``mode``."""
    async with with_policy(root, mode=mode, **settings) as calls:

        async def run(name: str, **fields: Any) -> ToolResult:
            return (await calls.one(name, **fields)).result

        yield run


def leaked(content: str) -> list[str]:
    return [secret for secret in SECRETS if secret in content]


NOT_LISTED = "files were not listed: the permission rules do not let tools read them.)"


async def test_grep_over_the_root_reads_no_blocked_file_and_no_symlink_out(project: Path) -> None:
    async with tools(project, "auto", blockedPaths=[".env", "secrets/"]) as run:
        content = await run("Grep", pattern="SECRET", output_mode="content")
        names = await run("Grep", pattern="SECRET")
        counted = await run("Grep", pattern="SECRET", output_mode="count")
    assert not content.is_error
    assert leaked(content.content) == []
    # .env, secrets/token.txt, a/b/secrets/x (the unanchored rule), src/e.txt (leads to .env)
    # and notes.md (leads out of the project, which a headless run cannot ask about).
    assert content.content.split("\n") == [
        f"{project / 'README.md'}:1:Where is the SECRET kept?",
        f"{project / 'src/app.py'}:1:SECRET_NAME = 'not a secret'",
    ]
    for result in (names, counted):
        listed = result.content.split("\n")
        assert sorted(line.split(":")[0] for line in listed) == [
            str(project / "README.md"),
            str(project / "src/app.py"),
        ]


async def test_glob_does_not_even_name_a_blocked_file(project: Path) -> None:
    async with tools(project, "auto", blockedPaths=[".env", "secrets/"]) as run:
        everything = await run("Glob", pattern="**/*")
        envs = await run("Glob", pattern="**/.env")
    listed = everything.content.split("\n")
    # .env and the two files in secrets/; the symlinks are not listed at all (walks do not
    # follow them).
    assert listed[-1] == f"(3 {NOT_LISTED}"
    assert sorted(listed[:-1]) == [
        str(project / ".legato/settings.json"),
        str(project / "README.md"),
        str(project / "src/app.py"),
    ]
    assert envs.content == (
        f"No files match **/.env in {project}.\n"
        "(1 file was not listed: the permission rules do not let tools read it.)"
    )


async def test_symlinks_lead_nowhere_the_rules_do_not_allow(project: Path) -> None:
    (project / "src" / "k.txt").symlink_to(project / "notes.md")  # a chain, out in the end
    async with tools(project, "custom", allowedPaths=["src/**"]) as run:
        src = await run("Grep", pattern="SECRET", path="src", output_mode="content")
        root = await run("Grep", pattern="SECRET", output_mode="content")
    # e.txt leads to .env, which no entry allows; k.txt leads through notes.md out of the
    # project: neither is read, though both sit in the allowed folder.
    assert src.content.split("\n") == [f"{project / 'src/app.py'}:1:SECRET_NAME = 'not a secret'"]
    # The root itself is not allowed: custom mode searches it narrowed to the files the rules
    # allow, each judged as a Read of it would be, so it finds what the search of src found.
    assert not root.is_error and leaked(root.content) == []
    assert root.content.split("\n")[0] == src.content


@pytest.mark.parametrize("mode", ["auto", "plan", "custom", "ask"])
async def test_a_symlinked_file_named_directly_is_judged_where_it_leads(
    project: Path, mode: PermissionMode
) -> None:
    async with tools(project, mode, allowedPaths=["src/**", "*.md"], blockedPaths=[".env"]) as run:
        to_env = await run("Grep", pattern="SECRET", path="src/e.txt", output_mode="content")
        to_key = await run("Grep", pattern="SECRET", path="notes.md", output_mode="content")
    for result in (to_env, to_key):
        assert result.is_error and result.content.startswith("Permission denied")
        assert leaked(result.content) == []


async def test_gitignore_files_decide_as_in_git(project: Path) -> None:
    (project / ".gitignore").write_text("*.log\nbuild/\n")
    (project / "src" / ".gitignore").write_text("!keep.log\n")
    for name in ("src/keep.log", "src/drop.log", "build/out.py", "a/b/build/x.py"):
        (project / name).parent.mkdir(parents=True, exist_ok=True)
        (project / name).write_text("found\n")
    async with tools(project, "auto") as run:
        found = await run("Grep", pattern="found")
    assert found.content == str(project / "src/keep.log")


class HeldBroker(Actor[PermissionBrokerMsg]):
    """Allows the folder, then holds every FilterReadable until the test ends."""

    name = "permission_broker"

    def __init__(self) -> None:
        super().__init__()
        self.filters = 0
        self.holding = anyio.Event()

    async def handle(self, msg: PermissionBrokerMsg, reply: Reply) -> None:
        match msg:
            case CheckPermission():
                await reply.answer(msg, Decision(True, "allowed by the test"))
            case FilterReadable():
                self.filters += 1
                self.holding.set()
                await anyio.sleep_forever()
            case SetMode(mode=mode):
                await reply.answer(msg, mode)


@pytest.mark.parametrize("tool", ["Grep", "Glob"])
async def test_an_interrupt_stops_a_walk_waiting_on_the_broker(tmp_path: Path, tool: str) -> None:
    for index in range(BATCH * 3):
        (tmp_path / f"f{index}.txt").write_text("x\n")
    broker = HeldBroker()
    executor = ToolExecutor(broker.address, project_root=str(tmp_path))
    the_call = call(tool, pattern="x" if tool == "Grep" else "*.txt")
    async with supervise([broker, executor]):
        results = await interrupted(executor.address, the_call.id, broker, RunTools((the_call,)))
    assert results[0].content.startswith("Interrupted after")
    await trio.testing.wait_all_tasks_blocked()
    assert broker.filters == 1  # no batch after the interrupt


async def interrupted(
    executor: Address[ToolExecutorMsg], call_id: str, broker: HeldBroker, run: RunTools
) -> list[ToolResult]:
    results = []
    async with executor.stream(run) as stream:
        async for event in stream:
            if isinstance(event, ToolStarted):
                await broker.holding.wait()
                await executor.tell(InterruptTools(ids=(call_id,)))
            elif isinstance(event, ToolFinished):
                results.append(event.result)
    return results


async def test_a_hard_link_to_a_blocked_file_is_left_out(project: Path) -> None:
    os.link(project / ".env", project / "src" / "copy.txt")  # the same file, another name
    async with tools(project, "auto", blockedPaths=[".env"]) as run:
        found = await run("Grep", pattern="SECRET=env", path="src", output_mode="content")
        named = await run("Grep", pattern="SECRET=env", path="src/copy.txt")
    # The rules see names: with blockedPaths, a file with several names needs a person.
    assert found.content == "No matches for 'SECRET=env' in " + str(project / "src") + "."
    assert named.is_error and leaked(named.content) == []


async def test_grep_does_not_read_system_folders(project: Path) -> None:
    async with tools(project, "auto") as run:
        environ = await run("Grep", pattern=".", path="/proc/self/environ")
    assert environ.is_error and "/proc" in environ.content


def test_a_file_swapped_after_the_check_is_not_opened(project: Path) -> None:
    # The broker judged src/app.py; by the time it is opened it is a symlink to .env.
    app = project / "src" / "app.py"
    st = app.stat()
    found = Found(str(app), "app.py", st.st_mtime, st.st_size, str(app), st.st_nlink)
    app.unlink()
    app.symlink_to(project / ".env")
    query = Query("SECRET", "content", None, None, False, True, 0, 0, None)
    walked = Searcher(query, 10_000, threading.Event())
    walked.feed([found])
    assert walked.report(str(project)) == f"No matches for 'SECRET' in {project}."
    with pytest.raises(door.Changed):
        Searcher(query, 10_000, threading.Event()).search(found, named=True)


async def test_glob_shows_its_full_thousand_when_the_newest_files_are_blocked(
    tmp_path: Path,
) -> None:
    """Files past the thousand shown are only counted: those the rules refuse among the
    newest make room for as many more, which are judged too."""
    root = tmp_path / "many"
    # Long names, so that the listing comes in many reads (the blocked ones fill several).
    opened, secret = root / "open", root / "secret"
    opened.mkdir(parents=True)
    secret.mkdir()
    for index in range(1500):
        (opened / f"{'f' * 150}{index:04}.txt").write_text("")
        os.utime(opened / f"{'f' * 150}{index:04}.txt", (1_000_000 + index,) * 2)
    for index in range(1200):  # all newer than every open file
        (secret / f"{'s' * 150}{index:04}.txt").write_text("")
        os.utime(secret / f"{'s' * 150}{index:04}.txt", (2_000_000 + index,) * 2)
    async with tools(root, "auto", blockedPaths=["secret/"]) as run:
        listing = (await run("Glob", pattern="**/*.txt")).content.split("\n")
    shown, notes = listing[:1000], listing[1000:]
    # The thousand newest open files, newest first: none blocked, none missing.
    expected = [str(opened / f"{'f' * 150}{index:04}.txt") for index in range(1499, 499, -1)]
    assert shown == expected
    assert notes[0] == "(Showing the 1000 newest of 1500 files. Use a narrower pattern or path.)"
    assert notes[1:] == [f"(1200 {NOT_LISTED}"]


async def test_grep_lists_the_newest_files_it_may_read_past_blocked_newer_ones(
    tmp_path: Path,
) -> None:
    """files_with_matches judges the newest files first, only as far as its output goes: the
    blocked ones among them (more than a batch) are passed over and older ones take their
    place."""
    root = tmp_path / "grep"
    (root / "open").mkdir(parents=True)
    (root / "secret").mkdir()
    for index in range(100):
        (root / "open" / f"o{index:03}.txt").write_text("TOKEN\n")
        os.utime(root / "open" / f"o{index:03}.txt", (1_000_000 + index,) * 2)
    for index in range(BATCH + 88):  # all newer than every open file
        (root / "secret" / f"s{index:03}.txt").write_text("TOKEN\n")
        os.utime(root / "secret" / f"s{index:03}.txt", (2_000_000 + index,) * 2)
    async with tools(root, "auto", blockedPaths=["secret/"]) as run:
        said = (await run("Grep", pattern="TOKEN", head_limit=50)).content.split("\n")
    assert said[:50] == [str(root / "open" / f"o{index:03}.txt") for index in range(99, 49, -1)]
    assert said[50:] == ["(Showing the first 50 results; there are more.)"]


async def test_grep_content_fills_its_lines_past_blocked_files_that_come_first(
    tmp_path: Path,
) -> None:
    """content is judged a file at a time once enough lines have come to fill the output:
    blocked files first by path (many reads of rg's output) show nothing, not even a count,
    and the open ones after them fill the lines to the limit."""
    root = tmp_path / "content"
    (root / "a-secret").mkdir(parents=True)
    (root / "b-open").mkdir()
    for index in range(300):
        (root / "a-secret" / f"s{index:03}.txt").write_text(f"TOKEN={'x' * 400}\n" * 3)
    for index in range(40):
        (root / "b-open" / f"o{index:03}.txt").write_text("TOKEN one\nnothing\nTOKEN two\n")
    async with tools(root, "auto", blockedPaths=["a-secret/"]) as run:
        said = await run("Grep", pattern="TOKEN", output_mode="content", head_limit=50)
    lines = said.content.split("\n")
    expected = [
        f"{root / 'b-open' / f'o{index:03}.txt'}:{line}"
        for index in range(25)
        for line in ("1:TOKEN one", "3:TOKEN two")
    ]
    assert lines[:50] == expected
    assert "x" * 400 not in said.content
    assert lines[50:] == ["(Showing the first 50 results; there are more.)"]
