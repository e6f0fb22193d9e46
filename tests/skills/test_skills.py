"""Skills: files in a temporary project; the CLI in-process and as a
process."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import pytest

from actors.errors import ConfigError
from actors.protocol import SkillPrompt
from actors.skills.frontmatter import parse
from actors.skills.invoke import list_commands, prepare
from actors.skills.skill import Skill
from actors.skills.skills import BUNDLED_SKILLS, find_skill, load_skill, render_skill
from frontends.demo.scripted_api import ScriptedServer, text
from frontends.skills.skill_commands import run_slash
from tests.home_project import first_prompt

if TYPE_CHECKING:
    from tests.frontends.conftest import Project

BUNDLED = sorted(name[:-3] for name in os.listdir(BUNDLED_SKILLS))
SPEC_SKILLS = {
    "commit", "sync", "review", "refactor", "generate-tests", "test", "docs", "init-project",
    "update-deps", "pre-deploy", "deploy", "generate-api-docs", "analyze-performance",
    "db-migrate", "db-rollback",
}  # fmt: skip


def skill(body: str) -> Skill:
    return Skill("s", "d", body, "s.md", bundled=False)


# ── front matter ────────────────────────────────────────────────────────────────────────────


def test_front_matter_values_are_typed() -> None:
    document = parse(
        '---\nname: x # a comment\nflag: true\ncount: 3\nquoted: "true"\n'
        "items: [a, 'b, c']\nargs:\n  - name: n\n    required: false\n---\n\nbody\n",
        "f.md",
    )
    assert document.fields == {
        "name": "x",
        "flag": True,
        "count": 3,
        "quoted": "true",
        "items": ["a", "b, c"],
        "args": [{"name": "n", "required": False}],
    }
    assert document.body == "body"
    assert document.body_line == 12
    assert document.line_of("args[0].required") == 9


@pytest.mark.parametrize(
    ("text", "line", "message"),
    [
        ("name: x\n", 1, "has no front matter"),
        ("---\nname: x\n", 1, "the front matter is not closed"),
        ("---\nname x\n---\nbody", 2, "expected 'field: value'"),
        ("---\nname: a\nname: b\n---\nbody", 3, "repeats the field 'name'"),
        ("---\nitems: [a, b\n---\nbody", 2, "is not closed with ']'"),
    ],
)
def test_front_matter_faults_name_the_line(text: str, line: int, message: str) -> None:
    with pytest.raises(ConfigError) as caught:
        parse(text, "/p/f.md")
    assert caught.value.line == line
    assert message in caught.value.message
    assert caught.value.message.startswith(f"/p/f.md:{line}")


# ── rendering ───────────────────────────────────────────────────────────────────────────────


def test_arguments_are_positional_and_one_based_like_a_shell() -> None:
    rendered = render_skill(
        skill("all=$ARGUMENTS first=$1 second=${2} ninth=$9 tenth=$10"), ["a", "b c"]
    )
    assert rendered == "all=a b c first=a second=b c ninth= tenth=a0"


def test_a_body_without_placeholders_gets_the_arguments_appended() -> None:
    assert render_skill(skill("1. Do it."), ["src/a.py", "fast"]) == (
        "1. Do it.\n\nARGUMENTS: src/a.py fast"
    )
    assert render_skill(skill("1. Do it."), []) == "1. Do it."


def test_quoted_arguments_stay_one_argument(project: Project) -> None:
    project.write(".legato/skills/echo.md", "---\nname: echo\ndescription: d\n---\n1. [$1] [$2]\n")
    task = prepare("echo", ["two words", "x"], str(project.root), home=str(project.home))
    assert isinstance(task, SkillPrompt)
    assert "1. [two words] [x]" in task.prompt


# ── files ───────────────────────────────────────────────────────────────────────────────────


def test_a_project_skill_overrides_the_bundled_one(project: Project) -> None:
    project.write(
        ".legato/skills/commit.md", "---\nname: commit\ndescription: Ours\n---\n1. Ours.\n"
    )
    found = find_skill(str(project.root), "commit")
    assert found is not None
    assert (found.description, found.bundled) == ("Ours", False)
    bundled = find_skill(str(project.root), "review")
    assert bundled is not None and bundled.bundled


@pytest.mark.parametrize(
    ("content", "field", "message"),
    [
        ("no front matter\n", None, "has no front matter"),
        ("---\ndescription: d\n---\n1. x\n", "name", "is missing"),
        ("---\nname: deploy-it\n---\n1. x\n", "description", "is missing"),
        (
            "---\nname: deploy-it\ndescription: [a, b]\n---\n1. x\n",
            "description",
            "non-empty string",
        ),
        ("---\nname: other\ndescription: d\n---\n1. x\n", "name", "invoked as /deploy-it"),
        ("---\nname: deploy-it\ndescription: d\n---\n\n", "body", "the body is empty"),
    ],
)
def test_test_names_the_file_and_the_field_and_fails(
    project: Project,
    capsys: pytest.CaptureFixture[str],
    content: str,
    field: str | None,
    message: str,
) -> None:
    path = project.write(".legato/skills/deploy-it.md", content)
    code = run_slash([str(project.root), "/deploy-it", "--test"])
    err = capsys.readouterr().err
    assert code == 2
    assert str(path) in err
    assert message in err
    if field:
        assert f"field '{field}'" in err


def test_test_renders_a_good_skill_with_sample_arguments(
    project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    project.write(
        ".legato/skills/greet.md", "---\nname: greet\ndescription: Hi\n---\n1. Greet $1 and $2.\n"
    )
    assert run_slash([str(project.root), "/greet", "--test"]) == 0
    out = capsys.readouterr().out
    assert "ok: skill /greet" in out
    assert "1. Greet sample-1 and sample-2." in out


def test_test_warns_about_a_body_without_numbered_steps(
    project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    project.write(
        ".legato/skills/loose.md", "---\nname: loose\ndescription: d\n---\nJust do $ARGS.\n"
    )
    assert run_slash([str(project.root), "/loose", "--test"]) == 0
    out = capsys.readouterr().out
    assert "warning: the body has no numbered steps" in out
    assert "warning: $ARGS is not a placeholder" in out


@pytest.mark.parametrize("name", BUNDLED)
def test_every_bundled_skill_passes_its_own_test(
    project: Project, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    assert run_slash([str(project.root), f"/{name}", "--test"]) == 0
    out = capsys.readouterr().out
    assert f"ok: skill /{name}" in out
    assert "  warning:" not in out
    loaded = load_skill(os.path.join(BUNDLED_SKILLS, f"{name}.md"), expected=name)
    assert len([line for line in loaded.body.splitlines() if line[:1].isdigit()]) >= 5


def test_the_bundled_library_has_every_skill_the_spec_names() -> None:
    assert set(BUNDLED) == SPEC_SKILLS


def test_help_lists_skills_with_their_descriptions(
    project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    project.write(
        ".legato/skills/lint.md", "---\nname: lint\ndescription: Run the linters\n---\n1. x\n"
    )
    project.write(".legato/skills/broken.md", "---\nname: broken\n---\n1. x\n")
    assert run_slash([str(project.root), "/help"]) == 0
    out = capsys.readouterr().out
    assert "/lint" in out and "Run the linters  (.legato/skills/lint.md)" in out
    assert "Commit the current changes with a clear, conventional message" in out
    assert "broken.md:1: field 'description': is missing" in out
    infos = {info.name: info for info in list_commands(str(project.root))}
    assert infos["lint"].kind == "skill" and not infos["lint"].bundled


def test_an_unknown_command_suggests_the_nearest(
    project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    assert run_slash([str(project.root), "/comit"]) == 2
    assert "Did you mean /commit?" in capsys.readouterr().err


# ── running, end to end ─────────────────────────────────────────────────────────────────────


def test_a_skill_runs_headless_with_its_arguments(project: Project) -> None:
    project.write(
        ".legato/skills/explain.md",
        "---\nname: explain\ndescription: Explain code\n---\n1. Read $1.\n2. Explain it for $2.\n",
    )
    with ScriptedServer([text("Explained.")]) as server:
        done = project.legato(server.url, "--headless", "/explain src/a.py 'new hires'")
        requests = server.requests
    assert done.returncode == 0, done.stderr
    assert done.stdout == "Explained.\n"
    prompt = first_prompt(requests[0].body)
    assert "Run the skill /explain: Explain code" in prompt
    assert "1. Read src/a.py.\n2. Explain it for new hires." in prompt


def test_slash_name_on_the_command_line_runs_the_skill(project: Project) -> None:
    with ScriptedServer([text("Committed.")]) as server:
        done = project.legato(server.url, "/commit", "keep it short")
        requests = server.requests
    assert done.returncode == 0, done.stderr
    prompt = first_prompt(requests[0].body)
    assert "Run the skill /commit" in prompt
    assert prompt.endswith("\n\nARGUMENTS: keep it short")


def test_a_skill_saved_with_windows_line_ends_loads(project: Project) -> None:
    path = project.root / ".legato" / "skills" / "crlf.md"
    path.parent.mkdir(parents=True)
    path.write_bytes(b"---\r\nname: crlf\r\ndescription: Saved on Windows\r\n---\r\n1. Do it.\r\n")
    skill = load_skill(str(path))
    assert (skill.name, skill.description, skill.body) == ("crlf", "Saved on Windows", "1. Do it.")
