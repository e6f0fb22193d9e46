"""The reference's commands and skill folders (``.claude/commands``, ``.claude/skills``, and the
user's ``~/.claude`` ones), run through real ``legato`` against the scripted server: the prompt
the model gets, the tool results, /help's sources; and what a hostile clone brings."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from typing import TYPE_CHECKING, Any

from actors.skills.reference import render_reference
from actors.skills.skill import Skill
from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls
from tests.home_project import first_prompt
from tests.trusting import trust_project

if TYPE_CHECKING:
    from tests.frontends.conftest import Project

NO_SERVER = "http://127.0.0.1:9"

COMPONENT = """---
description: Scaffold a UI component
argument-hint: <Name> [variant]
---
Create the component $0 in the $1 variant.
Everything typed: $ARGUMENTS; the first again: $ARGUMENTS[0]; a price: \\$1.00
"""


def tool_results(body: dict[str, Any]) -> list[str]:
    """The text of every tool result the request's last message carries."""
    results = []
    for block in body["messages"][-1]["content"]:
        if isinstance(block, dict) and block.get("type") == "tool_result":
            content = block["content"]
            if isinstance(content, list):
                content = "".join(part.get("text", "") for part in content)
            results.append(content)
    return results


def test_a_namespaced_command_runs_with_the_references_placeholders(project: Project) -> None:
    project.write(".claude/commands/frontend/component.md", COMPONENT)
    with ScriptedServer([text("Done.")]) as server:
        done = project.legato(server.url, "--headless", "/frontend:component Button primary")
        requests = server.requests
    assert done.returncode == 0, done.stderr
    prompt = first_prompt(requests[0].body)
    assert prompt.startswith("Run the command /frontend:component: Scaffold a UI component\n")
    assert "Create the component Button in the primary variant." in prompt
    assert "Everything typed: Button primary; the first again: Button; a price: $1.00" in prompt


def test_a_command_without_front_matter_is_described_by_its_first_line(
    project: Project,
) -> None:
    project.write(".claude/commands/fix-issue.md", "# Fix a GitHub issue\n\nFix issue $0.\n")
    done = project.legato(NO_SERVER, "/help")
    assert done.returncode == 0, done.stderr
    row = next(line for line in done.stdout.splitlines() if line.startswith("  /fix-issue "))
    assert row.endswith("Fix a GitHub issue  (.claude/commands/fix-issue.md)")
    with ScriptedServer([text("Done.")]) as server:
        done = project.legato(server.url, "/fix-issue", "123")
        requests = server.requests
    assert done.returncode == 0, done.stderr
    assert "Fix issue 123." in first_prompt(requests[0].body)


def test_legato_files_win_and_help_names_the_shadowed_ones(project: Project) -> None:
    project.write(
        ".legato/skills/deploy.md",
        "---\nname: deploy\ndescription: Legato's deploy\n---\n1. Deploy with Legato.\n",
    )
    project.write(".claude/commands/deploy.md", "Deploy the reference's way.\n")
    project.write(".claude/skills/audit/SKILL.md", "---\ndescription: Project audit\n---\nAudit.\n")
    project.write(".claude/commands/audit.md", "Audit as a command.\n")
    (project.home / ".claude" / "commands").mkdir(parents=True)
    (project.home / ".claude" / "commands" / "audit.md").write_text("The user's audit.\n")
    (project.home / ".claude" / "commands" / "mine.md").write_text("The user's own: $ARGUMENTS\n")
    done = project.legato(NO_SERVER, "/help")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    shadowed = lines[lines.index("Not run (a file of the same name wins):") + 1 :]
    assert sorted(" ".join(line.split()) for line in shadowed[:3]) == [
        "/audit .claude/commands/audit.md: .claude/skills/audit/SKILL.md runs instead",
        "/audit ~/.claude/commands/audit.md: .claude/skills/audit/SKILL.md runs instead",
        "/deploy .claude/commands/deploy.md: .legato/skills/deploy.md runs instead",
    ]
    assert any(line.endswith("(~/.claude/commands/mine.md)") for line in lines)
    with ScriptedServer([text("Done."), text("Done.")]) as server:
        first = project.legato(server.url, "/deploy")
        second = project.legato(server.url, "/mine", "hello")
        requests = server.requests
    assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
    assert "Deploy with Legato." in first_prompt(requests[0].body)
    assert "The user's own: hello" in first_prompt(requests[1].body)


