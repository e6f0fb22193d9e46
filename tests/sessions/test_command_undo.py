"""Real ``legato`` processes: a prompt's shell command creates, deletes and changes files, and
``--continue -p "/undo"`` in the next process puts all of it back from the session file."""

from __future__ import annotations

from typing import TYPE_CHECKING

from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls

if TYPE_CHECKING:
    from tests.frontends.conftest import Project


def test_undo_in_a_later_process_puts_back_what_a_command_did(project: Project) -> None:
    app = project.write("src/app.py", "print('original')\n")
    readme = project.write("README.md", "# The project\n")
    project.settings(allowedCommands=["sh"])
    project.write(
        "tidy.sh", "echo changed > src/app.py\nrm README.md\nmkdir gen\necho x > gen/out.txt\n"
    )
    steps = [
        tool_calls([call("Bash", {"command": "sh tidy.sh"})]),
        text("Tidied."),
    ]
    with ScriptedServer(steps) as server:
        ran = project.legato(server.url, "--permission-mode", "auto", "-p", "tidy up")
    assert ran.returncode == 0, ran.stderr
    assert not readme.exists() and (project.root / "gen" / "out.txt").exists()

    with ScriptedServer([]) as server:
        undone = project.legato(server.url, "--continue", "-p", "/undo")
    assert undone.returncode == 0, undone.stderr
    assert app.read_text() == "print('original')\n"
    assert readme.read_text() == "# The project\n"
    assert not (project.root / "gen").exists()
    assert undone.stdout.splitlines() == [
        f"Restored {readme} (deleted by `sh tidy.sh`)",
        f"Removed {project.root / 'gen' / 'out.txt'} (created by `sh tidy.sh`)",
        f"Restored {app} (changed by `sh tidy.sh`)",
        "Shell commands ran in that prompt (`sh tidy.sh`): what they changed among the "
        "project's files is put back where the checkpoint saw it; what they changed outside "
        "the project, in .git or in ignored folders such as node_modules stays.",
    ]
