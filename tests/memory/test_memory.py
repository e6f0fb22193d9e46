"""Project context and memory: LEGATO.md, MEMORY.md, topic files,
"remember that ...", and ``@path`` references, with real files and a real ``legato`` process."""

from __future__ import annotations

import os
import subprocess
import sys
from typing import TYPE_CHECKING, Any

from actors.memory_store import load_context
from actors.permission_broker.policy import Policy
from actors.places import memory_dir
from actors.protocol import Decision, PermissionRequest
from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls
from frontends.skills.skill_commands import run_slash
from tests.home_project import first_prompt

if TYPE_CHECKING:
    import pytest

    from tests.frontends.conftest import Project

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def system_text(body: dict[str, Any]) -> str:
    system = body.get("system", "")
    if isinstance(system, str):
        return system
    return "\n".join(block["text"] for block in system)


def memory_of(project: Project) -> str:
    return memory_dir(str(project.root), str(project.home))


# ── context ─────────────────────────────────────────────────────────────────────────────────


def test_legato_md_and_memory_are_in_the_models_context(project: Project) -> None:
    project.write("LEGATO.md", "# Shop\n## Common commands\n- make test\n")
    folder = memory_of(project)
    os.makedirs(folder)
    with open(os.path.join(folder, "MEMORY.md"), "w") as file:
        file.writelines(f"- note {n}\n" for n in range(1, 251))
    for topic in ("debugging.md", "conventions.md"):
        with open(os.path.join(folder, topic), "w") as file:
            file.write("secret topic text\n")
    with ScriptedServer([text("ok")]) as server:
        done = project.legato(server.url, "--headless", "hi")
        requests = server.requests
    assert done.returncode == 0, done.stderr
    system = system_text(requests[0].body)
    legato_md = f"Instructions from {project.root / 'LEGATO.md'} (the project's):"
    assert f"{legato_md}\n# Shop\n## Common commands\n- make test" in system
    assert "- note 200\n" in system + "\n"
    assert "- note 201" not in system  # only the first 200 lines
    assert f"Memory folder (kept across sessions): {folder}" in system
    assert (
        "Topic files there: conventions.md, debugging.md; Read one when it is relevant." in system
    )
    assert "secret topic text" not in system  # topic files are read on demand only


def test_remember_that_writes_memory_even_headless_in_ask_mode(project: Project) -> None:
    target = os.path.join(memory_of(project), "MEMORY.md")
    steps = [
        tool_calls([call("Write", {"file_path": target, "content": "- Use pnpm, not npm\n"})]),
        text("Noted."),
    ]
    with ScriptedServer(steps) as server:
        done = project.legato(server.url, "--headless", "remember that we use pnpm")
    assert done.returncode == 0, done.stderr
    with open(target) as file:
        assert file.read() == "- Use pnpm, not npm\n"
    # The next session starts with it.
    with ScriptedServer([text("ok")]) as server:
        project.legato(server.url, "--headless", "what do we use?")
        requests = server.requests
    assert "- Use pnpm, not npm" in system_text(requests[0].body)


def _policy(project: Project, mode: str = "ask", **settings: object) -> Policy:
    project.settings(permissionMode=mode, **settings)
    return Policy(load_context(str(project.root), home=str(project.home)))


def test_the_broker_accepts_the_memory_folder_and_nothing_next_to_it(project: Project) -> None:
    folder = memory_of(project)
    policy = _policy(project)
    write = PermissionRequest(tool="Write", kind="create", paths=(f"{folder}/debugging.md",))
    assert policy.assess(write) == Decision(
        True, "creating in the project's memory folder is accepted"
    )
    beside = PermissionRequest(tool="Write", kind="write", paths=(f"{folder}-other/x.md",))
    assert not isinstance(policy.assess(beside), Decision)  # outside the project: it asks


def test_blocked_paths_and_plan_mode_still_win_over_memory(project: Project) -> None:
    folder = memory_of(project)
    write = PermissionRequest(tool="Write", kind="write", paths=(f"{folder}/MEMORY.md",))
    outcome = _policy(project, blockedPaths=["~/.legato/**"]).assess(write)
    assert isinstance(outcome, Decision) and not outcome.allowed
    outcome = _policy(project, mode="plan").assess(write)
    assert isinstance(outcome, Decision) and not outcome.allowed
    assert "plan mode is read-only" in outcome.reason


def test_memory_command_shows_where_memory_lives(
    project: Project, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = memory_of(project)
    assert run_slash([str(project.root), "/memory"]) == 0
    out = capsys.readouterr().out
    assert f"Memory for this project: {folder}" in out
    assert "MEMORY.md: not written yet" in out
    os.makedirs(folder)
    with open(os.path.join(folder, "MEMORY.md"), "w") as file:
        file.write("a\nb\n")
    assert run_slash([str(project.root), "/memory"]) == 0
    assert "MEMORY.md: 2 lines" in capsys.readouterr().out


# ── @path references (the executor's part: tests/tool_executor/test_references.py) ──────────


def test_a_headless_prompt_brings_referenced_files_in_under_the_rules(project: Project) -> None:
    project.write("src/app.py", "print('hello app')\n")
    project.write("secrets/key.txt", "TOKEN=abc\n")
    outside = project.home / "notes.txt"
    outside.write_text("private notes\n")
    project.settings(blockedPaths=["secrets/**"])
    with ScriptedServer([text("ok")]) as server:
        done = project.legato(
            server.url, "--headless", f"look at @src/app.py and @secrets/key.txt and @{outside}"
        )
        requests = server.requests
    assert done.returncode == 0, done.stderr
    prompt = first_prompt(requests[0].body)
    assert "<file path=\"src/app.py\">\nprint('hello app')\n" in prompt
    assert "TOKEN=abc" not in prompt
    assert "private notes" not in prompt
    assert "legato: warning: @secrets/key.txt was not attached" in done.stderr
    assert f"legato: warning: @{outside} was not attached" in done.stderr


def test_skill_arguments_can_reference_files(project: Project) -> None:
    project.write("src/app.py", "def main(): pass\n")
    with ScriptedServer([text("Reviewed.")]) as server:
        done = project.legato(server.url, "--headless", "/review @src/app.py")
        requests = server.requests
    assert done.returncode == 0, done.stderr
    prompt = first_prompt(requests[0].body)
    assert "Run the skill /review" in prompt
    assert '<file path="src/app.py">\ndef main(): pass\n' in prompt


# ── start-up cost ───────────────────────────────────────────────────────────────────────────


def test_version_does_not_load_skills_or_patterns() -> None:
    probe = (
        "import sys\nfrom frontends.cli import run\nrun(['--version'])\n"
        "loaded = ('frontends.skills.skill_commands', 'actors', 'yaml')\n"
        "print(sorted(m for m in sys.modules if m.startswith(loaded)))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, cwd=REPO, check=True
    )
    assert done.stdout.splitlines()[-1] == "[]"