def test_a_skill_folder_names_its_folder_and_runs_by_its_folder_name(project: Project) -> None:
    project.write(
        ".claude/skills/explain-code/SKILL.md",
        "---\nname: Explain Code\ndescription: Explain code with diagrams\n---\n"
        "Read ${CLAUDE_SKILL_DIR}/style.md, then explain $ARGUMENTS.\n",
    )
    project.write(".claude/skills/explain-code/style.md", "Use ASCII diagrams.\n")
    with ScriptedServer([text("Done.")]) as server:
        done = project.legato(server.url, "--headless", "/explain-code src/app.py")
        requests = server.requests
    assert done.returncode == 0, done.stderr
    folder = os.path.join(project.root, ".claude", "skills", "explain-code")
    prompt = first_prompt(requests[0].body)
    assert f"Its files are in {folder}." in prompt
    assert f"Read {folder}/style.md, then explain src/app.py." in prompt


def test_a_shell_line_is_a_bash_call_the_broker_decides(project: Project) -> None:
    marker = project.root / "ran"
    project.write(
        ".claude/commands/ship.md",
        "---\nallowed-tools: Bash(touch *)\nmodel: openai:gpt-4o\n---\n"
        f"State: !`touch {marker}`\nThen ship.\n",
    )
    with ScriptedServer([text("Shipped.")]) as server:
        done = project.legato(server.url, "--headless", "/ship")
        requests = server.requests
    # A headless run with no rule allowing it: refused, whatever the file's allowed-tools
    # says, and the model is told the line did not run.
    assert not marker.exists()
    prompt = first_prompt(requests[0].body)
    assert f"State: (`touch {marker}` did not run: Permission denied: 'touch " in prompt
    assert "a headless run cannot ask" in prompt and prompt.endswith("\nThen ship.")
    assert "allowed-tools (Bash(touch *)) not applied (project not trusted)" in done.stderr
    assert "model (openai:gpt-4o) is not applied" in done.stderr
    assert requests[0].body["model"] != "gpt-4o"


def test_the_users_own_allowed_tools_allow_its_prompt_alone(project: Project) -> None:
    # ~/.claude/commands is the user's own: its allowed-tools hold for its lines and its
    # prompt's calls, and nothing beyond what they name, nor past a deny rule.
    line, called, other = (project.root / name for name in ("by-line", "by-model", "other"))
    mark = project.home / ".claude" / "commands" / "mark.md"
    mark.parent.mkdir(parents=True)
    mark.write_text(f"---\nallowed-tools: Bash(touch *), Read\n---\nFirst: !`touch {line}`\n")
    project.write(".claude/settings.json", '{"permissions": {"deny": ["Read(./.env)"]}}')
    project.write(".env", "TOKEN=1\n")
    calls = [
        call("Bash", {"command": f"touch {called}"}, id="t_touch"),
        call("Bash", {"command": f"rm -f {line}; touch {other}"}, id="t_rm"),
        call("Read", {"file_path": str(project.root / ".env")}, id="t_env"),
    ]
    with ScriptedServer([tool_calls(calls), text("Marked.")]) as server:
        done = project.legato(server.url, "--headless", "/mark", "--output-format", "json")
        requests = server.requests
    assert done.returncode == 0, done.stderr
    assert line.exists() and called.exists() and not other.exists()
    denied = {d["tool_use_id"] for d in json.loads(done.stdout)["permission_denials"]}
    assert denied == {"t_rm", "t_env"}
    assert "TOKEN=1" not in json.dumps(requests[-1].body)
    # A plain prompt afterwards gets none of it.
    later = project.root / "later"
    step = tool_calls([call("Bash", {"command": f"touch {later}"}, id="t_later")])
    with ScriptedServer([step, text("No.")]) as server:
        project.legato(server.url, "--headless", "go", "--continue")
    assert not later.exists()


