"""A Claude Code user's repository, run headless as they run it (``legato -p`` and the
reference's flags): a real ``legato`` process against the scripted model server, which records
each request. What reached the model, what ran and what was denied is read from those requests,
from the json result and from the files the session left.
"""

from __future__ import annotations

import json
from typing import TYPE_CHECKING, Any

from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls
from tests.claude_code import claude_repo as cc
from tests.claude_code.conftest import rule_line
from tests.trusting import trust_project

if TYPE_CHECKING:
    import subprocess

    import pytest

    from frontends.demo.scripted_api import RecordedRequest, Step
    from tests.frontends.conftest import Project

LEGATO_OWN = "ORCHARD-LEGATO-MD-a4f0"


def run(
    project: Project, steps: list[Step], *args: str
) -> tuple[subprocess.CompletedProcess[str], list[RecordedRequest]]:
    with ScriptedServer(steps) as server:
        done = project.legato(server.url, *args)
        return done, server.requests


def system(request: RecordedRequest) -> str:
    return json.dumps(request.body["system"])


def results(request: RecordedRequest) -> dict[str, str]:
    """The tool results the request carries back, by tool_use id."""
    content = request.body["messages"][-1]["content"]
    return {
        block["tool_use_id"]: json.dumps(block["content"])
        for block in content
        if isinstance(block, dict) and block.get("type") == "tool_result"
    }


# ── instruction files ───────────────────────────────────────────────────────────────────────


def test_the_instruction_files_and_the_import_reach_the_model_after_legato_md(
    repo: Project,
) -> None:
    repo.write("LEGATO.md", f"# Orchard for Legato\n\n{LEGATO_OWN}: prefer small commits.\n")
    cc.user_files(repo.home)
    done, requests = run(repo, [text("Noted.")], "-p", "hi", "--output-format", "json")
    assert done.returncode == 0, done.stderr
    prompt = system(requests[0])
    order = [LEGATO_OWN, cc.CLAUDE_ROOT, cc.IMPORTED, cc.LOCAL, cc.AGENTS, cc.USER_CLAUDE]
    for marker in order:
        assert marker in prompt, marker
    # Lowest precedence first, so that what comes later wins: the user's own file, then
    # AGENTS.md, CLAUDE.md (its import with it), CLAUDE.local.md, and LEGATO.md last.
    at = {marker: prompt.index(marker) for marker in order}
    assert at[cc.USER_CLAUDE] < at[cc.AGENTS] < at[cc.CLAUDE_ROOT] < at[cc.LOCAL] < at[LEGATO_OWN]
    assert at[cc.AGENTS] < at[cc.IMPORTED] < at[cc.LOCAL]
    assert "LEGATO.md" in prompt.split(cc.USER_CLAUDE)[0]  # the prompt says which file wins
    # A nested file waits until the model works in its folder; the secret is never read.
    assert cc.NESTED not in json.dumps(requests[0].body)
    assert cc.SECRET not in json.dumps(requests[0].body)


def test_a_nested_claude_md_arrives_once_the_model_reads_in_its_folder(repo: Project) -> None:
    app = str(repo.root / "src" / "app.py")
    steps = [tool_calls([call("Read", {"file_path": app}, id="t_read")]), text("Read it.")]
    done, requests = run(repo, steps, "-p", "look at the app", "--permission-mode", "acceptEdits")
    assert done.returncode == 0, done.stderr
    assert cc.NESTED not in json.dumps(requests[0].body)
    assert cc.NESTED in json.dumps(requests[1].body)
    assert "orchard" in results(requests[1])["t_read"]


def test_a_missing_import_is_a_warning_naming_the_file_and_line(project: Project) -> None:
    guide = project.write("CLAUDE.md", "# Notes\n\nORCHARD-KEPT-5d0c\nSee @docs/gone.md too.\n")
    done, requests = run(project, [text("ok")], "-p", "hi")
    assert done.returncode == 0, done.stderr
    assert "ORCHARD-KEPT-5d0c" in system(requests[0])  # the file itself still reaches the model
    assert f"{guide}:4" in done.stderr and "docs/gone.md" in done.stderr


