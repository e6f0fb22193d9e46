"""Patterns: real files in a temporary project, the CLI in-process and as
a process against the scripted model server."""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING

import pytest

from actors.errors import UsageError
from actors.protocol import SkillPrompt
from actors.skills.invoke import prepare
from actors.skills.mockdata import generate
from actors.skills.patterns import (
    BUNDLED_PATTERNS,
    bind,
    find_pattern,
    load_pattern,
    pattern_files,
    render,
)
from frontends.demo.scripted_api import ScriptedServer, text
from frontends.skills.skill_commands import pattern_stats, run_slash
from tests.home_project import first_prompt

if TYPE_CHECKING:
    from tests.frontends.conftest import Project

SERVICE = """\
---
name: service-class
description: Create a service class
args:
  - name: name
    description: The service's name
    required: true
  - name: style
    description: How it is written
    choices: [sync, async]
    default: async
  - name: config
    description: Settings as JSON
    type: json
---
## Generates
- {{Name}}Service ({{style}})
## Steps
1. Write {{name}} with {{config}}.
## Template
class {{Name}}Service: pass  # {{NAME}}
"""

# The bundled patterns' arguments: name -> [(arg, required, choices, default)].
SPEC_ARGS: dict[str, list[tuple[str, bool, tuple[str, ...] | None, str | None]]] = {
    "crud-gen": [("entity", True, None, None), ("fields", True, None, None)],
    "api-endpoint": [
        ("resource", True, None, None),
        ("method", True, ("GET", "POST", "PUT", "DELETE", "PATCH"), None),
    ],
    "react-component": [
        ("name", True, None, None),
        ("type", False, ("functional", "class", "hook"), "functional"),
    ],
    "test-suite": [("target", True, None, None)],
    "mock-data": [("schema", True, None, None), ("count", False, None, "10")],
    "extract-function": [("file", True, None, None), ("selection", False, None, None)],
    "extract-component": [("file", True, None, None)],
    "api-docs": [("format", False, ("openapi", "markdown", "postman"), "openapi")],
    "readme-gen": [],
    "db-migration": [
        ("action", True, ("create_table", "add_column", "remove_column", "modify_column"), None),
        ("table", True, None, None),
    ],
    "db-seed": [("table", True, None, None)],
    "deploy-script": [("environment", True, ("staging", "production"), None)],
}


@pytest.fixture
def service(project: Project) -> Project:
    project.write(".legato/patterns/my-service.md", SERVICE)  # the file name differs on purpose
    project.write(".legato/patterns/README.md", "# Our patterns\n")
    return project


# ── arguments ───────────────────────────────────────────────────────────────────────────────


def test_arguments_bind_in_order_with_defaults_applied(service: Project) -> None:
    pattern = find_pattern(str(service.root), "service-class")
    assert pattern is not None and not pattern.bundled
    assert bind(pattern, ["billing"]) == {"name": "billing", "style": "async", "config": ""}
    assert bind(pattern, ["billing", "SYNC", "{}"])["style"] == "sync"  # the choice's spelling


def test_a_missing_required_argument_is_named(service: Project) -> None:
    pattern = find_pattern(str(service.root), "service-class")
    assert pattern is not None
    with pytest.raises(UsageError) as caught:
        bind(pattern, [])
    assert caught.value.message == "/service-class needs the argument 'name' (The service's name)"
    assert caught.value.remedy == "Usage: /service-class <name> [sync|async] [config]"


def test_a_value_outside_the_choices_lists_the_allowed_ones(service: Project) -> None:
    pattern = find_pattern(str(service.root), "service-class")
    assert pattern is not None
    with pytest.raises(UsageError, match=r"'style' is 'threads'; allowed: sync, async"):
        bind(pattern, ["billing", "threads"])


def test_bad_json_says_where_it_breaks(service: Project) -> None:
    pattern = find_pattern(str(service.root), "service-class")
    assert pattern is not None
    with pytest.raises(UsageError) as caught:
        bind(pattern, ["billing", "sync", '{"a": 1,, "b": 2}'])
    assert caught.value.message == (
        "/service-class: 'config' is not valid JSON: Expecting property name enclosed in double "
        'quotes at line 1, column 9\n    {"a": 1,, "b": 2}\n            ^'
    )