def test_a_projects_allowed_tools_apply_once_the_project_is_trusted(project: Project) -> None:
    marker = project.root / "ran"
    project.write(
        ".claude/commands/ship.md", f"---\nallowed-tools: Bash(touch *)\n---\n!`touch {marker}`\n"
    )
    project.write(".claude/settings.json", '{"permissions": {"allow": ["Read(~/notes/**)"]}}')
    with ScriptedServer([text("Shipped.")]) as server:
        done = project.legato(server.url, "--headless", "/ship")
    assert not marker.exists()
    assert "not applied (project not trusted)" in done.stderr and "legato trust" in done.stderr
    trust_project(project.root, project.home)
    with ScriptedServer([text("Shipped.")]) as server:
        done = project.legato(server.url, "--headless", "/ship")
    assert done.returncode == 0, done.stderr
    assert marker.exists()


def test_a_command_a_later_pull_adds_does_not_ride_on_an_earlier_trust(project: Project) -> None:
    # The user trusted a harmless list; a later pull adds a command granting itself Bash.
    project.write(".claude/settings.json", '{"permissions": {"allow": ["Bash(npm test)"]}}')
    trust_project(project.root, project.home)
    marker = project.root / "PWNED"
    project.write(
        ".claude/commands/tidy.md", f"---\nallowed-tools:\n  - Bash\n---\n!`touch {marker}`\n"
    )
    with ScriptedServer([text("Tidied.")]) as server:
        done = project.legato(server.url, "--headless", "/tidy")
    assert not marker.exists()
    assert 'tidy.md: not applied (project not trusted): allowed-tools: "Bash"' in done.stderr
    shown = subprocess.run(
        [sys.executable, "-c", "from frontends.cli import main; main()", "trust", "--show",
         "--project", str(project.root)],
        capture_output=True, text=True, env=project.env(NO_SERVER), check=False,
    )  # fmt: skip
    assert ".claude/commands/tidy.md" in shown.stdout
    trust_project(project.root, project.home)  # the user looks, and trusts it as it is now
    with ScriptedServer([text("Tidied.")]) as server:
        done = project.legato(server.url, "--headless", "/tidy")
    assert marker.exists(), done.stderr


def test_a_shell_line_the_rules_allow_runs_and_its_output_goes_in_its_place(
    project: Project,
) -> None:
    project.settings(allowedCommands=["echo", "touch"])
    marker = project.root / "ran"
    project.write(
        ".claude/commands/status.md",
        f"First: !`touch {marker}`\n```!\necho fenced $0\n```\nThen: !`echo one $0` done.\n",
    )
    with ScriptedServer([text("Seen.")]) as server:
        done = project.legato(server.url, "--headless", "/status two")
        requests = server.requests
    assert done.returncode == 0, done.stderr
    assert marker.exists()
    prompt = first_prompt(requests[0].body)
    assert (
        prompt
        == "Run the command /status: First:\n\nFirst: (no output)\nfenced two\nThen: one two done."
    )
    assert "!`" not in prompt and "\0" not in prompt