# ── settings and rules ──────────────────────────────────────────────────────────────────────


def test_the_rules_of_the_settings_files_decide_with_deny_before_ask_before_allow(
    repo: Project,
) -> None:
    trust_project(repo.root, repo.home)
    notes, readme = repo.root / "src" / "notes.py", repo.root / "README.md"
    steps = [
        tool_calls(
            [
                call("Bash", {"command": "git diff --stat"}, id="t_diff"),
                call("Read", {"file_path": str(repo.root / "secrets" / "api.txt")}, id="t_secret"),
                call("Bash", {"command": "git push origin main"}, id="t_push"),
                call("Bash", {"command": "curl https://example.com"}, id="t_curl"),
                call("Write", {"file_path": str(notes), "content": "# notes\n"}, id="t_write"),
                call("Write", {"file_path": str(readme), "content": "x"}, id="t_readme"),
            ]
        ),
        text("Done."),
    ]  # fmt: skip
    done, requests = run(repo, steps, "-p", "tidy up", "--output-format", "json")
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    denied = {denial["tool_use_id"] for denial in result["permission_denials"]}
    # deny (Read(./secrets/**), Bash(curl *)), ask with nobody to ask (Bash(git push *)), and a
    # write no rule allows in the default mode; allowed: Bash(git diff *), Edit(/src/**).
    assert denied == {"t_secret", "t_push", "t_curl", "t_readme"}
    assert cc.SECRET not in json.dumps([request.body for request in requests])
    assert notes.read_text() == "# notes\n"
    assert not readme.exists()
    # The project's hook (Edit|Write) ran once, for the one write that happened.
    assert (repo.root / "hook.log").read_text() == "edited\n"


def test_env_and_model_come_from_the_settings_the_local_file_winning(repo: Project) -> None:
    trust_project(repo.root, repo.home)
    steps = [
        tool_calls([call("Bash", {"command": "printenv ORCHARD_STAGE"}, id="t_env")]),
        text("Done."),
    ]
    done, requests = run(repo, steps, "-p", "which stage?", "--output-format", "json")
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["permission_denials"] == []  # Bash(printenv:*), local file
    assert json.loads(results(requests[1])["t_env"]).strip() == "mine"
    assert requests[0].body["model"] == cc.MODEL


def test_legatos_own_file_wins_over_the_references_at_the_same_level(project: Project) -> None:
    # Same level: .legato/settings.json over .claude/settings.json. A nearer level wins
    # whatever the spelling: .claude/settings.local.json over both.
    project.write(".claude/settings.json", json.dumps({"model": "claude-opus-4-6"}))
    project.write(".legato/settings.json", json.dumps({"model": "claude-haiku-4-5"}))
    done, requests = run(project, [text("ok")], "-p", "hi")
    assert done.returncode == 0, done.stderr
    assert requests[0].body["model"].startswith("claude-haiku-4-5")
    project.write(".claude/settings.local.json", json.dumps({"model": "claude-sonnet-4-5"}))
    done, requests = run(project, [text("ok")], "-p", "hi")
    assert done.returncode == 0, done.stderr
    assert requests[0].body["model"].startswith("claude-sonnet-4-5")


def test_a_webfetch_rule_of_the_reference_acts_without_a_warning(repo: Project) -> None:
    trust_project(repo.root, repo.home)
    done, _ = run(repo, [text("ok")], "-p", "hi")
    assert done.returncode == 0, done.stderr
    # WebFetch is Legato's tool too: its domain rule is one the broker acts on.
    assert "WebFetch" not in done.stderr


def test_permissions_explain_names_the_file_line_and_rule_that_decided(repo: Project) -> None:
    settings = repo.root / ".claude" / "settings.json"
    trust_project(repo.root, repo.home)
    for command, rule, verdict in (
        ("git push origin main", "Bash(git push *)", "ask"),
        ("curl https://example.com", "Bash(curl *)", "denied"),
        # ':*' is a trailing ' *': a word boundary, so 'npm run test:unit' would ask.
        ("npm run test -- --watch", "Bash(npm run test:*)", "allowed"),
    ):
        shown = repo.cli("permissions", "explain", "--command", command)
        assert shown.returncode == 0, shown.stderr
        assert verdict in shown.stdout, shown.stdout
        assert rule in shown.stdout
        assert f"{settings}:{rule_line(settings, rule)}" in shown.stdout
    shown = repo.cli("permissions", "explain", "--path", "secrets/api.txt")
    assert "Read(./secrets/**)" in shown.stdout
    assert f"{settings}:{rule_line(settings, 'Read(./secrets/**)')}" in shown.stdout


