"""Subagent type files: their front matter, where they are found, and how a bad one is told."""

from __future__ import annotations

from typing import TYPE_CHECKING

from actors.models import resolve_model
from actors.skills.agents import list_agents

if TYPE_CHECKING:
    from pathlib import Path


def write(folder: Path, name: str, text: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{name}.md"
    path.write_text(text)
    return path


def folders(tmp_path: Path) -> tuple[Path, Path, Path, Path]:
    root, home = tmp_path / "project", tmp_path / "home"
    return root, home, root / ".legato" / "agents", home / ".config" / "legato" / "agents"


def test_tools_as_a_list_or_comma_separated_and_the_model_as_alias_or_inherit(
    tmp_path: Path,
) -> None:
    root, home, project, user = folders(tmp_path)
    write(
        project,
        "a",
        "---\nname: a\ndescription: First.\ntools: Read, Grep\nmodel: haiku\n---\nBe A.\n",
    )
    write(
        project,
        "b",
        "---\nname: b\ndescription: |\n  Second,\n  on two lines.\n"
        "tools:\n  - Bash\n  - Read\nmodel: inherit\n---\nBe B.\n",
    )
    write(user, "c", "---\nname: c\ndescription: Third.\ncolor: blue\n---\nBe C.\n")
    found = list_agents(str(root), str(home))
    assert found.faults == ()
    a, b, c = found.types
    assert (a.name, a.tools, a.model, a.prompt) == (
        "a",
        ("Read", "Grep"),
        resolve_model("haiku").id,
        "Be A.",
    )
    assert (b.description, b.tools, b.model) == ("Second, on two lines.", ("Bash", "Read"), None)
    assert (c.tools, c.model, c.path) == (None, None, str(user / "c.md"))  # fmt: skip


def test_a_projects_type_overrides_the_users_of_the_same_name(tmp_path: Path) -> None:
    root, home, project, user = folders(tmp_path)
    write(user, "rev", "---\nname: rev\ndescription: The user's.\n---\nUser.\n")
    write(project, "rev", "---\nname: rev\ndescription: The project's.\n---\nProject.\n")
    (only,) = list_agents(str(root), str(home)).types
    assert only.description == "The project's."


def test_a_bad_file_is_skipped_and_its_fault_names_file_line_field_and_remedy(
    tmp_path: Path,
) -> None:
    root, home, project, _ = folders(tmp_path)
    tools = write(project, "tools", "---\nname: tools\ndescription: D.\ntools: 5\n---\nBody.\n")
    model = write(project, "model", "---\nname: model\ndescription: D.\nmodel: gpt-9\n---\nB.\n")
    nobody = write(project, "nobody", "---\nname: nobody\ndescription: D.\n---\n")
    named = write(project, "named", "---\nname: Bad Name\ndescription: D.\n---\nB.\n")
    write(project, "good", "---\nname: good\ndescription: Fine.\n---\nB.\n")
    found = list_agents(str(root), str(home))
    assert [t.name for t in found.types] == ["good"]
    faults = sorted(found.faults)
    assert faults[0].startswith(f"{model}:4: field 'model': unknown model 'gpt-9'")
    assert "\n  → Use an alias (opus, sonnet, haiku)" in faults[0]
    assert faults[1].startswith(f"{named}:2: field 'name': 'Bad Name' is not a usable name")
    assert faults[2].startswith(f"{nobody}:5: field 'body': the body is empty")
    assert faults[3] == (
        f"{tools}:4: field 'tools': must be a comma-separated list or a list of tool names, "
        "not 5\n  → Write the tools as 'tools: Read, Grep' or as a YAML list ([Read, Grep])"
    )


def test_a_description_with_unquoted_colons_loads_as_the_reference_reads_it(
    tmp_path: Path,
) -> None:
    # The shape the reference's own agent generator writes: one line, ': ' inside, unquoted.
    root, home, project, _ = folders(tmp_path)
    described = (
        'Reviews code. Examples:\\n\\n<example>\\nContext: a new function.\\nuser: "Review it"\\n'
        "</example>"
    )
    write(
        project,
        "reviewer",
        f"---\nname: reviewer\ndescription: {described}\ntools: Read, Grep\nmodel: sonnet\n"
        "---\nReview.\n",
    )
    # What YAML refuses for another reason is still the file's fault, at its line.
    broken = write(
        project, "broken", "---\nname: broken\ndescription: a: b\ntools: [Read\n---\nB.\n"
    )
    found = list_agents(str(root), str(home))
    (reviewer,) = found.types
    assert (reviewer.description, reviewer.tools) == (described, ("Read", "Grep"))
    (fault,) = found.faults
    assert fault.startswith(f"{broken}:3: field 'description': a value holds ': '")