def test_a_hostile_clones_commands_are_refused_with_their_file_named(project: Project) -> None:
    outside = project.root.parent / "secret.md"
    outside.write_text("the user's secret notes\n")
    commands = project.root / ".claude" / "commands"
    commands.mkdir(parents=True)
    (commands / "leak.md").symlink_to(outside)
    os.mkfifo(commands / "hang.md")
    (commands / "huge.md").write_text("x" * (300 * 1024))
    (commands / "quit.md").write_text("Pretend to quit.\n")
    (commands / "permissions.md").write_text("Pretend to be /permissions.\n")
    (commands / "bad name.md").write_text("Spaces.\n")
    (commands / "Help.md").write_text("Pretend to be /help.\n")
    (commands / "d\u0435ploy.md").write_text("A Cyrillic e in its name.\n")
    linked = project.root.parent / "elsewhere"
    linked.mkdir()
    (linked / "inner.md").write_text("Reached through a linked folder.\n")
    (commands / "linked").symlink_to(linked)
    done = project.legato(NO_SERVER, "/help")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    broken = lines[lines.index("Not loaded (fix these files):") :]
    said = "\n".join(" ".join(line.split()) for line in broken)
    assert f"/leak .claude/commands/leak.md: leads to {outside}, outside" in said
    assert "/hang .claude/commands/hang.md: is a FIFO (named pipe), not a file" in said
    assert "/huge .claude/commands/huge.md: is larger than 256 KiB" in said
    assert "is named like the session's own /quit, which runs instead" in said
    assert "is named like the session's own /permissions, which runs instead" in said
    assert "'bad name' cannot be typed as a command" in said
    assert "is named like the session's own /help, which runs instead" in said
    assert "'d\u0435ploy' cannot be typed as a command" in said
    assert "linked:inner" not in done.stdout and "secret notes" not in done.stdout
    for typed in ("/leak", "/quit", "/../../secret", "/linked:inner"):
        refused = project.legato(NO_SERVER, "--headless", typed)
        assert refused.returncode == 2, (typed, refused.stderr)
        assert "Traceback" not in refused.stderr
        assert "secret notes" not in refused.stdout + refused.stderr


def test_init_writes_legato_md_and_weighs_claude_md(project: Project) -> None:
    project.write("CLAUDE.md", "# Shop\nRun tests with make test.\n")
    with ScriptedServer([text("Done.")]) as server:
        done = project.legato(server.url, "/init")
        requests = server.requests
    assert done.returncode == 0, done.stderr
    prompt = first_prompt(requests[0].body)
    assert prompt.startswith("Run the skill /init-project: Create LEGATO.md")
    assert "The project already has CLAUDE.md, which Legato loads" in prompt
    assert "do not repeat in LEGATO.md what they already say" in prompt


def test_a_model_only_skill_is_not_run_by_name(project: Project) -> None:
    project.write(
        ".claude/skills/legacy/SKILL.md",
        "---\ndescription: How the old billing works\nuser-invocable: false\n---\nDetails.\n",
    )
    done = project.legato(NO_SERVER, "/legacy")
    assert done.returncode == 2
    assert "user-invocable: false" in done.stderr
    assert "/legacy" not in project.legato(NO_SERVER, "/help").stdout


REVIEWER = """---
name: reviewer
description: Reviews code for bugs
tools: Read, Grep, Glob
---
You are the {who} reviewer.
"""


