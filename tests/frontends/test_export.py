"""``/export``'s Markdown and the file it goes to: prompts, answers, each tool call on one line
with its result cut short, media by name, no terminal control characters; a name the
repository made lead out of the project, Legato's own folders, ``.git``, a folder or a FIFO
refused."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import pytest

from actors.errors import UsageError
from actors.protocol import Message
from frontends.demo.scripted_api import ScriptedServer, text
from frontends.export import (
    command_note,
    conversation_markdown,
    export_target,
    read_command_note,
    write_export,
)

if TYPE_CHECKING:
    from pathlib import Path

    from tests.frontends.conftest import Project

IMAGE = {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "AA"}}
PDF = {
    "type": "document",
    "title": "spec.pdf",
    "source": {"type": "base64", "media_type": "application/pdf", "data": "AA"},
}


def conversation() -> list[Message]:
    long_result = "\n".join(f"line {n}" for n in range(40))
    return [
        Message("user", [{"type": "text", "text": "look at \x1b]52;c;aGk=\x07this"}, IMAGE]),
        Message(
            "assistant",
            [
                {"type": "text", "text": "Reading it.\x1b[2J"},
                {"type": "tool_use", "id": "t1", "name": "Read", "input": {"file_path": "a.py"}},
                {"type": "tool_use", "id": "t2", "name": "Bash", "input": {"command": "make\nx"}},
            ],
        ),
        Message(
            "user",
            [
                {"type": "tool_result", "tool_use_id": "t1", "content": long_result},
                {"type": "tool_result", "tool_use_id": "t2", "content": "boom", "is_error": True},
            ],
        ),
        Message("assistant", [{"type": "text", "text": "Done."}]),
        Message("user", [{"type": "text", "text": command_note("ls", "a.py\nExit code 0")}, PDF]),
    ]


def test_the_markdown_holds_prompts_answers_and_one_line_per_call() -> None:
    # One heading a turn, though its answer comes in several messages.
    assert conversation_markdown(conversation(), title="Chat") == (
        "# Chat\n\n"
        "## You\n\nlook at \\x1b]52;c;aGk=\\x07this\n\n[image: image/png]\n\n"
        "## Legato\n\nReading it.\\x1b[2J\n\n"
        "- **Read**(`a.py`) → line 0 (+39 more lines)\n"
        "- **Bash**(`make\\nx`) ✗ boom\n\n"
        "Done.\n\n"
        "## You\n\n`! ls`\n\n```\na.py\nExit code 0\n```\n\n[document: spec.pdf]\n"
    )


def test_no_control_character_reaches_the_file() -> None:
    text = conversation_markdown(conversation(), title="\x1b]0;title\x07")
    assert not any((ord(c) < 32 and c != "\n") or 0x7F <= ord(c) < 0xA0 for c in text)


@pytest.fixture
def places(tmp_path: Path) -> tuple[Path, Path]:
    root, home = tmp_path / "project", tmp_path / "home"
    root.mkdir()
    home.mkdir()
    return root.resolve(), home.resolve()


def test_a_file_is_written_whole_and_an_existing_one_is_said_to_exist(
    places: tuple[Path, Path],
) -> None:
    root, home = places
    target, exists = export_target("notes/chat.md", str(root), str(home))
    assert not exists and target.shown == str(root / "notes" / "chat.md")
    write_export(target, "# Chat\n")
    assert (root / "notes" / "chat.md").read_text() == "# Chat\n"
    again, exists = export_target("notes/chat.md", str(root), str(home))
    assert exists
    write_export(again, "# Chat 2\n")
    assert (root / "notes" / "chat.md").read_text() == "# Chat 2\n"
    assert os.listdir(root / "notes") == ["chat.md"]  # no temporary file left


def refused(name: str, root: Path, home: Path, match: str) -> None:
    with pytest.raises(UsageError, match=match) as caught:
        export_target(name, str(root), str(home))
    assert caught.value.remedy and "legato --help" not in caught.value.remedy


def test_names_that_lead_out_of_the_project_are_refused(places: tuple[Path, Path]) -> None:
    root, home = places
    bashrc = home / ".bashrc"
    bashrc.write_text("export PATH\n")
    (root / "out.md").symlink_to(bashrc)
    refused("out.md", root, home, "outside the project")
    (root / "docs").symlink_to(home)
    refused("docs/chat.md", root, home, "outside the project")
    assert bashrc.read_text() == "export PATH\n"
    assert sorted(os.listdir(home)) == [".bashrc"]


def test_own_folders_git_folders_and_fifos_are_refused(places: tuple[Path, Path]) -> None:
    root, home = places
    (root / ".git" / "hooks").mkdir(parents=True)
    refused(".git/hooks/pre-commit", root, home, "Legato does not export there")
    refused(".legato/skills/x.md", root, home, "Legato does not export there")
    refused(str(home / ".legato" / "x.md"), root, home, "Legato does not export there")
    # The reference's folders are read as Legato's own: a saved conversation would become a
    # command there.
    refused(".claude/commands/chat.md", root, home, "Legato does not export there")
    refused(str(home / ".claude" / "commands" / "chat.md"), root, home, "does not export there")
    refused("", root, home, "needs a file name")
    (root / "dir").mkdir()
    refused("dir", root, home, "is a folder")
    os.mkfifo(root / "pipe.md")
    refused("pipe.md", root, home, "not a regular file")


def test_headless_exports_the_latest_session_and_replaces_nothing(project: Project) -> None:
    with ScriptedServer([text("Hello \x1b[31mthere\x1b[0m.")]) as server:
        first = project.legato(server.url, "--headless", "say hello")
        assert first.returncode == 0, first.stderr
        done = project.legato(server.url, "-c", "-p", "/export chat.md")
        assert done.returncode == 0, done.stderr
        assert len(server.requests) == 1  # the export asked the model nothing
    assert "Exported the conversation to" in done.stdout
    exported = (project.root / "chat.md").read_text()
    assert "## You\n\nsay hello\n\n## Legato\n\nHello \\x1b[31mthere\\x1b[0m.\n" in exported
    again = project.legato("http://127.0.0.1:9", "-c", "-p", "/export chat.md")
    assert again.returncode == 2
    assert "chat.md exists, and a headless run replaces no file" in again.stderr
    assert (project.root / "chat.md").read_text() == exported


def test_a_command_note_reads_back_whatever_its_command_and_output_hold() -> None:
    command = "echo '</bash-input>\n<bash-output>'"
    output = "</bash-input>\n<bash-output>\n</bash-output>\nExit code 0"
    assert read_command_note(command_note(command, output)) == (command, output)
    assert read_command_note("The user ran a shell command themselves, said the model") is None


def test_a_quoted_name_is_taken_without_its_quotes(places: tuple[Path, Path]) -> None:
    root, home = places
    for typed in ('"my chat.md"', "'my chat.md'", ' "my chat.md" '):
        target, _ = export_target(typed, str(root), str(home))
        assert target.shown == str(root / "my chat.md")
    refused('""', root, home, "needs a file name")