def test_a_bare_deny_of_an_mcp_server_takes_its_tools_from_the_model(repo: Project) -> None:
    trust_project(repo.root, repo.home)
    assert repo.cli("mcp", "approve", "time").returncode == 0
    user = repo.home / ".claude" / "settings.json"
    user.parent.mkdir(parents=True, exist_ok=True)
    user.write_text(json.dumps({"permissions": {"deny": ["mcp__time"]}}))
    # A search waits for the server to start, then loads what it finds for the next request.
    search = call("ToolSearch", {"query": "select:mcp__time__get_current_time"}, id="t_find")
    now = call("mcp__time__get_current_time", {"timezone": "UTC"}, id="t_time")
    done, requests = run(
        repo,
        [tool_calls([search]), tool_calls([now]), text("Done.")],
        "-p", "time?", "--output-format", "json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "No MCP tool matches" in results(requests[1])["t_find"]
    offered = [tool["name"] for request in requests for tool in request.body["tools"]]
    assert not [name for name in offered if name.startswith("mcp__time")], offered
    # Called all the same (the model read the name somewhere): refused, naming the rule.
    denial = json.loads(done.stdout)["permission_denials"]
    assert [d["tool_use_id"] for d in denial] == ["t_time"]
    assert "datetime" not in results(requests[2])["t_time"]


def test_an_approved_mcp_server_of_mcp_json_runs_under_the_mcp_rule(repo: Project) -> None:
    trust_project(repo.root, repo.home)
    approved = repo.cli("mcp", "approve", "time")
    assert approved.returncode == 0, approved.stderr
    now = call("mcp__time__get_current_time", {"timezone": "UTC"}, id="t_time")
    done, requests = run(
        repo, [tool_calls([now]), text("Done.")], "-p", "time?", "--output-format", "json"
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["permission_denials"] == []  # allowed by mcp__time
    assert "datetime" in results(requests[1])["t_time"]


# ── commands, skills, agents ────────────────────────────────────────────────────────────────


def test_a_claude_command_runs_with_its_arguments_and_its_shell_line(repo: Project) -> None:
    cc.git_repo(repo.root)
    trust_project(repo.root, repo.home)
    done, requests = run(repo, [text("Reviewed.")], "-p", "/review 42 security")
    assert done.returncode == 0, done.stderr
    sent = json.dumps(requests[0].body["messages"])
    assert cc.REVIEW in sent
    assert "Review pull request #42, looking hardest at security." in sent
    assert "All arguments: 42 security" in sent
    # The !`git diff --stat` line was run (allowed: Bash(git diff *)) and replaced by its output.
    assert "src/app.py | 2 +-" in sent
    assert "!`git diff" not in sent


def test_legatos_own_command_wins_and_the_users_own_are_found(repo: Project) -> None:
    repo.write(
        ".legato/skills/review.md",
        "---\nname: review\ndescription: Legato's review\n---\nORCHARD-LEGATO-REVIEW-9e2a $1\n",
    )
    mine = repo.home / ".claude" / "commands" / "standup.md"
    mine.parent.mkdir(parents=True)
    mine.write_text(
        "---\ndescription: My standup notes\n---\nORCHARD-USER-COMMAND-33c8 $ARGUMENTS\n"
    )
    done, requests = run(repo, [text("ok")], "-p", "/review 5")
    assert done.returncode == 0, done.stderr
    sent = json.dumps(requests[0].body["messages"])
    assert "ORCHARD-LEGATO-REVIEW-9e2a 5" in sent and cc.REVIEW not in sent
    done, requests = run(repo, [text("ok")], "-p", "/standup friday")
    assert done.returncode == 0, done.stderr
    assert "ORCHARD-USER-COMMAND-33c8 friday" in json.dumps(requests[0].body["messages"])


def test_a_skill_is_loaded_when_the_model_asks_and_its_folder_is_readable(repo: Project) -> None:
    template = repo.root / ".claude" / "skills" / "changelog" / "template.md"
    steps = [
        tool_calls([call("Skill", {"skill": "changelog"}, id="t_skill")]),
        tool_calls([call("Read", {"file_path": str(template)}, id="t_template")]),
        text("Done."),
    ]
    done, requests = run(
        repo, steps, "-p", "update the changelog", "--permission-mode", "acceptEdits"
    )
    assert done.returncode == 0, done.stderr
    # The model is told the skill exists (name and description) before it asks for it.
    assert "changelog" in json.dumps(requests[0].body)
    assert cc.SKILL not in json.dumps(requests[0].body)
    assert cc.SKILL in json.dumps(requests[1].body)
    assert cc.SKILL_FILE in results(requests[2])["t_template"]


def test_a_users_own_skill_folder_is_readable_once_the_skill_is_loaded(project: Project) -> None:
    skills = project.home / ".claude" / "skills"
    for name in ("notes", "other"):
        (skills / name).mkdir(parents=True)
        (skills / name / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: The {name} skill\n---\nRead template.md.\n"
        )
        (skills / name / "template.md").write_text(f"TEMPLATE-OF-{name.upper()}\n")
    read = [
        call("Read", {"file_path": str(skills / name / "template.md")}, id=f"t_{name}")
        for name in ("notes", "other")
    ]
    steps = [
        tool_calls([read[0]]),  # before the skill is loaded: outside the project, refused
        tool_calls([call("Skill", {"skill": "notes"}, id="t_skill")]),
        tool_calls(read),  # its own folder now reads; another skill's still does not
        text("Done."),
    ]
    done, requests = run(project, steps, "-p", "take notes", "--output-format", "json")
    assert done.returncode == 0, done.stderr
    assert "TEMPLATE-OF-NOTES" not in results(requests[1])["t_notes"]
    assert "TEMPLATE-OF-NOTES" in results(requests[3])["t_notes"]
    assert "TEMPLATE-OF-OTHER" not in results(requests[3])["t_other"]


def test_a_claude_agent_is_a_subagent_type_with_its_own_prompt(repo: Project) -> None:
    task = {"description": "review", "prompt": "Review src/app.py", "subagent_type": "reviewer"}
    steps = [
        tool_calls([call("Agent", task, id="t_agent")]),
        text("No bugs found."),  # the reviewer's answer
        text("Done."),
    ]
    done, requests = run(repo, steps, "-p", "review", "--output-format", "json")
    assert done.returncode == 0, done.stderr
    assert "reviewer" in json.dumps(requests[0].body["tools"])
    assert cc.AGENT in system(requests[1])
    assert "No bugs found." in results(requests[2])["t_agent"]


# ── flags ───────────────────────────────────────────────────────────────────────────────────


def test_the_reference_flags_work_headless_without_stream_json_input(project: Project) -> None:
    steps = [
        tool_calls([call("Bash", {"command": "echo flagged"}, id="t_echo")]),
        text("Done."),
    ]
    done, requests = run(
        project, steps,
        "-p", "say it",
        "--allowedTools", "Bash(echo:*)",
        "--disallowedTools", "Read",
        "--append-system-prompt", "APPENDED-BY-FLAG-7c1e",
        "--output-format", "json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["permission_denials"] == []
    assert "flagged" in results(requests[1])["t_echo"]
    assert requests[0].body["system"][-1]["text"].endswith("APPENDED-BY-FLAG-7c1e")
    assert "Read" not in [tool["name"] for tool in requests[0].body["tools"]]


def test_continue_goes_on_with_the_last_session_in_stream_json(project: Project) -> None:
    first, _ = run(project, [text("The answer is 12.")], "-p", "remember ORCHARD-FIRST-PROMPT")
    assert first.returncode == 0, first.stderr
    done, requests = run(
        project, [text("Still 12.")],
        "-c", "-p", "and again?", "--output-format", "stream-json", "--verbose",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    sent = json.dumps(requests[0].body["messages"])
    assert "ORCHARD-FIRST-PROMPT" in sent and "The answer is 12." in sent
    events: list[dict[str, Any]] = [json.loads(line) for line in done.stdout.splitlines()]
    assert events[0]["type"] == "system" and events[-1]["type"] == "result"
    assert events[-1]["result"] == "Still 12."


def test_resume_by_id_goes_on_with_that_session(project: Project) -> None:
    first, _ = run(
        project, [text("Noted: 7.")], "-p", "keep ORCHARD-RESUMED-PROMPT", "--output-format", "json"
    )
    assert first.returncode == 0, first.stderr
    session = json.loads(first.stdout)["session_id"]
    assert run(project, [text("Another.")], "-p", "an unrelated session")[0].returncode == 0
    done, requests = run(project, [text("Still 7.")], "-r", session, "-p", "and?")
    assert done.returncode == 0, done.stderr
    assert "ORCHARD-RESUMED-PROMPT" in json.dumps(requests[0].body["messages"])
    assert "an unrelated session" not in json.dumps(requests[0].body["messages"])


def test_dangerously_skip_permissions_warns_and_the_deny_rules_still_hold(
    repo: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Refused as root unless the machine is a throwaway one, as the reference does.
    monkeypatch.setenv("IS_SANDBOX", "1")
    trust_project(repo.root, repo.home)
    readme = repo.root / "README.md"
    steps = [
        tool_calls(
            [
                call("Write", {"file_path": str(readme), "content": "x"}, id="t_readme"),
                call("Read", {"file_path": str(repo.root / "secrets" / "api.txt")}, id="t_secret"),
            ]
        ),
        text("Done."),
    ]
    done, requests = run(
        repo, steps, "-p", "go", "--dangerously-skip-permissions", "--output-format", "json"
    )
    assert done.returncode == 0, done.stderr
    assert "bypass permissions mode" in done.stderr  # the warning a person needs
    assert {d["tool_use_id"] for d in json.loads(done.stdout)["permission_denials"]} == {"t_secret"}
    assert readme.read_text() == "x"
    assert cc.SECRET not in json.dumps([request.body for request in requests])


def test_settings_add_dir_and_mcp_config_flags_work_headless(project: Project) -> None:
    extra = project.home / "shared-docs"
    extra.mkdir()
    (extra / "glossary.md").write_text("ORCHARD-ADDED-DIR-51f3\n")
    settings = {"permissions": {"allow": ["Bash(echo:*)", "mcp__clock"]}}
    servers = {"mcpServers": {"clock": cc.mcp_json()["mcpServers"]["time"]}}
    steps = [
        tool_calls(
            [
                call("Bash", {"command": "echo from-settings-flag"}, id="t_echo"),
                call("Read", {"file_path": str(extra / "glossary.md")}, id="t_read"),
                call("mcp__clock__get_current_time", {"timezone": "UTC"}, id="t_time"),
            ]
        ),
        text("Done."),
    ]
    done, requests = run(
        project, steps,
        "-p", "go",
        "--settings", json.dumps(settings),
        "--add-dir", str(extra),
        "--mcp-config", json.dumps(servers),
        "--permission-mode", "acceptEdits",
        "--output-format", "json",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["permission_denials"] == []
    said = results(requests[1])
    assert "from-settings-flag" in said["t_echo"]
    assert "ORCHARD-ADDED-DIR-51f3" in said["t_read"]
    assert "datetime" in said["t_time"]


def test_system_prompt_and_model_flags_replace_what_they_name(project: Project) -> None:
    project.write("CLAUDE.md", f"{cc.CLAUDE_ROOT}\n")
    done, requests = run(
        project, [text("ok")],
        "-p", "hi", "--system-prompt", "ORCHARD-ONLY-THIS-0b7e", "--model", "haiku",
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    prompt = system(requests[0])
    assert "ORCHARD-ONLY-THIS-0b7e" in prompt
    assert "You are Legato" not in prompt  # Legato's own instructions replaced
    assert cc.CLAUDE_ROOT in prompt  # the project's instruction files still follow
    assert requests[0].body["model"].startswith("claude-haiku")
