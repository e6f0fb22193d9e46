"""Front matter read as YAML (PyYAML's safe loader): files written for Claude Code load, faults
name the file, the line and the field, and what is not plain data is refused."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import TYPE_CHECKING

import pytest

from actors.errors import ConfigError
from actors.protocol import SkillPrompt
from actors.skills.frontmatter import parse
from actors.skills.invoke import prepare
from actors.skills.patterns import load_pattern
from actors.skills.skills import load_skill
from frontends.skills.skill_commands import run_slash

if TYPE_CHECKING:
    from pathlib import Path

    from tests.frontends.conftest import Project

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

CLAUDE_CODE_SKILL = """\
---
# Written for Claude Code; Legato reads the fields it knows and leaves the rest.
name: release-notes
description: |
  Draft release notes from the commits since the last tag:
  group them, name breaking changes first.
allowed-tools:
  - Read
  - "Bash(git log:*)"
model: 'claude-sonnet-4-6'   # a quoted string, and a comment after it
version: 1.2
tags: [git, "docs, release"]
---

1. Read `git log $1..HEAD`.
2. Group the changes.
"""


def fault(text: str, path: str = "/p/s.md") -> ConfigError:
    with pytest.raises(ConfigError) as caught:
        parse(text, path)
    return caught.value


def test_a_claude_code_skill_with_a_block_description_loads(project: Project) -> None:
    path = project.write(".legato/skills/release-notes.md", CLAUDE_CODE_SKILL)
    document = parse(CLAUDE_CODE_SKILL, str(path))
    assert document.fields == {
        "name": "release-notes",
        "description": "Draft release notes from the commits since the last tag:\n"
        "group them, name breaking changes first.\n",
        "allowed-tools": ["Read", "Bash(git log:*)"],
        "model": "claude-sonnet-4-6",
        "version": 1.2,
        "tags": ["git", "docs, release"],
    }
    assert document.line_of("allowed-tools[1]") == 9
    assert document.body_line == 15
    skill = load_skill(str(path), expected="release-notes")
    # Shown in /help and at the head of the prompt, so the block becomes one line.
    assert skill.description == (
        "Draft release notes from the commits since the last tag: group them, name breaking "
        "changes first."
    )
    task = prepare("release-notes", ["v1.0"], str(project.root), home=str(project.home))
    assert isinstance(task, SkillPrompt)
    assert task.prompt.startswith(f"Run the skill /release-notes: {skill.description}\n")
    assert "1. Read `git log v1.0..HEAD`." in task.prompt


def test_yes_no_and_dates_stay_words_as_in_yaml_1_2(tmp_path: Path) -> None:
    path = tmp_path / "p.md"
    path.write_text(
        "---\nname: p\ndescription: d\nargs:\n  - name: answer\n    description: a\n"
        "    choices: [yes, no, on, off]\n    default: no\n  - name: day\n"
        "    description: d\n    default: 2026-01-31\n---\n## Template\n{{answer}} {{day}}\n"
    )
    pattern = load_pattern(str(path))
    assert pattern.args[0].choices == ("yes", "no", "on", "off")
    assert pattern.args[0].default == "no"
    assert pattern.args[1].default == "2026-01-31"


@pytest.mark.parametrize(
    ("text", "line", "field", "message"),
    [
        ("---\nname: s\ndescription: Deploy: staging first\n---\nbody", 3, "description",
         "a value holds ': ', which YAML reads as a new field"),
        ("---\nname: s\ntags: [a,\n  b\ndescription: d\n---\nbody", 3, "tags",
         "the list [...] is not closed with ']'"),
        ("---\nname: s\ndescription: 'unfinished\n---\nbody", 3, "description",
         "the quoted value is not closed"),
        ("---\nname: s\nargs:\n\t- name: a\n---\nbody", 4, "args", "is not valid YAML"),
        ("---\nname: s\nargs:\n  - name: a\n    name: b\n---\nbody", 5, "args[0].name",
         "repeats the field 'name'"),
    ],
)  # fmt: skip
def test_malformed_yaml_names_the_file_the_line_and_the_field(
    text: str, line: int, field: str, message: str
) -> None:
    error = fault(text)
    assert (error.path, error.line, error.field) == ("/p/s.md", line, field)
    assert message in error.message
    assert error.message.startswith(f"/p/s.md:{line}: field '{field}': ")
    assert error.remedy


def test_an_unquoted_colon_says_how_to_quote_it() -> None:
    error = fault("---\nname: s\ndescription: Deploy: staging first\n---\nbody")
    assert error.remedy == 'Put the value in quotes, as in description: "Deploy: staging first"'


def test_a_python_tag_is_refused_before_anything_is_built(tmp_path: Path) -> None:
    marker = tmp_path / "ran"
    error = fault(
        f"---\nname: s\ndescription: d\nhook: !!python/object/apply:os.system ['touch {marker}']"
        "\n---\nbody"
    )
    assert not marker.exists()
    assert error.line == 4
    assert error.field == "hook"
    assert "the tag !!python/object/apply:os.system is not allowed" in error.message


@pytest.mark.parametrize("tag", ["!!binary aGk=", "!!set {a, b}", "!local x"])
def test_tags_beyond_plain_data_are_refused(tag: str) -> None:
    error = fault(f"---\nname: s\ndescription: d\nextra: {tag}\n---\nbody")
    assert (error.line, error.field) == (4, "extra")
    assert "is not allowed" in error.message


def test_an_alias_bomb_is_refused_at_its_first_alias() -> None:
    # Each line holds nine of the one before: safe_load would hand over 9**6 references.
    lines = ['a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for level in range(1, 7):
        name, previous = chr(97 + level), chr(96 + level)
        lines.append(f"{name}: &{name} [{', '.join(['*' + previous] * 9)}]")
    error = fault("---\nname: s\ndescription: d\n" + "\n".join(lines) + "\n---\nbody")
    assert (error.line, error.field) == (5, "b")
    assert "*a repeats another value (an alias)" in error.message


def test_nesting_without_end_is_a_fault_not_a_crash() -> None:
    error = fault("---\nname: s\ndescription: d\ndeep: " + "[" * 5000 + "\n---\nbody")
    assert (error.line, error.field) == (4, "deep")
    assert "nests lists or fields more than 32 deep" in error.message
    assert parse("---\nok: " + "[" * 31 + "]" * 31 + "\n---\nbody", "p.md").fields["ok"]


def test_test_reports_a_yaml_fault_with_the_file_and_the_line(
    project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    path = project.write(
        ".legato/skills/ship.md", "---\nname: ship\ndescription: Ship it: now\n---\n1. Ship.\n"
    )
    assert run_slash([str(project.root), "/ship", "--test"]) == 2
    err = capsys.readouterr().err
    assert f"{path}:3: field 'description': a value holds ': '" in err
    assert "→ Put the value in quotes" in err


def test_a_session_imports_neither_yaml_nor_the_library_until_a_skill_is_read() -> None:
    probe = (
        "import sys\n"
        "import frontends.cli, frontends.session, frontends.headless\n"
        "import frontends.skills.skill_commands\n"
        "import frontends.interactive.app\n"
        # The composition root imports an actor's package when it builds it, as a session does.
        "import actors.skills\n"
        "print(sorted(m for m in sys.modules if m.startswith(('yaml', 'actors.skills.'))))\n"
        "from actors.skills.frontmatter import parse\n"
        "parse('---\\nname: x\\n---\\nbody', 'x.md')\n"
        "print('yaml' in sys.modules)\n"
        "parse('---\\nname: x\\nmax: 3\\n---\\nbody', 'x.md')\n"
        "print('yaml' in sys.modules)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=REPO, check=True
    )
    # Plain fields are read without PyYAML; a number (or a list...) is YAML's to read.
    assert done.stdout.splitlines() == ["['actors.skills.actor']", "False", "True"]