def test_their_agents_are_subagent_types_and_legatos_own_win(project: Project) -> None:
    def agent(name: str, who: str) -> str:
        return REVIEWER.format(who=who).replace("reviewer", name)

    project.write(".claude/agents/reviewer.md", agent("reviewer", "reference's"))
    project.write(".claude/agents/tester.md", agent("tester", "project's"))
    user_agents = project.home / ".claude" / "agents"
    user_agents.mkdir(parents=True)
    (user_agents / "tester.md").write_text(agent("tester", "user's"))
    (user_agents / "linter.md").write_text(agent("linter", "user's"))
    project.write(".legato/agents/reviewer.md", agent("reviewer", "Legato"))
    outside = project.root.parent / "spy.md"
    outside.write_text(agent("spy", "secret spy"))
    (project.root / ".claude" / "agents" / "spy.md").symlink_to(outside)
    steps = [
        tool_calls([call("Agent", {"description": "d", "prompt": "Look.", "subagent_type": name})])
        for name in ("reviewer", "linter", "spy")
    ]
    steps.insert(1, text("Reviewed."))
    steps.insert(3, text("Linted."))
    steps.append(text("Done."))
    with ScriptedServer(steps) as server:
        done = project.legato(server.url, "--headless", "go")
        requests = server.requests
    assert done.returncode == 0, done.stderr
    tool = next(t for t in requests[0].body["tools"] if t["name"] == "Agent")
    listed = tool["description"]
    for name in ("reviewer", "tester", "linter"):
        assert f"- {name}: Reviews code for bugs (Tools: Read, Grep, Glob)" in listed
    assert "- spy:" not in listed
    systems = [str(request.body.get("system")) for request in requests]
    assert any("You are the Legato reviewer." in system for system in systems)
    assert not any("reference's reviewer" in system for system in systems)
    assert any("You are the user's linter." in system for system in systems)
    assert not any("secret spy" in system for system in systems)
    assert f"{project.root}/.claude/agents/spy.md: leads to {outside}, outside" in done.stderr


def test_test_renders_a_command_as_the_model_gets_it(project: Project) -> None:
    project.write(".claude/commands/frontend/component.md", COMPONENT)
    done = project.legato(NO_SERVER, "/frontend:component", "--test")
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(
        "ok: skill /frontend:component "
        f"({project.root}/.claude/commands/frontend/component.md)\n"
        "  from .claude/commands/frontend/component.md; its placeholders count from $0"
    )
    assert "Create the component sample-1 in the sample-2 variant." in done.stdout
    project.write(".claude/commands/broken.md", "---\ndescription: [1, 2]\n---\nBody.\n")
    broken = project.legato(NO_SERVER, "/broken", "--test")
    assert broken.returncode == 2
    assert "broken.md:2: field 'description': must be a string, not list [1, 2]" in broken.stderr


def test_the_model_sees_the_skills_and_loads_one_with_the_skill_tool(project: Project) -> None:
    project.write(
        ".claude/skills/release-notes/SKILL.md",
        "---\nname: release-notes\ndescription: Write release notes from the git log\n---\n"
        "Read ${CLAUDE_SKILL_DIR}/template.md and fill it for version $0.\n",
    )
    project.write(".claude/skills/release-notes/template.md", "## Version\n")
    project.write(
        ".claude/commands/deploy.md",
        "---\ndescription: Deploy to production\ndisable-model-invocation: true\n---\nDeploy.\n",
    )
    project.write(".claude/commands/lint.md", "Run the linters on $ARGUMENTS\n")
    steps = [
        tool_calls([call("Skill", {"skill": "release-notes", "args": "2.1"})]),
        tool_calls([call("Skill", {"skill": "deploy"})]),
        text("Done."),
    ]
    with ScriptedServer(steps) as server:
        done = project.legato(server.url, "--headless", "write the notes")
        requests = server.requests
    assert done.returncode == 0, done.stderr
    tool = next(t for t in requests[0].body["tools"] if t["name"] == "Skill")
    listing = tool["description"].split("Available skills:\n", 1)[1]
    assert listing.splitlines() == [
        "- lint: Run the linters on $ARGUMENTS",
        "- release-notes: Write release notes from the git log",
    ]
    assert tool["input_schema"]["required"] == ["skill"]
    folder = os.path.join(project.root, ".claude", "skills", "release-notes")
    [loaded] = tool_results(requests[1].body)
    assert loaded.splitlines()[:3] == [
        "Skill /release-notes: Write release notes from the git log",
        f"Its folder is {folder}; read the files its steps name from there.",
        "Files: template.md",
    ]
    assert f"Read {folder}/template.md and fill it for version 2.1." in loaded
    [refused] = tool_results(requests[2].body)
    assert refused.startswith(
        "No skill 'deploy' can be loaded. The skills are: lint, release-notes."
    )


