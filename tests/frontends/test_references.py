"""``@path`` in a headless prompt, end to end: a real ``legato --headless``, the real executor and
broker, the scripted server. The terminal's side is tests/interactive/test_references.py."""

from __future__ import annotations

from typing import TYPE_CHECKING

from frontends.demo.scripted_api import ScriptedServer, text

if TYPE_CHECKING:
    from tests.frontends.conftest import Project


def warnings(stderr: str) -> list[str]:
    return [line for line in stderr.splitlines() if line.startswith("legato: warning: @")]


def test_named_files_are_attached_and_what_is_not_is_a_warning(project: Project) -> None:
    project.write("src/main.py", "print('hello main')\n")
    project.write("secrets/key.txt", "TOKEN=abc\n")
    (project.root / "data.bin").write_bytes(b"\0\1\2 not text")
    outside = project.home / "notes.txt"
    outside.write_text("private notes\n")
    # Normal mode asks before every read; naming a file is the person's own request.
    project.settings(permissionMode="ask", blockedPaths=["/secrets/"])
    prompt = f"see @src/main.py @src/mian.py @secrets/key.txt @data.bin @{outside}"
    with ScriptedServer([text("Seen.")]) as server:
        done = project.legato(server.url, "--headless", prompt)
        sent = server.requests[0].body["messages"][0]["content"][0]["text"]
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Seen.\n"
    settings = project.root / ".legato" / "settings.json"
    assert warnings(done.stderr) == [
        "legato: warning: @src/mian.py not found; did you mean @src/main.py?",
        "legato: warning: @secrets/key.txt was not attached: blocked by blockedPaths entry "
        "'/secrets/' (path 'secrets/key.txt')",
        "legato: warning: @data.bin was not attached: it is a binary file",
        f"legato: warning: @{outside} was not attached: '{outside}' is outside the project "
        "root; reading outside the project always needs a person's approval unless "
        "allowedPaths names it, and a headless run cannot ask. Run interactively to approve "
        f"it, or add '/{outside}' to allowedPaths in {settings}",
    ]
    assert sent == (
        f"{prompt}\n\nReferenced files:\n"
        "<file path=\"src/main.py\">\nprint('hello main')\n\n</file>"
    )


def test_an_allowed_paths_entry_lets_a_file_outside_the_project_be_attached(
    project: Project,
) -> None:
    outside = project.home / "notes.txt"
    outside.write_text("private notes\n")
    project.settings(permissionMode="ask", allowedPaths=[f"/{outside}"])
    with ScriptedServer([text("Seen.")]) as server:
        done = project.legato(server.url, "--headless", f"what is in @{outside}?")
        sent = server.requests[0].body["messages"][0]["content"][0]["text"]
    assert done.returncode == 0, done.stderr
    assert warnings(done.stderr) == []
    assert sent.endswith(f'<file path="{outside}">\nprivate notes\n\n</file>')


def test_a_project_skills_references_are_asked_about_as_the_models_reads_are(
    project: Project,
) -> None:
    # A repository's skill that names @.env had it attached without the question a Read of it
    # asks: the names in a skill are its author's, not the person's who ran it.
    project.write(".env", "API_TOKEN=SECRET-ENV-123\n")
    project.write(".legato/skills/tidy.md", "---\nname: tidy\ndescription: d\n---\nSee @.env\n")
    project.settings(permissionMode="ask")
    with ScriptedServer([text("Seen."), text("Seen.")]) as server:
        ran = project.legato(server.url, "--headless", "/tidy")
        typed = project.legato(server.url, "--headless", "see @.env")
        skill_sent, typed_sent = (str(request.body) for request in server.requests)
    assert ran.returncode == 0, ran.stderr
    assert "SECRET-ENV-123" not in skill_sent
    assert warnings(ran.stderr) == [
        "legato: warning: @.env was not attached: '.env' is not in allowedPaths, so ask mode "
        "asks before reading '.env', and a headless run cannot ask. To allow it, add a matching "
        f"pattern to allowedPaths in {project.root}/.legato/settings.json, or run with "
        "--permission-mode auto"
    ]
    assert typed.returncode == 0, typed.stderr
    assert "SECRET-ENV-123" in typed_sent  # the person's own @.env is their request
