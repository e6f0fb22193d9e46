"""Defined answers for odd paths, through the tools, with the real broker and its policy.

The refusals of names and system paths come from the executor's door before anything is asked:
the scripted person has no answers, so a question would fail the call with another message.
"""

from __future__ import annotations

import os
import unicodedata
from typing import TYPE_CHECKING, Any

import pytest

from tests.tool_executor.harness import call, with_policy

if TYPE_CHECKING:
    from pathlib import Path

    from actors.protocol import ToolFinished
    from tests.tool_executor.harness import Calls

SYSTEM = (
    "Legato's file tools do not read or write /proc, /dev or /sys ({}). Use Bash to look at "
    "system files."
)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    project = tmp_path / "project"
    project.mkdir()
    return project


async def every_tool(s: Calls, path: str) -> list[ToolFinished]:
    """Read, Write and Edit of ``path``, in one batch."""
    calls = [
        call("Read", file_path=path),
        call("Write", file_path=path, content="x\n"),
        call("Edit", file_path=path, old_string="a", new_string="b"),
    ]
    finished = await s.finished(*calls)
    return [finished[c.id] for c in calls]


async def test_a_nul_byte_is_an_invalid_path(root: Path) -> None:
    async with with_policy(root, mode="auto", answers=[]) as s:
        results = await every_tool(s, "notes\x00.txt")
    named = str(root / "notes\x00.txt")
    for done in results:
        assert done.result.is_error
        assert done.result.content == (
            f"Invalid path {named!r}: it contains a NUL byte, which no name can."
        )


async def test_over_long_paths_and_names_are_invalid(root: Path) -> None:
    long_path = "/".join(["folder"] * 600)  # 4199 bytes
    long_name = "é" * 130  # 130 characters, 260 bytes: names are limited in bytes
    async with with_policy(root, mode="auto", answers=[]) as s:
        paths = await every_tool(s, long_path)
        names = await every_tool(s, long_name)
    size = len(os.fsencode(str(root / long_path)))
    for done in paths:
        assert done.result.content == (
            f"Invalid path: it is {size} bytes long, and the limit is 4096."
        )
    for done in names:
        assert done.result.content == (
            f"Invalid path: the name {'é' * 40!r}… is 260 bytes long, and the limit is 255."
        )


@pytest.mark.parametrize(
    "path",
    [
        "/proc/self/environ",
        # Named by its id (the test's own process): the same name in every xdist worker.
        pytest.param(f"/proc/{os.getpid()}/status", id="/proc/<pid>/status"),
        "/dev/fd/0",
        "/dev/stdin",
        "/dev/zero",
        "/sys/kernel/hostname",
        "/proc",
    ],
)
async def test_system_paths_are_refused_before_anything_is_asked(root: Path, path: str) -> None:
    async with with_policy(root, mode="auto", answers=[]) as s:
        results = await every_tool(s, path)
    for done in results:
        assert done.result.is_error and not done.result.denied
        assert done.result.content == SYSTEM.format(path)


async def test_a_symlink_in_the_project_into_proc_is_refused(root: Path) -> None:
    (root / "env.txt").symlink_to("/proc/self/environ")
    async with with_policy(root, mode="auto", answers=[]) as s:
        results = await every_tool(s, "env.txt")
    real = f"/proc/{os.getpid()}/environ"
    for done in results:
        assert done.result.content == SYSTEM.format(real)


# ── hard links ─────────────────────────────────────────────────────────────────────────────


def hard_link_to_secret(root: Path) -> None:
    (root / ".env").write_text("SECRET=1\n")
    os.link(root / ".env", root / "notes.txt")


async def test_a_hard_link_to_a_blocked_file_is_denied_headless(root: Path) -> None:
    hard_link_to_secret(root)
    async with with_policy(root, mode="auto", blockedPaths=[".env"]) as s:
        done = await s.one("Read", file_path="notes.txt")
    assert done.result.denied and "SECRET" not in done.result.content
    assert done.result.content.startswith(
        "Permission denied: 'notes.txt' is a file with 2 names (hard links), and the path "
        "rules judge names: one of the others may be in blockedPaths. So reading it needs a "
        "person's approval, and a headless run cannot ask."
    )


async def test_a_hard_link_is_put_to_the_person_each_time(root: Path) -> None:
    hard_link_to_secret(root)
    async with with_policy(root, mode="auto", answers=["y", "y"], blockedPaths=[".env"]) as s:
        read = await s.one("Read", file_path="notes.txt")
        edit = await s.one("Edit", file_path="notes.txt", old_string="1", new_string="2")
        assert s.person is not None
        asked = s.person.asked
    assert read.result.content == "     1\tSECRET=1"
    assert not edit.result.is_error, edit.result.content
    assert [(q.request.kind, q.request.hard_links, q.choices) for q in asked] == [
        ("read", 2, ("y", "n")),
        ("write", 2, ("y", "n")),
    ]
    # The edit replaced the name it was given; the blocked name still has the old bytes.
    assert (root / "notes.txt").read_text() == "SECRET=2\n"
    assert (root / ".env").read_text() == "SECRET=1\n"


async def test_hard_links_need_no_person_without_blocked_paths(root: Path) -> None:
    hard_link_to_secret(root)
    async with with_policy(root, mode="auto") as s:
        done = await s.one("Read", file_path="notes.txt")
    assert done.result.content == "     1\tSECRET=1"


# ── Unicode ────────────────────────────────────────────────────────────────────────────────


@pytest.mark.parametrize(("rule_form", "file_form"), [("NFC", "NFD"), ("NFD", "NFC")])
async def test_a_blocked_name_is_blocked_in_either_unicode_spelling(
    root: Path, rule_form: Any, file_form: Any
) -> None:
    name = unicodedata.normalize(file_form, "café.txt")
    rule = unicodedata.normalize(rule_form, "café.txt")
    assert name != rule
    (root / name).write_text("secret\n")
    async with with_policy(root, mode="auto", blockedPaths=[rule]) as s:
        done = await s.one("Read", file_path=name)
    assert done.result.denied and "secret" not in done.result.content
    assert "blocked by blockedPaths entry" in done.result.content


async def test_a_look_alike_is_a_different_name(root: Path) -> None:
    # Cyrillic "е" (U+0435) is another letter, not a spelling of "e": another file, not blocked.
    look_alike = ".\u0435nv"
    (root / ".env").write_text("SECRET=1\n")
    (root / look_alike).write_text("decoy\n")
    async with with_policy(root, mode="auto", blockedPaths=[".env"]) as s:
        real = await s.one("Read", file_path=".env")
        other = await s.one("Read", file_path=look_alike)
    assert real.result.denied
    assert other.result.content == "     1\tdecoy"