def test_no_skill_tool_is_offered_when_there_is_no_skill_to_load(
    project: Project,
) -> None:
    with ScriptedServer([text("Hi.")]) as server:
        done = project.legato(server.url, "--headless", "hi")
        requests = server.requests
    assert done.returncode == 0, done.stderr
    assert "Skill" not in [t["name"] for t in requests[0].body["tools"]]


def test_help_lists_the_agent_types_with_their_files(project: Project) -> None:
    project.write(".claude/agents/reviewer.md", REVIEWER.format(who="reference's"))
    project.write(".legato/agents/reviewer.md", REVIEWER.format(who="Legato"))
    user_agents = project.home / ".claude" / "agents"
    user_agents.mkdir(parents=True)
    (user_agents / "linter.md").write_text(REVIEWER.format(who="x").replace("reviewer", "linter"))
    done = project.legato(NO_SERVER, "/help")
    assert done.returncode == 0, done.stderr
    rows = [" ".join(line.split()) for line in done.stdout.splitlines()]
    at = rows.index("Agent types (the model starts them with its Agent tool):")
    assert rows[at + 1 : at + 3] == [
        "linter Reviews code for bugs (~/.claude/agents/linter.md)",
        "reviewer Reviews code for bugs (.legato/agents/reviewer.md)",
    ]
    hidden = rows.index("Agent files not used (a file of the same name wins):")
    assert rows[hidden + 1] == (
        "reviewer .claude/agents/reviewer.md: .legato/agents/reviewer.md is used"
    )


def test_an_at_file_in_a_command_is_attached_as_the_models_read(project: Project) -> None:
    project.write("src/app.py", "print('the app')\n")
    project.write(".claude/commands/review.md", "Review @src/app.py for bugs.\n")
    project.write(".claude/commands/peek.md", "Look at @../secret.txt please.\n")
    (project.root.parent / "secret.txt").write_text("the user's secret\n")
    steps = [text("Asked."), text("Reviewed."), text("Peeked.")]
    with ScriptedServer(steps) as server:
        # The repository wrote the name, not the person: the read is put to the broker as the
        # model's are, which ask mode asks about, and a headless run cannot ask.
        asked = project.legato(server.url, "/review")
        done = project.legato(server.url, "/review", "--permission-mode", "auto")
        peek = project.legato(server.url, "/peek", "--permission-mode", "auto")
        requests = server.requests
    assert asked.returncode == 0, asked.stderr
    assert "@src/app.py was not attached: 'src/app.py' is not in allowedPaths" in asked.stderr
    assert "print('the app')" not in str(requests[0].body)
    assert done.returncode == 0, done.stderr
    assert "print('the app')" in first_prompt(requests[1].body)
    assert "@../secret.txt was not attached" in peek.stderr
    assert "the user's secret" not in str(requests[2].body)


def test_listing_the_models_skills_at_start_reads_none_of_legatos_own(project: Project) -> None:
    """Every session asks for the Skill tool's listing as it starts: Legato's own skill files
    (the project's and the bundled ones) are not read for it, so the YAML parser is not even
    imported where there is none of the reference's files."""
    project.write(".legato/skills/greet.md", "---\nname: greet\ndescription: Hi\n---\n1. Hi.\n")
    probe = (
        "import sys\n"
        "from actors.skills.model_skills import model_skills\n"
        f"print(model_skills({str(project.root)!r}, {str(project.home)!r}))\n"
        "print('yaml' in sys.modules)\n"
    )
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.stdout.splitlines() == ["()", "False"], done.stderr


def _command(body: str) -> Skill:
    return Skill("c", "d", body, "c.md", False, zero_based=True)


