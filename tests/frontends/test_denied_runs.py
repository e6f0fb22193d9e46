"""Runs whose changes were denied say so: a real `legato` process, the scripted server.

Headless, nobody can approve a write, so in ask mode (the default) every write outside
allowedPaths is denied while the model may still end with "Wrote 2 files.".
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from actors.errors import EXIT_DENIED
from actors.protocol import AgentEvent, ToolFinished, ToolResult, ToolStarted
from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls
from frontends.headless.denials import DenialTally

if TYPE_CHECKING:
    from frontends.demo.scripted_api import Step
    from tests.frontends.conftest import Project

FIELDS = '{"name": "string", "price": "number"}'
MODE_REMEDY = "run with --permission-mode auto"


def writes(project: Project, *relative: str) -> list[Step]:
    """The model writes these files in one turn, then claims it did."""
    files = [
        call("Write", {"file_path": str(project.root / path), "content": "// generated\n"})
        for path in relative
    ]
    return [tool_calls(files), text(f"Wrote {len(relative)} files.")]


def lines_of(stderr: str) -> list[str]:
    return stderr.splitlines()


def test_a_pattern_whose_every_write_was_denied_fails_and_says_how_to_allow_it(
    project: Project,
) -> None:
    steps = writes(project, "models/product.js", "api/product.js")
    with ScriptedServer(steps) as server:
        done = project.legato(server.url, "/crud-gen", "product", FIELDS)
        requests = server.requests
    assert done.returncode == EXIT_DENIED == 3
    assert not (project.root / "models").exists()
    assert not (project.root / "api").exists()
    assert (
        requests[0]
        .body["messages"][0]["content"][0]["text"]
        .startswith("Run the pattern /crud-gen")
    )
    assert done.stdout == "Wrote 2 files.\n"  # the model's words, as they streamed
    said = lines_of(done.stderr)
    # Said before the run starts: the pattern writes, and ask mode will deny it.
    assert said[0] == (
        "legato: warning: /crud-gen generates files, and in ask mode a headless run denies "
        "every write, since nobody can approve one"
    )
    assert said[1] == (
        "  → Run with --permission-mode auto, or add the folders it writes to allowedPaths in "
        f"{project.root}/.legato/settings.json"
    )
    assert said[2].startswith("⏺ Write(")
    # And after it: what was denied, why, and the remedy, as the last words.
    assert said[-2] == (
        "legato: error: nothing was changed: 2 calls were denied "
        "(Write(models/product.js), Write(api/product.js))"
    )
    assert said[-1].startswith("  → 'models/product.js' is not in allowedPaths, so ask mode asks")
    assert said[-1].endswith(MODE_REMEDY)


def test_the_same_pattern_in_auto_mode_writes_and_says_nothing_of_denials(
    project: Project,
) -> None:
    steps = writes(project, "models/product.js", "api/product.js")
    with ScriptedServer(steps) as server:
        done = project.legato(
            server.url, "/crud-gen", "product", FIELDS, "--permission-mode", "auto"
        )
    assert done.returncode == 0, done.stderr
    assert (project.root / "models/product.js").read_text() == "// generated\n"
    assert (project.root / "api/product.js").read_text() == "// generated\n"
    assert "legato:" not in done.stderr  # no warning before, no denial after


def test_a_pattern_with_some_writes_allowed_succeeds_and_names_the_denied_one(
    project: Project,
) -> None:
    project.settings(allowedPaths=["src/**"])
    steps = writes(project, "src/product.js", "README.md")
    with ScriptedServer(steps) as server:
        done = project.legato(server.url, "/crud-gen", "product", FIELDS)
    assert done.returncode == 0, done.stderr
    assert (project.root / "src/product.js").exists()
    assert not (project.root / "README.md").exists()
    said = lines_of(done.stderr)
    # allowedPaths may cover what it writes: nothing is certain before the run.
    assert said[0].startswith("⏺ Write(")
    assert said[-2] == "legato: warning: 1 call was denied: Write(README.md)"
    assert said[-1].startswith("  → 'README.md' is not in allowedPaths")


def test_a_plain_prompt_whose_writes_were_denied_says_so_and_exits_0(project: Project) -> None:
    steps = writes(project, "a.txt", "b.txt")
    with ScriptedServer(steps) as server:
        done = project.legato(server.url, "--headless", "write a.txt and b.txt")
    # A prompt may be a question that tried a write on the way: its answer is still the result,
    # so the exit code stays 0 (json's permission_denials lists the denials for a pipeline).
    assert done.returncode == 0, done.stderr
    assert not (project.root / "a.txt").exists()
    said = lines_of(done.stderr)
    assert said[0].startswith("⏺ Write(")  # nothing said up front: a prompt may write nothing
    assert said[-2] == (
        "legato: warning: nothing was changed: 2 calls were denied (Write(a.txt), Write(b.txt))"
    )
    assert said[-1].endswith(MODE_REMEDY)


def test_a_skill_run_headless_in_plan_mode_fails_with_json_still_on_stdout(
    project: Project,
) -> None:
    steps = writes(project, "models/product.js")
    with ScriptedServer(steps) as server:
        done = project.legato(
            server.url,
            "--headless", f"/crud-gen product '{FIELDS}'",
            "--permission-mode", "plan", "--output-format", "json",
        )  # fmt: skip
    assert done.returncode == EXIT_DENIED
    result: dict[str, Any] = json.loads(done.stdout)
    assert result["subtype"] == "success"  # the answer itself ended normally
    assert [d["tool_name"] for d in result["permission_denials"]] == ["Write"]
    assert lines_of(done.stderr) == [
        "legato: /crud-gen generates files, and this run is in plan mode, which writes nothing: "
        "every write will be denied",
        "  → Run with --permission-mode auto to let it write",
        "legato: nothing was changed: 1 call was denied (Write(models/product.js))",
        "  → plan mode is read-only: creating 'models/product.js' is not allowed. Leave Plan Mode "
        "to allow it: Shift+Tab in the terminal, or another --permission-mode (auto accepts "
        "edits inside the project)",
    ]


def test_a_skill_whose_only_denial_is_a_command_has_not_failed(project: Project) -> None:
    steps = [
        tool_calls([call("Bash", {"command": "git log -1"})]),
        text("Nothing to review."),
    ]
    with ScriptedServer(steps) as server:
        done = project.legato(server.url, "/review")
    # A skill may only read; a denied command is said, and is no failure of the run.
    assert done.returncode == 0, done.stderr
    said = lines_of(done.stderr)
    assert said[-2] == "legato: warning: 1 call was denied: Bash(git log -1)"
    assert "allowedCommands" in said[-1]


# ── the tally, fed the events a renderer sees ───────────────────────────────────────────────


def finished(call_id: str, *, denied: bool = False, is_error: bool = False) -> ToolFinished:
    content = "Permission denied: no." if denied else "done"
    result = ToolResult(tool_use_id=call_id, content=content, is_error=is_error, denied=denied)
    return ToolFinished(result=result, elapsed=0.0)


def test_a_subagents_denied_write_counts_with_the_prompts() -> None:
    tally = DenialTally("/p")
    started = ToolStarted("t1", "Edit", "/p/src/x.py")
    for event in (started, finished("t1", denied=True)):
        tally.see(AgentEvent(parent_tool_use_id="toolu_agent", agent="general", event=event))
    assert tally.nothing_changed
    assert tally.report() == "nothing was changed: 1 call was denied (Edit(src/x.py))\n  → no."


def test_a_command_that_ran_means_the_run_may_have_changed_something() -> None:
    tally = DenialTally("/p")
    tally.see(ToolStarted("t1", "Write", "/p/a.txt"))
    tally.see(finished("t1", denied=True))
    tally.see(ToolStarted("t2", "Bash", "make"))
    tally.see(finished("t2"))
    assert not tally.nothing_changed
    # A command that failed may have changed files before it did.
    failed = DenialTally("/p")
    for event in (
        ToolStarted("t1", "Write", "/p/a.txt"),
        finished("t1", denied=True),
        ToolStarted("t2", "Bash", "make"),
        finished("t2", is_error=True),
    ):
        failed.see(event)
    assert not failed.nothing_changed


def test_reads_and_failed_edits_change_nothing() -> None:
    tally = DenialTally("/p")
    for event in (
        ToolStarted("t1", "Write", "/p/a.txt"),
        finished("t1", denied=True),
        ToolStarted("t2", "Read", "/p/b.txt"),
        finished("t2"),
        ToolStarted("t3", "Edit", "/p/b.txt"),
        finished("t3", is_error=True),  # its old_string was not found, say
    ):
        tally.see(event)
    assert tally.nothing_changed


def test_five_denials_name_three_and_count_the_rest() -> None:
    tally = DenialTally("/p")
    for number in range(5):
        tally.see(ToolStarted(f"t{number}", "Write", f"/p/f{number}"))
        tally.see(finished(f"t{number}", denied=True))
    assert tally.report() == (
        "nothing was changed: 5 calls were denied (Write(f0), Write(f1), Write(f2), 2 more)"
        "\n  → no."
    )