def test_an_integer_of_5000_digits_is_a_usage_error_not_a_crash(service: Project) -> None:
    # The standard library's parser raises a plain ValueError past 4300 digits.
    pattern = find_pattern(str(service.root), "service-class")
    assert pattern is not None
    with pytest.raises(UsageError, match="'config' holds a number too large to read"):
        bind(pattern, ["billing", "sync", '{"a": ' + "9" * 5000 + "}"])
    with pytest.raises(UsageError, match="'schema' holds a number too large to read"):
        generate('{"a": ' + "9" * 5000 + "}")
    mock = find_pattern(str(service.root), "mock-data")
    assert mock is not None
    with pytest.raises(UsageError, match="'count' is a whole number of 5000 digits, too large"):
        bind(mock, ['{"a": "string"}', "9" * 5000])


def test_too_many_arguments_are_refused(service: Project) -> None:
    pattern = find_pattern(str(service.root), "service-class")
    assert pattern is not None
    with pytest.raises(UsageError, match="takes 3 argument"):
        bind(pattern, ["a", "sync", "{}", "extra"])


def test_placeholders_render_as_given_pascal_and_upper(service: Project) -> None:
    pattern = find_pattern(str(service.root), "service-class")
    assert pattern is not None
    rendered = render(pattern, bind(pattern, ["billing-account", "sync", '{"x": 1}']))
    assert "- BillingAccountService (sync)" in rendered
    assert '1. Write billing-account with {"x": 1}.' in rendered
    assert "class BillingAccountService: pass  # BILLING_ACCOUNT" in rendered


# ── files ───────────────────────────────────────────────────────────────────────────────────


def test_readme_and_changelog_are_not_patterns(service: Project) -> None:
    service.write(".legato/patterns/CHANGELOG.md", "# Changes\n")
    names = [os.path.basename(p) for p in pattern_files(str(service.root / ".legato/patterns"))]
    assert names == ["my-service.md"]


def test_a_project_pattern_overrides_the_bundled_one(project: Project) -> None:
    project.write(
        ".legato/patterns/ours.md",
        "---\nname: readme-gen\ndescription: Our README\n---\n## Template\nOurs.\n",
    )
    pattern = find_pattern(str(project.root), "readme-gen")
    assert pattern is not None
    assert (pattern.description, pattern.bundled) == ("Our README", False)


@pytest.mark.parametrize(
    ("args", "field", "message"),
    [
        ("args:\n  - name: a\n    description: d\n    required: yes\n",
         "args[0].required", "true or false"),
        ("args:\n  - name: a\n    description: d\n    choices: [x, y]\n    default: z\n",
         "args[0].default", "'z' is not one of the choices x, y"),
        ("args:\n  - name: a\n    description: d\n    required: true\n    default: x\n",
         "args[0].default", "a required argument never uses its default"),
        ("args:\n  - name: a\n", "args[0].description", "must be a non-empty string"),
        ("args:\n  - name: a\n    description: d\n    colour: red\n",
         "args[0].colour", "not an argument field"),
        ("args:\n  - name: a\n    description: d\n    type: json\n    default: '{oops'\n",
         "args[0].default", "is not valid JSON"),
        ("args: 3\n", "args", "must be a list"),
        ("generator: mock-data\nargs:\n  - name: a\n    description: d\n",
         "generator", "needs the arguments schema and count"),
    ],
)  # fmt: skip
def test_test_reports_front_matter_faults_with_file_and_field(
    project: Project, capsys: pytest.CaptureFixture[str], args: str, field: str, message: str
) -> None:
    path = project.write(
        ".legato/patterns/p.md",
        f"---\nname: p\ndescription: d\n{args}---\n## Template\n{{{{a}}}}\n",
    )
    assert run_slash([str(project.root), "/p", "--test"]) == 2
    err = capsys.readouterr().err
    assert str(path) in err
    assert f"field '{field}'" in err
    assert message in err


