"""Real ``legato`` processes: ``--continue --headless "/rewind N"`` on the latest session, a bad
N, and ``/undo`` of the rewind in the next run."""

from __future__ import annotations

from typing import TYPE_CHECKING

from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls
from tests.sessions.test_resume import texts

if TYPE_CHECKING:
    from tests.frontends.conftest import Project


def test_rewind_n_headless_restores_the_latest_session_and_undo_puts_it_back(
    project: Project,
) -> None:
    target = project.root / "notes.txt"
    auto = ("--permission-mode", "auto")
    with ScriptedServer(
        [tool_calls([call("Write", {"file_path": str(target), "content": "one\n"})]), text("ok")]
    ) as server:
        first = project.legato(server.url, *auto, "-p", "write notes")
    assert first.returncode == 0, first.stderr
    edit = {"file_path": str(target), "old_string": "one", "new_string": "two"}
    steps = [
        tool_calls([call("Read", {"file_path": str(target)})]),
        tool_calls([call("Edit", edit)]),
        text("changed"),
    ]
    with ScriptedServer(steps) as server:
        second = project.legato(server.url, *auto, "-c", "-p", "make it\ntwo")
    assert second.returncode == 0, second.stderr
    assert target.read_text() == "two\n"

    with ScriptedServer([]) as server:
        rewound = project.legato(server.url, "--continue", "--headless", "/rewind 1")
        bad = project.legato(server.url, "-c", "-p", "/rewind 3")
        worse = project.legato(server.url, "-c", "-p", "/rewind one code")
        bare = project.legato(server.url, "-c", "-p", "/rewind")
    assert rewound.returncode == 0, rewound.stderr
    assert rewound.stdout.splitlines() == [
        "Rewound the code and the conversation to just before prompt 2 (“make it two”).",
        f"Restored {target}",
        "The rewound prompt, to send again or edit:",
        "  make it",
        "  two",
    ]
    assert target.read_text() == "one\n"
    assert (bad.returncode, worse.returncode) == (2, 2)
    assert "cannot rewind 3 prompts back: this session has 1 prompt to go back to" in bad.stderr
    assert "not 'one'" in worse.stderr and "→" in worse.stderr
    # Nobody can pick from a list here: the remedy is a command to run as it stands.
    assert "pick from the list" not in worse.stderr
    assert bare.returncode == 2 and bare.stderr.splitlines()[1] == (
        '  → Run legato --continue --headless "/rewind 1" to go back to before the latest prompt '
        '("/rewind N code" or "/rewind N conversation" restores only one)'
    )
    assert target.read_text() == "one\n"

    with ScriptedServer([]) as server:
        undone = project.legato(server.url, "-c", "-p", "/undo")
    assert undone.returncode == 0, undone.stderr
    assert undone.stdout.startswith("Undid the rewind to before prompt 2")
    assert target.read_text() == "two\n"
    with ScriptedServer([text("Two it is.")]) as server:
        project.legato(server.url, "-c", "-p", "and now?")
        body = server.requests[0].body
    # The conversation is back whole, and the model was told nothing of the rewind.
    said = texts(body)
    assert said[0] == "write notes" and "make it\ntwo" in said and said[-1] == "and now?"
    assert not any(line.startswith("(Note:") for line in said), said
