"""``/undo`` after the model swapped a folder for a link to the home folder, in a real terminal
(tmux) with the model's commands confined by bubblewrap: the restore writes nothing through
the link, and says which file it could not put back and why."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls
from tests.interactive.conftest import folders, session_env, terminal
from tests.tool_executor.sandbox_setup import needs_bwrap

if TYPE_CHECKING:
    from pathlib import Path

    from tests.interactive.terminal import Terminal

pytestmark = pytest.mark.tmux
__all__ = ["folders", "terminal"]


@needs_bwrap
def test_undo_after_a_folder_became_a_link_home_writes_nothing_there(
    terminal: Terminal, folders: tuple[Path, Path]
) -> None:
    root, home = folders
    (root / "src").mkdir()
    target = root / "src" / "app.py"
    target.write_text("print('original')\n")
    (root / ".legato").mkdir()
    (root / ".legato" / "settings.json").write_text('{"allowedCommands": ["mv", "ln"]}')
    swap = f"mv src old-src && ln -s {home} src"
    steps = [
        tool_calls([call("Write", {"file_path": str(target), "content": "print('new')\n"})]),
        tool_calls([call("Bash", {"command": swap})]),
        text("Moved things around."),
    ]
    with ScriptedServer(steps) as server:
        terminal.start(root, session_env(home, server.url), "--permission-mode", "auto")
        terminal.wait_for("tokens", visible=True)
        terminal.submit("tidy up")
        terminal.wait_for("Moved things around.")
        assert (root / "src").is_symlink()
        terminal.submit("/undo")
        screen = terminal.wait_for("nothing was written")
        terminal.submit("/quit")
        assert terminal.exit_code() == 0
    assert not (home / "app.py").exists()
    said = f"Could not restore {target}: it now leads to {home}/app.py"
    assert "".join(said.split()) in "".join(screen.split())  # wherever the terminal wraps it
