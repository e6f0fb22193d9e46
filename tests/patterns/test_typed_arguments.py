"""A pattern's typed arguments checked to the end, and the library's README and changelog put
where the specification keeps them; run as a user runs them, as processes."""

from __future__ import annotations

from typing import TYPE_CHECKING

import pytest

from actors.skills.patterns import BUNDLED_PATTERNS
from frontends.demo.scripted_api import ScriptedServer, text
from tests.home_project import first_prompt

if TYPE_CHECKING:
    from tests.frontends.conftest import Project

NO_SERVER = "http://127.0.0.1:9"  # none of these runs reaches a model
ARE = "; the types are string, number, boolean, date, email, url, uuid"


NOT_AN_OBJECT = "must be a JSON object of field names to type names, not"


@pytest.mark.parametrize(
    ("fields", "problem"),
    [
        ('{"name": "string", "price": "money"}', f"""has the field 'price' of type "money"{ARE}"""),
        ('{"dims": {"depth": 3}}', f"has the field 'dims.depth' of type 3{ARE}"),
        ('["name", "price"]', f"{NOT_AN_OBJECT} list ['name', 'price']"),
        ("{}", f"{NOT_AN_OBJECT} an empty object"),
        ('"name"', f"{NOT_AN_OBJECT} str 'name'"),
    ],
)  # fmt: skip
def test_crud_gen_fields_name_the_bad_entry(project: Project, fields: str, problem: str) -> None:
    with ScriptedServer([]) as server:
        done = project.legato(server.url, "/crud-gen", "product", fields)
        requests = server.requests
    assert requests == []
    assert done.returncode == 2
    message, remedy = done.stderr.splitlines()
    assert message.startswith(f"legato: /crud-gen: 'fields' {problem}")
    assert remedy == "  → Usage: /crud-gen <entity> <fields>"


def test_crud_gen_with_typed_fields_reaches_the_model(project: Project) -> None:
    fields = '{"name": "string", "price": "number", "added": "date"}'
    with ScriptedServer([text("Generated.")]) as server:
        done = project.legato(server.url, "/crud-gen", "product", fields)
        requests = server.requests
    assert done.returncode == 0, done.stderr
    assert f"Arguments: entity=product, fields={fields}" in first_prompt(requests[0].body)


def test_patterns_init_puts_the_readme_and_changelog_in_the_project(project: Project) -> None:
    before = project.legato(NO_SERVER, "/patterns")
    assert before.returncode == 0, before.stderr
    assert before.stdout.splitlines() == [
        "Pattern library: .legato/patterns/",
        "  README.md: missing",
        "  CHANGELOG.md: missing",
        "  → Run 'legato /patterns init' to write the missing ones from Legato's own",
    ]
    project.write(".legato/patterns/CHANGELOG.md", "## v2.0.0 - 2026-11-24\n### Added\n- x\n")
    done = project.legato(NO_SERVER, "/patterns", "init")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "Created .legato/patterns/README.md",
        "Kept .legato/patterns/CHANGELOG.md as it is",
        "",
        "Pattern library: .legato/patterns/",
        "  README.md: present",
        "  CHANGELOG.md: present",
    ]
    library = project.root / ".legato" / "patterns"
    with open(f"{BUNDLED_PATTERNS}/README.md", encoding="utf-8") as bundled:
        assert (library / "README.md").read_text() == bundled.read()
    assert (library / "CHANGELOG.md").read_text().startswith("## v2.0.0")
    # The new README is the library's document, not a pattern: /help does not list it.
    listed = project.legato(NO_SERVER, "/help")
    assert "/README" not in listed.stdout and "Not loaded" not in listed.stdout


def test_patterns_takes_only_init(project: Project) -> None:
    done = project.legato(NO_SERVER, "/patterns", "setup")
    assert done.returncode == 2
    assert done.stderr.splitlines() == [
        "legato: /patterns takes no argument but 'init', not 'setup'",
        "  → Run 'legato /patterns init' to create the library's README and changelog",
    ]
    assert not (project.root / ".legato").exists()
    assert done.stdout == ""


def test_patterns_init_writes_nothing_through_a_link(project: Project) -> None:
    library = project.root / ".legato" / "patterns"
    library.mkdir(parents=True)
    (library / "README.md").symlink_to(project.home / "planted.md")  # a link to nothing yet
    done = project.legato(NO_SERVER, "/patterns", "init")
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[:2] == [
        "Kept .legato/patterns/README.md as it is",
        "Created .legato/patterns/CHANGELOG.md",
    ]
    assert not (project.home / "planted.md").exists()


def test_patterns_init_refuses_a_library_folder_linked_out(project: Project) -> None:
    outside = project.home / "elsewhere"
    outside.mkdir()
    (project.root / ".legato").mkdir()
    (project.root / ".legato" / "patterns").symlink_to(outside)
    done = project.legato(NO_SERVER, "/patterns", "init")
    assert done.returncode == 2
    assert f"README.md: is not written: its folder leads to {outside}, outside the project" in (
        done.stderr
    )
    assert list(outside.iterdir()) == []
