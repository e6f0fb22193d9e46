"""``/add-dir`` in a real in-process session: what it refuses and why, and a folder added
through a symlink is the real folder, worked in as in the project (the model's Read there is
allowed with no question), named in the system prompt and listed by /permissions."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import pytest

from frontends.demo.scripted_api import call, text, tool_calls
from tests.interactive.test_session import ENTER, SHIFT_TAB, run, system_text

if TYPE_CHECKING:
    from pathlib import Path

pytestmark = pytest.mark.anyio


def _results(body: dict[str, Any]) -> list[str]:
    return [
        str(b["content"]) for b in body["messages"][-1]["content"] if b["type"] == "tool_result"
    ]


async def test_add_dir_refuses_what_it_cannot_add_and_adds_the_real_folder(
    folders: tuple[Path, Path],
) -> None:
    root, _ = folders
    other = root.parent / "other"
    other.mkdir()
    (other / "notes.txt").write_text("the other folder's notes\n")
    (root.parent / "link").symlink_to(other)
    (root / "src").mkdir()
    (root / "file.txt").write_text("x\n")
    read = call("Read", {"file_path": str(other / "notes.txt")})
    steps = [tool_calls([read]), text("not read"), tool_calls([read]), text("read it")]
    async for live, server in run(folders, steps):
        # Auto-accept: reading in the project needs no question, outside it always does.
        live.pipe.send_text(SHIFT_TAB)
        await live.mode("auto")
        await live.submit("read the notes")
        await live.shown("Allow? [y/n/always/never]")
        live.pipe.send_text("n" + ENTER)
        await live.shown("not read")
        await live.idle()
        refusals = {
            "/add-dir": "/add-dir needs a folder",
            "/add-dir missing": "missing: no such folder",
            "/add-dir file.txt": "is a file, not a folder",
            "/add-dir /": "the whole file system, too broad",
            "/add-dir ~": "your home folder, too broad",
            "/add-dir src": "the project already covers it",
        }
        for typed, said in refusals.items():
            await live.submit(typed)
            await live.shown(said)
        await live.submit("/add-dir ../link")
        await live.shown(f"Added {other} for this session")
        await live.submit("/add-dir ../other")
        await live.shown(f"the added folder {other} already covers it")
        await live.submit("/permissions")
        await live.shown("added with /add-dir, for this session")
        await live.submit("read the notes")
        await live.shown("read it")
        await live.idle()
        requests = [r.body for r in server.requests]
    # Asked once, before the folder was added; read with no question after.
    assert live.text().count("Allow? [y/n/always/never]") == 1
    assert "the other folder's notes" not in _results(requests[1])[0]
    assert "the other folder's notes" in _results(requests[3])[0]
    assert "Other folders you may work in" not in system_text(requests[0])
    assert f"Other folders you may work in: {other}" in system_text(requests[2])
    assert f"{other}  (added with /add-dir, for this session)" in live.text()