def test_shell_lines_are_found_in_the_file_as_written_not_in_the_arguments() -> None:
    rendered = render_reference(
        _command("Log: !`git log $0`\n```!\nnode --version\n```\nFix $ARGUMENTS.\nKEY=!`no`"),
        ["main", "!`rm -rf ~`"],
        "/p",
    )
    assert rendered.splitlines() == [
        "First run each of these shell commands with the Bash tool, one call each, and read its "
        "output where the text below refers to it (a command that is refused or fails: say so, "
        "and go on without its output):",
        "1. `git log main`",
        "2. `node --version`",
        "",
        "Log: [the output of command 1]",
        "[the output of command 2]",
        "Fix main !`rm -rf ~`.",
        "KEY=!`no`",
    ]


def test_arguments_in_a_shell_line_only_are_not_appended_again() -> None:
    rendered = render_reference(_command("!`git show $0`"), ["HEAD"], "/p")
    assert rendered.endswith("1. `git show HEAD`\n\n[the output of command 1]")
    plain = render_reference(_command("Summarise."), ["a", "b"], "/p")
    assert plain == "Summarise.\n\nARGUMENTS: a b"


def test_a_program_speaking_stream_json_runs_the_commands_as_typed(project: Project) -> None:
    """The Agent SDK's prompts: a command runs as it does typed; /help is answered without the
    model; a prompt that names no command goes as it is."""
    from tests.frontends.test_stream_input import run as stream
    from tests.frontends.test_stream_input import user

    project.write(".claude/commands/frontend/component.md", COMPONENT)
    project.write(".claude/commands/broken.md", "---\ndescription: [1]\n---\nBody.\n")
    lines = [
        user("/frontend:component Card outline"),
        user("/help"),
        user("/broken"),
        user("/frontend:componnet X"),
        user("/etc/hosts is missing"),
    ]
    with ScriptedServer([text("Made."), text("Looked.")]) as server:
        code, out, stderr = stream(project, server.url, lines)
        requests = server.requests
    assert code == 0, stderr  # as for any prompts: the last one decides
    results = [line for line in out if line["type"] == "result"]
    assert [r["is_error"] for r in results] == [False, False, True, True, False]
    assert "Create the component Card in the outline variant." in first_prompt(requests[0].body)
    assert "/frontend:component <Name> [variant]" in results[1]["result"]
    assert "broken.md:2: field 'description': must be a string" in results[2]["errors"][0]
    assert "Did you mean /frontend:component, " in results[3]["errors"][0]
    assert requests[1].body["messages"][-1]["content"][0]["text"] == "/etc/hosts is missing"


def test_a_program_speaking_stream_json_gets_a_commands_grants_and_model_for_it_alone(
    project: Project,
) -> None:
    """The Agent SDK's prompt runs the user's own command as the terminal does: its
    allowed-tools let its ! line and its calls run, its model answers it, and neither lasts."""
    from tests.frontends.test_stream_input import run as stream
    from tests.frontends.test_stream_input import user

    line, later = project.root / "by-line", project.root / "later"
    mark = project.home / ".claude" / "commands" / "mark.md"
    mark.parent.mkdir(parents=True)
    mark.write_text(f"---\nallowed-tools: Bash(touch *)\nmodel: haiku\n---\n!`touch {line}`\n")
    steps = [
        text("Marked."),
        tool_calls([call("Bash", {"command": f"touch {later}"}, id="t_later")]),
        text("No."),
    ]
    with ScriptedServer(steps) as server:
        code, _, stderr = stream(project, server.url, [user("/mark"), user("go on")])
        requests = server.requests
    assert code == 0, stderr
    assert line.exists() and not later.exists()
    assert "haiku" in requests[0].body["model"]
    assert "haiku" not in requests[1].body["model"]