def test_test_reports_an_unbound_placeholder_with_its_line(
    project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    path = project.write(
        ".legato/patterns/p.md",
        "---\nname: p\ndescription: d\nargs:\n  - name: table\n    description: t\n---\n"
        "## Steps\n1. Seed {{table}}.\n2. Then {{tabel}}.\n",
    )
    assert run_slash([str(project.root), "/p", "--test"]) == 2
    err = capsys.readouterr().err
    assert f"{path}:10: field 'body': the placeholder {{{{tabel}}}} is bound to no argument" in err


def test_test_renders_a_good_pattern_with_sample_arguments(
    service: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_slash([str(service.root), "/service-class", "--test"]) == 0
    out = capsys.readouterr().out
    assert "ok: pattern /service-class" in out
    assert "class SampleNameService: pass  # SAMPLE_NAME" in out


@pytest.mark.parametrize("name", sorted(SPEC_ARGS))
def test_every_bundled_pattern_passes_its_own_test(
    project: Project, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    assert run_slash([str(project.root), f"/{name}", "--test"]) == 0
    out = capsys.readouterr().out
    assert f"ok: pattern /{name}" in out
    assert "  warning:" not in out  # an optional argument left out leaves no hole either
    assert "CHANGELOG.md: 3 version(s), format ok" in out


def test_the_bundled_patterns_have_exactly_the_specs_parameters() -> None:
    found = {}
    for path in pattern_files(BUNDLED_PATTERNS):
        pattern = load_pattern(path, bundled=True)
        found[pattern.name] = [(a.name, a.required, a.choices, a.default) for a in pattern.args]
    assert found == SPEC_ARGS


def test_the_bundled_patterns_carry_the_specs_rules() -> None:
    def body(name: str) -> str:
        pattern = find_pattern("/nonexistent", name)
        assert pattern is not None
        return pattern.body

    crud = body("crud-gen")
    for route in ("GET /api/{{entity}}", "GET /api/{{entity}}/:id", "POST /api/{{entity}}",
                  "PUT /api/{{entity}}/:id", "DELETE /api/{{entity}}/:id"):  # fmt: skip
        assert route in crud
    assert "statements >= 80%, branches >= 75%, functions >= 90%" in body("test-suite")
    assert "at most 3 parameters" in body("extract-function")
    assert "over 50 lines" in body("extract-component")
    migration = body("db-migration")
    for operation in ("create table", "add column", "remove column", "modify column",
                      "add index", "add foreign key"):  # fmt: skip
        assert f"{operation}: up" in migration
    assert "reversible; it includes rollback logic; it is tested; data is backed up" in migration
    deploy = body("deploy-script")
    for stage in ("pre-checks", "build", "deploy", "verification", "rollback on failure"):
        assert stage in deploy


# ── the changelog ───────────────────────────────────────────────────────────────────────────

GOOD_CHANGELOG = """\
# Changelog

## v1.1.0 - 2026-11-20
### Added
- service-class: a new pattern
### Fixed
- `service-class`: the template

## v1.0.0 - 2026-10-01
### Improved
- crud-gen: pagination
"""


@pytest.mark.parametrize(
    ("changelog", "message"),
    [
        (GOOD_CHANGELOG.replace("v1.1.0 - 2026-11-20", "v1.1 - 2026-11-20"), "is not 'v<major>"),
        (GOOD_CHANGELOG.replace("2026-11-20", "20th Nov"), "the date '20th Nov' is not YYYY-MM-DD"),
        (
            GOOD_CHANGELOG.replace("### Fixed", "### Changed"),
            "the sub-heading 'Changed' is not one",
        ),
        (
            GOOD_CHANGELOG.replace("- crud-gen: pagination", "- faster everywhere"),
            "names no pattern",
        ),
        (GOOD_CHANGELOG.replace("v1.0.0", "v1.2.0"), "not listed newest first"),
        # Past 4300 digits Python builds no integer: it ended in a ValueError traceback.
        (GOOD_CHANGELOG.replace("v1.0.0", "v1.0." + "9" * 5000), "is not 'v<major>"),
        (
            GOOD_CHANGELOG.replace("- crud-gen: pagination\n", ""),
            "the Improved section has no bullet",
        ),
    ],
)
def test_test_checks_the_projects_changelog(
    service: Project, capsys: pytest.CaptureFixture[str], changelog: str, message: str
) -> None:
    path = service.write(".legato/patterns/CHANGELOG.md", changelog)
    assert run_slash([str(service.root), "/service-class", "--test"]) == 2
    err = capsys.readouterr().err
    assert str(path) in err
    assert message in err


def test_a_good_changelog_passes(service: Project, capsys: pytest.CaptureFixture[str]) -> None:
    service.write(".legato/patterns/CHANGELOG.md", GOOD_CHANGELOG)
    assert run_slash([str(service.root), "/service-class", "--test"]) == 0
    assert "CHANGELOG.md: 2 version(s), format ok" in capsys.readouterr().out


# ── mock data ───────────────────────────────────────────────────────────────────────────────

SCHEMA = json.dumps(
    {"id": "uuid", "name": "string", "age": "number", "active": "boolean", "born": "date",
     "email": "email", "site": "url", "address": {"city": "string"}}
)  # fmt: skip


def test_mock_data_renders_without_a_model_call(project: Project) -> None:
    with ScriptedServer([]) as server:
        done = project.legato(server.url, "/mock-data", SCHEMA, "--seed", "7")
        again = project.legato(server.url, "--headless", f"/mock-data '{SCHEMA}' --seed 7")
        requests = server.requests
    assert done.returncode == 0, done.stderr
    assert requests == []
    records = json.loads(done.stdout)
    assert len(records) == 10  # the default count
    assert again.stdout == done.stdout  # the same seed, the same records
    first = records[0]
    assert set(first) == {"id", "name", "age", "active", "born", "email", "site", "address"}
    assert len(first["id"]) == 36 and first["id"][14] == "4"
    assert isinstance(first["age"], int) and isinstance(first["active"], bool)
    assert len(first["born"]) == 10 and first["born"][4] == "-"
    assert "@" in first["email"] and first["site"].startswith("https://")
    assert isinstance(first["address"]["city"], str)


def test_mock_data_count_and_errors(project: Project, capsys: pytest.CaptureFixture[str]) -> None:
    root = str(project.root)
    assert run_slash([root, "/mock-data", '{"a": "email"}', "3"]) == 0
    assert len(json.loads(capsys.readouterr().out)) == 3
    assert run_slash([root, "/mock-data", '{"a": "colour"}']) == 2
    assert "'schema' has the field 'a' of type \"colour\"" in capsys.readouterr().err
    assert run_slash([root, "/mock-data", '{"a": "email"}', "many"]) == 2
    assert "'count' 'many' is not a whole number" in capsys.readouterr().err
    assert run_slash([root, "/mock-data", '{"a": email}']) == 2
    assert "column 7" in capsys.readouterr().err


# ── running and counting ────────────────────────────────────────────────────────────────────


def test_a_pattern_run_hands_the_rendered_template_to_the_model(project: Project) -> None:
    with ScriptedServer([text("Generated.")]) as server:
        done = project.legato(
            server.url, "/crud-gen", "product", '{"name": "string", "price": "number"}'
        )
        requests = server.requests
    assert done.returncode == 0, done.stderr
    prompt = first_prompt(requests[0].body)
    assert 'Arguments: entity=product, fields={"name": "string", "price": "number"}' in prompt
    assert "GET    /api/product/:id      -> getProduct(id)" in prompt
    assert "{{" not in prompt


def test_a_bad_argument_stops_before_any_model_call(project: Project) -> None:
    with ScriptedServer([]) as server:
        done = project.legato(server.url, "/api-endpoint", "users", "FETCH")
        requests = server.requests
    assert done.returncode == 2
    assert requests == []
    assert "'method' is 'FETCH'; allowed: GET, POST, PUT, DELETE, PATCH" in done.stderr


def test_pattern_stats_count_runs_but_not_tests(
    service: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    root, home = str(service.root), str(service.home)
    for _ in range(2):
        assert isinstance(prepare("service-class", ["a"], root, home=home), SkillPrompt)
    prepare("mock-data", ['{"a": "uuid"}'], root, home=home)
    assert run_slash([root, "/service-class", "--test"]) == 0
    capsys.readouterr()
    assert pattern_stats(root, home=home) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "service-class 2" in lines
    assert "mock-data 1" in lines
    assert "crud-gen 0" in lines
    assert len(lines) == 13  # one line per pattern: twelve bundled and one of the project's


def test_pattern_stats_persist_across_processes(project: Project) -> None:
    with ScriptedServer([]) as server:
        project.legato(server.url, "/mock-data", '{"a": "uuid"}', "1")
        project.legato(server.url, "/mock-data", '{"a": "uuid"}', "1")
        done = project.legato(server.url, "--pattern-stats")
    assert done.returncode == 0, done.stderr
    assert "mock-data 2\n" in done.stdout
    assert "api-docs 0\n" in done.stdout


def test_session_flags_pass_through_to_the_headless_run(project: Project) -> None:
    with ScriptedServer([text("Done.")]) as server:
        done = project.legato(
            server.url, "/db-seed", "users", "--output-format", "json", "--model", "haiku"
        )
        requests = server.requests
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["result"] == "Done."
    assert requests[0].body["model"] == "claude-haiku-4-5-20251001"
    assert "Run the pattern /db-seed" in first_prompt(requests[0].body)
