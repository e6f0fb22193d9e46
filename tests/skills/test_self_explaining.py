"""Skills and patterns that explain themselves, run as a user runs them: ``legato /<name> --test``
and ``legato /help`` as processes, a skill's prompt as the scripted model server receives it."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import pytest

from actors.protocol import CheckCommand
from actors.skills.skills import BUNDLED_SKILLS
from frontends.demo.scripted_api import ScriptedServer, text
from frontends.skills.skill_commands import ask_library
from frontends.skills.skill_report import hang, report_text
from tests.home_project import first_prompt

if TYPE_CHECKING:
    from tests.frontends.conftest import Project

NO_SERVER = "http://127.0.0.1:9"  # none of these runs reaches a model

BROKEN_PATTERN = """\
---
name: service-class
description:
args:
  - name: name
    description: The service's name
    required: maybe
  - name: style
    description: How it is written
    choices: [sync, async]
    default: threads
    colour: red
---
## Generates
- {{Name}}Service
- {{nmae}}Service
"""

BROKEN_SKILL = """\
---
name: ship-it
---
"""


def test_a_broken_pattern_is_found_by_its_front_matter_name_with_every_fault(
    project: Project,
) -> None:
    path = project.write(".legato/patterns/services.md", BROKEN_PATTERN)
    done = project.legato(NO_SERVER, "/service-class", "--test")
    assert done.returncode == 2
    assert done.stdout == ""
    assert done.stderr.splitlines() == [
        f"legato: {path}: 5 faults:",
        f"  {path}:3: field 'description': must be a non-empty string, not empty",
        '    → Write it as description: "some text"',
        f"  {path}:7: field 'args[0].required': must be true or false, not 'maybe'",
        "    → Fix the front matter (see docs/skills-and-patterns.md for its format)",
        f"  {path}:12: field 'args[1].colour': is not an argument field",
        "    → Use only choices, default, description, name, required, type",
        f"  {path}:11: field 'args[1].default': 'threads' is not one of the choices sync, async",
        "    → Fix the front matter (see docs/skills-and-patterns.md for its format)",
        f"  {path}:16: field 'body': the placeholder {{{{nmae}}}} is bound to no argument "
        "(arguments: name, style)",
        "    → Add the argument to 'args', or fix the placeholder's spelling",
    ]
    by_file_name = project.legato(NO_SERVER, "/services", "--test")
    assert by_file_name.returncode == 2
    assert by_file_name.stderr == done.stderr


@pytest.mark.parametrize("name", ["release", "ship-it"])
def test_a_broken_skill_is_found_by_either_name(project: Project, name: str) -> None:
    path = project.write(".legato/skills/release.md", BROKEN_SKILL)
    done = project.legato(NO_SERVER, f"/{name}", "--test")
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        f"legato: {path}: 3 faults:",
        f"  {path}:1: field 'description': is missing",
        "    → Add 'description: ...' to the front matter",
        f"  {path}:2: field 'name': is 'ship-it', but the skill is invoked as /release",
        "    → Set 'name: release', or rename the file to ship-it.md",
        f"  {path}:4: field 'body': the body is empty",
        "    → Write the numbered steps the assistant should follow below the front matter",
    ]


def test_running_a_broken_pattern_names_its_faults_not_an_unknown_command(
    project: Project,
) -> None:
    project.write(".legato/patterns/services.md", BROKEN_PATTERN)
    with ScriptedServer([]) as server:
        done = project.legato(server.url, "/service-class", "Billing")
        requests = server.requests
    assert requests == []
    assert done.returncode == 2
    assert "services.md: 4 faults:" in done.stderr  # what --test adds is about the body
    assert "is not a skill or a pattern" not in done.stderr


def test_a_clean_file_passes_with_one_line_per_warning(project: Project) -> None:
    project.write(
        ".legato/skills/greet.md",
        "---\nname: greet\ndescription: Greet someone\n---\n1. Say hello to $1 warmly.\n",
    )
    done = project.legato(NO_SERVER, "/greet", "--test")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[:2] == [
        f"ok: skill /greet ({project.root}/.legato/skills/greet.md)",
        "  warning: line 5: without arguments it is sent as '1. Say hello to  warmly.'; "
        "refer to 'the arguments' in words instead (Legato appends them as 'ARGUMENTS: ...' "
        "only when some are given)",
    ]


@pytest.mark.parametrize("name", sorted(n[:-3] for n in os.listdir(BUNDLED_SKILLS)))
def test_no_bundled_skill_sends_dangling_text_without_arguments(
    project: Project, name: str
) -> None:
    with ScriptedServer([text("Done.")]) as server:
        done = project.legato(server.url, f"/{name}")
        requests = server.requests
    assert done.returncode == 0, done.stderr
    prompt = first_prompt(requests[0].body)
    with open(os.path.join(BUNDLED_SKILLS, f"{name}.md"), encoding="utf-8") as file:
        body = file.read().split("---\n", 2)[2].strip()
    # The steps as written, with nothing filled in and nothing appended.
    assert prompt.endswith(f"Follow these steps in order.\n\n{body}")
    # What ``--test`` prints, asked of the library in-process: the tests above run ``--test``
    # as a process, and a process per bundled skill would only repeat its start.
    checked = ask_library(str(project.root), CheckCommand(name=name), home=str(project.home))
    assert "  warning:" not in report_text(checked)


def test_help_lists_skills_and_patterns_apart_with_their_arguments(project: Project) -> None:
    project.write(".legato/patterns/services.md", BROKEN_PATTERN)
    project.write(
        ".legato/skills/greet.md",
        "---\nname: greet\ndescription: Greet someone\nargument-hint: <who>\n---\n1. Greet.\n",
    )
    done = project.legato(NO_SERVER, "/help")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    skills = lines.index("Skills and commands (run one: legato /<name> [args]):")
    patterns = lines.index("Patterns (run one: legato /<name> <required> [optional]):")
    built_in = lines.index("Built in:")
    broken = lines.index("Not loaded (fix these files):")
    assert skills < patterns < built_in < broken
    skill_rows = lines[skills + 1 : patterns - 1]
    pattern_rows = lines[patterns + 1 : built_in - 1]
    assert "  /deploy <staging|production>" in {row[:30] for row in skill_rows}
    column = skill_rows[0].index("Find the performance")  # /analyze-performance's description
    assert (
        skill_rows[0]
        == "  /analyze-performance [code path]".ljust(column)
        + "Find the performance bottlenecks in the given code path and propose measured fixes"
    )
    assert skill_rows[-1].startswith("  /update-deps [packages]".ljust(column))
    greet = next(row for row in skill_rows if row.startswith("  /greet "))
    assert greet == "  /greet <who>".ljust(column) + "Greet someone  (.legato/skills/greet.md)"
    crud = next(row for row in pattern_rows if row.startswith("  /crud-gen "))
    assert crud.startswith("  /crud-gen <entity> <fields>".ljust(column) + "Generate create")
    assert lines[broken + 1] == (
        "  /service-class".ljust(column) + ".legato/patterns/services.md: 4 faults"
    )
    assert "legato /<name> --test checks one and shows it rendered, listing every fault." in lines


def test_a_pattern_run_without_its_optional_argument_leaves_no_hole(project: Project) -> None:
    with ScriptedServer([text("Extracted.")]) as server:
        done = project.legato(server.url, "/extract-function", "src/shop.py")
        requests = server.requests
    assert done.returncode == 0, done.stderr
    prompt = first_prompt(requests[0].body)
    assert "\nArguments: file=src/shop.py\n" in prompt
    assert "# extract-function: src/shop.py\n" in prompt
    assert "`{{" not in prompt and "``;" not in prompt and "{{" not in prompt
    assert (
        "Extract the lines the arguments above give as `selection`; without a selection" in prompt
    )


def test_test_shows_how_a_left_out_optional_argument_is_sent(project: Project) -> None:
    project.write(
        ".legato/patterns/hole.md",
        "---\nname: review-file\ndescription: Review a file\nargs:\n"
        "  - name: file\n    description: The file\n    required: true\n"
        "  - name: focus\n    description: What to look at\n---\n"
        "## Generates\n- notes\n## Steps\n1. Read {{file}} looking at {{focus}}.\n"
        "## Template\n{{file}}\n",
    )
    checked = project.legato(NO_SERVER, "/review-file", "--test")
    assert checked.returncode == 0, checked.stderr
    assert checked.stdout.splitlines()[1] == (
        "  warning: line 14: without focus it is sent as '1. Read {{file}} looking at .'; "
        "give the argument a default, or refer to it in words"
    )


def test_a_skill_whose_names_disagree_is_not_run_by_either(project: Project) -> None:
    path = project.write(
        ".legato/skills/release.md", "---\nname: ship-it\ndescription: Ship\n---\n1. Ship.\n"
    )
    with ScriptedServer([]) as server:
        runs = [project.legato(server.url, name) for name in ("/release", "/ship-it")]
        requests = server.requests
    assert requests == []
    for done in runs:
        assert done.returncode == 2
        assert done.stderr.splitlines() == [
            f"legato: {path}:2: field 'name': is 'ship-it', but the skill is invoked as /release",
            "  → Set 'name: release', or rename the file to ship-it.md",
        ]


def test_a_long_description_wraps_under_its_column() -> None:
    listing = (
        "Patterns (run one: /<name> <required> [optional]):\n"
        "  /db-seed <table>    Write a seed script that fills a table with data\n"
        "  /api-endpoint <resource> <GET|POST|PUT|DELETE|PATCH>\n"
        "                      Add one API endpoint for a resource, with validation\n"
        "Memory: /home/me/.legato/projects/0123456789abcdef/memory"
    )
    assert hang(listing, 50) == [
        "Patterns (run one: /<name> <required> [optional]):",
        "  /db-seed <table>    Write a seed script that",
        "                      fills a table with data",
        "  /api-endpoint <resource> <GET|POST|PUT|DELETE|PATCH>",
        "                      Add one API endpoint for a",
        "                      resource, with validation",
        "Memory: /home/me/.legato/projects/0123456789abcdef/memory",  # not a row: left as is
    ]
    assert hang(listing, 200) == listing.splitlines()