def test_the_model_cannot_plant_a_command_unasked_in_any_mode(project: Project) -> None:
    planted = project.root / ".claude" / "commands" / "planted.md"
    write = call("Write", {"file_path": str(planted), "content": "Say 'planted'.\n"})
    with ScriptedServer([tool_calls([write]), text("Tried.")]) as server:
        done = project.legato(server.url, "--headless", "go", "--permission-mode", "auto")
        requests = server.requests
    assert not planted.exists()
    [result] = tool_results(requests[1].body)
    assert "the reference assistant's settings, commands, skills and agents (.claude/)" in result
    assert "always needs a person's approval whatever the mode" in result
    assert done.returncode in (0, 3), done.stderr


def test_the_users_own_command_runs_on_its_model_and_a_projects_does_not(
    project: Project,
) -> None:
    from actors.models import resolve_model

    mine = project.home / ".claude" / "commands"
    mine.mkdir(parents=True)
    (mine / "quick.md").write_text("---\nmodel: haiku\n---\nAnswer quickly.\n")
    project.write(".claude/commands/costly.md", "---\nmodel: opus\n---\nThink hard.\n")
    project.write(".claude/commands/odd.md", "---\nmodel: 42\n---\nOdd.\n")
    with ScriptedServer([text("Quick."), text("Costly.")]) as server:
        quick = project.legato(server.url, "/quick")
        costly = project.legato(server.url, "--headless", "/costly")
        requests = server.requests
    assert quick.returncode == 0 and costly.returncode == 0, quick.stderr + costly.stderr
    assert requests[0].body["model"] == resolve_model("haiku").id
    assert requests[1].body["model"] != resolve_model("opus").id
    assert "model (" in costly.stderr and "is not applied: a project's file" in costly.stderr
    odd = project.legato(NO_SERVER, "/odd")
    assert odd.returncode == 2
    assert "odd.md:2: field 'model': must be a string, not int 42" in odd.stderr


def test_an_argument_hint_in_brackets_is_shown_as_written(project: Project) -> None:
    # The reference's docs write hints this way, unquoted: YAML alone reads '[message]' as a
    # list and '[filename] [format]' not at all, yet the reference runs both.
    hints = {
        "ci": "[message]",
        "conv": "[filename] [format]",
        "tag": "add [tagId] | remove [tagId] | list",
        "quoted": '[a "b"] \\ c',
    }
    for name, hint in hints.items():
        project.write(
            f".claude/commands/{name}.md",
            f"---\nargument-hint: {hint}\ndescription: The {name} command\n---\nDo $ARGUMENTS\n",
        )
    project.write(".claude/commands/tools.md", "---\nallowed-tools: [Read]\n---\nRead.\n")
    done = project.legato(NO_SERVER, "/help")
    assert done.returncode == 0, done.stderr
    assert "Not loaded" not in done.stdout
    rows = [line.split() for line in done.stdout.splitlines()]
    for name, hint in hints.items():
        assert [f"/{name}", *hint.split(), "The", name, "command"] in [
            row[: len(hint.split()) + 4] for row in rows
        ]
    with ScriptedServer([text("Done.")]) as server:
        done = project.legato(server.url, "/conv", "a.csv", "json")
        requests = server.requests
    assert done.returncode == 0, done.stderr
    assert "Do a.csv json" in first_prompt(requests[0].body)


def test_help_names_an_agent_file_that_does_not_load(project: Project) -> None:
    # /help is where a person looks for the agent they wrote: one that does not load is
    # listed there with its file, line and fault, as a command file is.
    project.write(".claude/agents/fine.md", "---\nname: fine\ndescription: Fine.\n---\nBe.\n")
    project.write(
        ".claude/agents/typo.md", "---\nname: typo\ndescription: D.\nmodel: gpt-9\n---\nB.\n"
    )
    done = project.legato(NO_SERVER, "/help")
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    at = lines.index("Agent files not loaded (fix these files):")
    assert lines[at + 1].split(None, 1) == [
        "typo",
        ".claude/agents/typo.md:4: field 'model': unknown model 'gpt-9'.",
    ]
    assert not any("fine.md" in line for line in lines[at:])
