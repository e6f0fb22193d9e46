"""`legato permissions [explain]` through the real command: the broker's decisions for a path's
read, edit and create or for a command line, in the mode a session would start in, each naming
the rule and the file that decided; bad flags exit 2."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

import pytest

from tests.trusting import trust_project

if TYPE_CHECKING:
    from tests.config.conftest import Setup

RULES: dict[str, object] = {
    "allowedPaths": ["src/**", "docs/*.md"],
    "blockedPaths": ["/.env", "secrets/"],
    "allowedCommands": ["git status", "npm run *"],
    "blockedCommands": ["rm", "git push"],
    "allowedTools": ["mcp__docs", "mcp__git__status"],
    "blockedTools": ["mcp__git__push"],
}


@pytest.fixture
def project(setup: Setup) -> Setup:
    for name in ("src/a.py", ".env", "README.md", "lib/secrets/key.txt"):
        path = setup.project / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x\n")
    setup.settings(RULES)
    return setup


def explain(setup: Setup, *args: str) -> list[str]:
    done = setup.legato("permissions", "--project", str(setup.project), *args)
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_a_path_s_read_edit_and_create_in_ask_mode(project: Setup) -> None:
    file = project.settings_file
    assert explain(project, "explain", "src/a.py") == [
        "Mode: ask (from built-in default)",
        f"read    src/a.py  allowed  by allowedPaths entry 'src/**' (path 'src/a.py') in {file}",
        f"edit    src/a.py  allowed  by allowedPaths entry 'src/**' (path 'src/a.py') in {file}",
        f"create  src/a.py  allowed  by allowedPaths entry 'src/**' (path 'src/a.py') in {file}",
    ]
    assert explain(project, "explain", "lib/secrets/key.txt") == [
        "Mode: ask (from built-in default)",
        *(
            f"{op:<6}  lib/secrets/key.txt  denied   blocked by blockedPaths entry 'secrets/' "
            f"(path 'lib/secrets/key.txt') in {file}"
            for op in ("read", "edit", "create")
        ),
    ]
    assert explain(project, "explain", "README.md") == [
        "Mode: ask (from built-in default)",
        *(
            f"{op:<6}  README.md  asks     'README.md' is not in allowedPaths (headless: denied)"
            for op in ("read", "edit", "create")
        ),
    ]


def test_a_path_in_auto_and_plan_mode(project: Setup) -> None:
    file = project.settings_file
    assert explain(project, "explain", "--permission-mode", "auto", "README.md") == [
        "Mode: auto (from --permission-mode)",
        "read    README.md  allowed  reading inside the project is accepted in auto-accept mode",
        "edit    README.md  allowed  writing inside the project is accepted in auto-accept mode",
        "create  README.md  allowed  creating inside the project is accepted in auto-accept mode",
    ]
    assert explain(project, "--permission-mode", "plan", "explain", "src/a.py") == [
        "Mode: plan (from --permission-mode)",
        f"read    src/a.py  allowed  by allowedPaths entry 'src/**' (path 'src/a.py') in {file}",
        "edit    src/a.py  denied   plan mode is read-only: writing 'src/a.py' is not allowed",
        "create  src/a.py  denied   plan mode is read-only: creating 'src/a.py' is not allowed",
    ]
    # The mode the settings file sets, and where it came from, as a session would start.
    project.settings({**RULES, "permissionMode": "auto"})
    assert explain(project, "explain", ".env") == [
        f"Mode: auto (from {file})",
        *(
            f"{op:<6}  .env  denied   blocked by blockedPaths entry '/.env' (path '.env') in {file}"
            for op in ("read", "edit", "create")
        ),
    ]


def test_a_command_line_in_several_modes(project: Setup) -> None:
    file = project.settings_file
    assert explain(project, "explain", "git", "status", "-s") == [
        "Mode: ask (from built-in default)",
        f"run     git status -s  allowed  by allowedCommands entry 'git status' in {file}",
    ]
    assert explain(project, "explain", "git push origin main") == [
        "Mode: ask (from built-in default)",
        "run     git push origin main  denied   blocked by blockedCommands entry 'git push' "
        f"(command 'git push origin main') in {file}",
    ]
    assert explain(project, "explain", "make test && npm run lint") == [
        "Mode: ask (from built-in default)",
        "run     make test && npm run lint  asks     'make test' is not in allowedCommands "
        "(headless: denied)",
    ]
    assert explain(project, "--permission-mode", "auto", "explain", "make", "test") == [
        "Mode: auto (from --permission-mode)",
        "run     make test  asks     'make test' is not in allowedCommands (headless: denied)",
    ]
    assert explain(project, "--permission-mode", "plan", "explain", "git status") == [
        "Mode: plan (from --permission-mode)",
        "run     git status  denied   plan mode is read-only: running 'git status' is not allowed",
    ]


def test_an_existing_path_is_a_path_unless_command_is_given(project: Setup) -> None:
    assert explain(project, "explain", "--command", "README.md") == [
        "Mode: ask (from built-in default)",
        "run     README.md  asks     'README.md' is not in allowedCommands (headless: denied)",
    ]
    assert explain(project, "explain", "--path", "src/new.py")[1].startswith(
        "read    src/new.py  allowed  by allowedPaths entry 'src/**'"
    )


def test_a_word_naming_no_file_yet_is_judged_by_its_shape_and_says_so(project: Setup) -> None:
    file = project.settings_file
    assert explain(project, "explain", "src/new.py") == [
        "Mode: ask (from built-in default)",
        "'src/new.py' is judged as a path: it has a '/' (add --command to judge it as a command)",
        *(
            f"{op:<6}  src/new.py  allowed  by allowedPaths entry 'src/**' (path 'src/new.py') "
            f"in {file}"
            for op in ("read", "edit", "create")
        ),
    ]
    lines = explain(project, "explain", "notes.md")
    assert lines[1] == (
        "'notes.md' is judged as a path: it has a file extension "
        "(add --command to judge it as a command)"
    )
    assert lines[2].startswith("read    notes.md  asks")
    # A version number is no extension, and a word without either is a command, as before.
    assert explain(project, "explain", "python3.11")[1:] == [
        "'python3.11' is judged as a command (add --path to judge it as a path)",
        "run     python3.11  asks     'python3.11' is not in allowedCommands (headless: denied)",
    ]


def test_without_explain_it_prints_the_mode_and_the_rules(project: Setup) -> None:
    assert explain(project) == [
        "Mode: ask (from built-in default)",
        f"Rules from {project.settings_file}:",
        "  allowedPaths     'src/**', 'docs/*.md'",
        "  blockedPaths     '/.env', 'secrets/'",
        "  allowedCommands  'git status', 'npm run *'",
        "  blockedCommands  'rm', 'git push'",
        "  allowedTools     'mcp__docs', 'mcp__git__status'",
        "  blockedTools     'mcp__git__push'",
    ]


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["explain"], "legato permissions explain: give a path or a command line"),
        (["--permission-mode", "always"], "argument --permission-mode: invalid choice"),
        (["explain", "--path", "--command", "x"], "not allowed with argument"),
        (["--bogus"], "unrecognized arguments: --bogus"),
    ],
)
def test_bad_flags_exit_2_with_a_message(project: Setup, args: list[str], message: str) -> None:
    done = project.legato("permissions", "--project", str(project.project), *args)
    assert done.returncode == 2
    assert message in done.stderr
    assert "→" in done.stderr
    assert done.stdout == ""


def test_an_invalid_settings_file_exits_2(project: Setup) -> None:
    project.settings({"blockedPaths": ["!src/keep.py"]})
    done = project.legato("permissions", "--project", str(project.project), "explain", "src")
    assert done.returncode == 2
    assert "field 'blockedPaths[0]': '!src/keep.py' cannot be used" in done.stderr


def test_a_flag_after_the_path_is_refused_with_where_it_goes(project: Setup) -> None:
    done = project.legato("permissions", "explain", ".env", "--project", str(project.project))
    assert done.returncode == 2
    assert "--project comes after the path or command" in done.stderr
    assert done.stdout == ""
    # After '--' the words are a command as written, flags and all.
    lines = explain(project, "explain", "--", "mytool", "--path", "x")
    assert lines[1].startswith("run     mytool --path x")


def test_an_mcp_tool_s_call_names_its_server_and_the_rule(project: Setup) -> None:
    servers = {"git": {"command": "git-mcp"}, "docs": {"url": "https://example.com/mcp"}}
    (project.project / ".mcp.json").write_text(json.dumps({"mcpServers": servers}))
    file = project.settings_file
    assert explain(project, "explain", "mcp__git__push")[1] == (
        "call    mcp__git__push  denied   blocked by blockedTools entry 'mcp__git__push' "
        f"(tool 'push' of MCP server 'git') in {file}"
    )
    assert explain(project, "explain", "mcp__docs__find")[1] == (
        "call    mcp__docs__find  allowed  by allowedTools entry 'mcp__docs' "
        f"(tool 'find' of MCP server 'docs') in {file}"
    )
    assert explain(project, "explain", "mcp__git__log")[1] == (
        "call    mcp__git__log  asks     'mcp__git__log' (tool 'log' of MCP server 'git') is "
        "not in allowedTools (headless: denied)"
    )
    assert explain(project, "--permission-mode", "plan", "explain", "mcp__docs__find")[1] == (
        "call    mcp__docs__find  denied   plan mode is read-only: calling 'mcp__docs__find' "
        "(tool 'find' of MCP server 'docs') is not allowed, as an MCP tool can change anything"
    )


def test_the_reference_s_rules_are_listed_once_without_a_rules_none_line(setup: Setup) -> None:
    # A Claude Code user's project: no rules of Legato's own, the reference's in .claude/.
    claude = setup.project / ".claude" / "settings.json"
    claude.parent.mkdir()
    claude.write_text(
        '{"permissions": {\n  "deny": ["Read(./.env)"],\n  "ask": ["Bash(git push *)"]\n}}\n'
    )
    listed = explain(setup)
    assert listed == [
        "Mode: ask (from built-in default)",
        "Permission rules (deny, then ask, then allow, whatever file):",
        f"  {claude}",
        "    :2    deny   Read(./.env)",
        "    :3    ask    Bash(git push *)",
    ]


def test_an_untrusted_project_s_held_rules_are_named_where_they_would_decide(setup: Setup) -> None:
    # A cloned Claude Code user's project: its allow rule waits for trust, and the answer
    # must not read as if the rule were missing.
    claude = setup.project / ".claude" / "settings.json"
    claude.parent.mkdir()
    claude.write_text('{"permissions": {"allow": ["Bash(git diff *)"]}, "env": {"A": "1"}}\n')
    held = (
        "Not applied until you trust this project: 2 settings of its files (env, "
        "permissions.allow); 'legato trust --show' lists them, 'legato trust' applies them"
    )
    assert explain(setup, "explain", "git diff HEAD")[-1] == held
    assert explain(setup)[-1] == held
    trust_project(setup.project, setup.home)
    assert explain(setup, "explain", "git diff HEAD") == [
        "Mode: ask (from built-in default)",
        f"run     git diff HEAD  allowed  by allow rule 'Bash(git diff *)' at {claude}:1",
    ]


def test_web_rules_are_written_checked_and_explained(setup: Setup) -> None:
    local = setup.project / ".legato" / "settings.local.json"
    here = ("permissions", "--project", str(setup.project))
    wrote = setup.legato(*here, "allow", "WebFetch(domain:*.python.org)")
    assert wrote.returncode == 0, wrote.stderr
    before = local.read_text()
    # A rule the session would refuse at load never reaches the file.
    refused = setup.legato(*here, "allow", "WebSearch(python)")
    assert refused.returncode == 2
    assert "'WebSearch' takes no specifier" in refused.stderr
    assert "Write 'WebSearch' alone" in refused.stderr
    assert local.read_text() == before
    assert explain(setup, "explain", "https://docs.python.org/3/") == [
        "Mode: ask (from built-in default)",
        "fetch   https://docs.python.org/3/  allowed  by allow rule "
        f"'WebFetch(domain:*.python.org)' at {local}:4; if docs.python.org resolves to an "
        "address on this machine or its network, only the allow rule "
        "'WebFetch(domain:docs.python.org)' would allow it",
    ]
    assert explain(setup, "explain", "WebSearch") == [
        "Mode: ask (from built-in default)",
        "search  the web  asks     web searches are not allowed by any rule (headless: denied)",
    ]
