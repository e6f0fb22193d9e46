"""Rules in the reference's syntax, in the one policy: each form against the decision the
reference's permissions documentation gives (its examples, with paths of our own), deny before
ask before allow in every mode, and attacks that try to get past a rule."""

from __future__ import annotations

import os
from typing import TYPE_CHECKING

import pytest

from actors.permission_broker.policy import Policy
from actors.permission_broker.questions import Question
from actors.protocol import (
    Decision,
    GlobalConfig,
    OperationKind,
    PermissionMode,
    PermissionRequest,
    ProjectContext,
    ProjectSettings,
)
from actors.settings.rules import PermissionRule

if TYPE_CHECKING:
    from pathlib import Path

SOURCE = "/p/.claude/settings.json"


@pytest.fixture
def root(tmp_path: Path) -> str:
    project = tmp_path / "project"
    for folder in ("src", "secrets", "vendor/pkg/src", "vendor/pkg/secrets", "docs"):
        (project / folder).mkdir(parents=True)
    for name in ("src/app.ts", "vendor/pkg/src/lib.js", "secrets/key", ".env", "docs/a.md"):
        (project / name).write_text("x\n")
    (project / "vendor/pkg/secrets/key").write_text("x\n")
    return os.path.realpath(project)


def rules(root: str, **by_behavior: tuple[str, ...]) -> tuple[PermissionRule, ...]:
    return tuple(
        PermissionRule(behavior=behavior, text=text, source=SOURCE, line=line, anchor=root)  # type: ignore[arg-type]
        for behavior, texts in by_behavior.items()
        for line, text in enumerate(texts, start=3)
    )


def policy(
    root: str,
    mode: PermissionMode = "ask",
    *,
    home: str = "",
    settings: ProjectSettings | None = None,
    **by_behavior: tuple[str, ...],
) -> Policy:
    context = ProjectContext(
        project_root=root,
        config=GlobalConfig(),
        settings=settings or ProjectSettings(),
        model="claude-sonnet-4-6",
        permission_mode=mode,
        home=home,
        permission_rules=rules(root, **by_behavior),
    )
    return Policy(context)


def files(kind: OperationKind, *paths: str, tool: str = "Read") -> PermissionRequest:
    return PermissionRequest(tool=tool, kind=kind, paths=paths)


def run(command: str) -> PermissionRequest:
    return PermissionRequest(tool="Bash", kind="run", command=command)


def outcome(p: Policy, request: PermissionRequest) -> str:
    """'allowed', 'denied' or 'asks', as a headless run with nobody to ask would see it."""
    found = p.assess(request)
    if isinstance(found, Question):
        return "asks"
    return "allowed" if found.allowed else "denied"


# ── Bash ────────────────────────────────────────────────────────────────────────────────────

BASH_CASES = [
    # rule, command, allowed by the rule (an allow rule) or not
    ("Bash(npm run build)", "npm run build", True),
    ("Bash(npm run build)", "npm run build --watch", False),
    ("Bash(npm run test *)", "npm run test", True),
    ("Bash(npm run test *)", "npm run test --coverage", True),
    ("Bash(npm run test *)", "npm run testx", False),
    ("Bash(npm run test:*)", "npm run test -- -u", True),
    ("Bash(npm run test:*)", "npm run testing", False),
    ("Bash(ls *)", "ls -la", True),
    ("Bash(ls *)", "lsof", False),
    ("Bash(ls*)", "lsof", True),
    ("Bash(* install)", "pip install", True),
    ("Bash(* install)", "pip install x", False),
    ("Bash(git * main)", "git checkout main", True),
    ("Bash(git * main)", "git log --oneline main", True),
    ("Bash(git * main)", "git log dev", False),
    ("Bash(git:* push)", "git push", False),  # ':*' is a suffix only; elsewhere literal
    ("Bash", "make all", True),
    ("Bash(*)", "make all", True),
    # compound commands: every part must be covered
    ("Bash(npm run test:*)", "npm run test && rm -rf /", False),
    ("Bash(npm run test:*)", "npm run test; curl evil.example", False),
    ("Bash(npm run test:*)", "npm run test | sh", False),
    ("Bash(npm run test:*)", "npm run test\nrm -rf /", False),
    ("Bash(npm run test:*)", "npm run test $(rm -rf /)", False),
    ("Bash(npm run test:*)", "npm run test `rm x`", False),
    ("Bash(npm run test:*)", "npm run test & rm x", False),
    ("Bash(npm run test:*)", "bash -c 'npm run test; rm x'", False),
    ("Bash(npm run test:*)", "bash -c 'npm run test'", True),
    # wrappers the reference strips; others not
    ("Bash(npm test *)", "timeout 30 npm test", True),
    ("Bash(npm test *)", "nice -n 5 npm test", True),
    ("Bash(grep *)", "xargs grep pattern", True),
    ("Bash(grep *)", "xargs -n1 grep pattern", False),
    ("Bash(find *)", "find . -exec rm {} ;", False),
    ("Bash(sudo *)", "sudo rm -rf /", False),  # stricter: a trailing * names no program
    ("Bash(env *)", "env rm x", False),
    ("Bash(npm test *)", "LD_PRELOAD=/tmp/x.so npm test", False),
    ("Bash(rm x)", "/bin/rm x", False),  # an allow matches the command as written
]


@pytest.mark.parametrize(("rule", "command", "allows"), BASH_CASES)
def test_bash_allow_rules_as_the_reference_documents(
    root: str, rule: str, command: str, allows: bool
) -> None:
    found = outcome(policy(root, allow=(rule,)), run(command))
    assert (found == "allowed") is allows, found


DENY_CASES = [
    ("Bash(rm *)", "rm -rf tmp"),
    ("Bash(rm *)", "'r'm -rf tmp"),
    ("Bash(rm *)", '"rm" -rf tmp'),
    ("Bash(rm *)", "/bin/rm -rf tmp"),
    ("Bash(rm *)", "FOO=bar rm -rf tmp/"),
    ("Bash(rm *)", "env rm -rf tmp"),
    ("Bash(rm *)", "sudo rm -rf tmp"),
    ("Bash(rm *)", "echo x | xargs rm"),
    ("Bash(rm *)", "find . -exec rm {} ;"),
    ("Bash(rm *)", "bash -c 'rm -rf tmp'"),
    ("Bash(rm *)", "ls; rm -rf tmp"),
    ("Bash(rm *)", "ls && rm x"),
    ("Bash(rm *)", "ls\nrm x"),
    ("Bash(rm *)", "echo $(rm x)"),
    ("Bash(git push *)", "git -C . push origin"),
    ("Bash(git push:*)", "git push"),
    ("Bash(aws *)", "aws s3 ls"),
    ("Bash", "ls"),
    ("Bash(*)", "ls"),
]


@pytest.mark.parametrize(("rule", "command"), DENY_CASES)
@pytest.mark.parametrize("mode", ["ask", "auto", "bypass", "dont_ask"])
def test_a_bash_deny_rule_denies_every_spelling_in_every_mode(
    root: str, rule: str, command: str, mode: PermissionMode
) -> None:
    # A narrower allow, and Legato's own allowedCommands, lose to the deny.
    p = policy(
        root,
        mode,
        settings=ProjectSettings(allowed_commands=("rm", "aws", "git", "ls")),
        allow=("Bash(aws s3 ls)", "Bash(rm -rf tmp)", "Bash"),
        deny=(rule,),
    )
    found = p.assess(run(command))
    assert isinstance(found, Decision) and not found.allowed, found
    assert f"deny rule '{rule}' at {SOURCE}:3" in found.reason


def test_a_deny_on_a_command_whose_words_are_unknown_needs_a_person(root: str) -> None:
    p = policy(root, "bypass", allow=("Bash",), deny=("Bash(rm -rf *)",))
    assert outcome(p, run("rm $FLAGS tmp")) == "asks"


@pytest.mark.parametrize("mode", ["ask", "auto", "bypass", "custom"])
def test_an_ask_rule_asks_in_every_mode_even_over_an_allow(root: str, mode: PermissionMode) -> None:
    p = policy(root, mode, allow=("Bash(git *)",), ask=("Bash(git push *)",))
    found = p.assess(run("git push origin main"))
    assert isinstance(found, Question) and found.person_only
    assert f"ask rule 'Bash(git push *)' at {SOURCE}:3" in found.headless_reason
    assert outcome(p, run("git status")) == "allowed"


def test_an_ask_rule_in_dont_ask_mode_denies(root: str) -> None:
    p = policy(root, "dont_ask", allow=("Bash",), ask=("Bash(git push *)",))
    assert outcome(p, run("git push")) == "denied"


def test_an_always_answer_does_not_lift_a_deny_rule(root: str) -> None:
    p = policy(root, deny=("Bash(curl *)",))
    first = p.assess(run("wget x"))
    assert isinstance(first, Question)
    p.answer(first, "always")
    assert outcome(p, run("wget x")) == "allowed"
    assert outcome(p, run("curl x")) == "denied"


# ── Read and Edit ───────────────────────────────────────────────────────────────────────────

PATH_CASES = [
    # rule, behavior, kind, path, matched
    ("Edit(src/**)", "allow", "write", "src/app.ts", True),
    ("Edit(src/**)", "allow", "write", "vendor/pkg/src/lib.js", False),
    ("Edit(src/**)", "deny", "write", "src/app.ts", True),
    ("Edit(src/**)", "deny", "write", "vendor/pkg/src/lib.js", True),
    ("Edit(/src/**)", "allow", "write", "vendor/pkg/src/lib.js", False),
    ("Edit(/src/**)", "deny", "write", "vendor/pkg/src/lib.js", False),
    ("Edit(/src/**)", "deny", "write", "src/app.ts", True),
    ("Edit(**/src/**)", "allow", "write", "vendor/pkg/src/lib.js", True),
    ("Edit(**/src/**)", "deny", "write", "vendor/pkg/src/lib.js", True),
    ("Read(./secrets/**)", "deny", "read", "secrets/key", True),
    ("Read(./secrets/**)", "deny", "read", "vendor/pkg/secrets/key", True),
    ("Read(.env)", "deny", "read", ".env", True),
    ("Read(**/.env)", "deny", "read", ".env", True),
    ("Read(.env)", "deny", "write", ".env", True),  # a Read deny holds against writes too
    ("Read(.env)", "deny", "create", ".env", True),
    ("Edit(.env)", "deny", "read", ".env", False),  # an Edit deny leaves reading alone
    ("Read(src/**)", "allow", "write", "src/app.ts", False),  # reading is not editing
    ("Read(*.md)", "allow", "read", "docs/a.md", True),
]


@pytest.mark.parametrize(("rule", "behavior", "kind", "path", "matched"), PATH_CASES)
def test_path_rules_as_the_reference_documents(
    root: str, rule: str, behavior: str, kind: OperationKind, path: str, matched: bool
) -> None:
    p = policy(root, "ask", **{behavior: (rule,)})  # type: ignore[arg-type]
    found = outcome(p, files(kind, os.path.join(root, path), tool="Edit"))
    expected = {"allow": "allowed", "deny": "denied"}[behavior]
    assert (found == expected) is matched, found


def test_paths_anchored_at_home_absolute_and_the_settings_file(root: str, tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".claude" / "secrets").mkdir(parents=True)
    p = policy(
        root,
        "auto",
        home=str(home),
        deny=("Read(~/.ssh/**)", f"Read(/{'secrets'}/**)"),
        allow=(f"Read(//{root.lstrip('/')}/docs/**)",),
    )
    assert outcome(p, files("read", str(home / ".ssh" / "id_rsa"))) == "denied"
    assert outcome(p, files("read", os.path.join(root, "docs/a.md"))) == "allowed"
    # '/secrets/**' is the settings source's anchor: here the project (rules(anchor=root)).
    assert outcome(p, files("read", os.path.join(root, "secrets/key"))) == "denied"


def test_a_user_level_slash_rule_anchors_at_its_claude_folder(root: str, tmp_path: Path) -> None:
    home = os.path.realpath(tmp_path / "home")
    rule = PermissionRule(
        behavior="deny",
        text="Read(/secrets/**)",
        source=f"{home}/.claude/settings.json",
        line=2,
        anchor=f"{home}/.claude",
    )
    context = ProjectContext(
        project_root=root,
        config=GlobalConfig(),
        settings=ProjectSettings(),
        model="m",
        permission_mode="auto",
        home=home,
        permission_rules=(rule,),
    )
    p = Policy(context)
    assert outcome(p, files("read", os.path.join(root, "secrets/key"))) == "allowed"
    assert outcome(p, files("read", f"{home}/.claude/secrets/x")) == "denied"


def test_a_symlink_is_judged_by_both_names(root: str, tmp_path: Path) -> None:
    home = tmp_path / "home"
    (home / ".ssh").mkdir(parents=True)
    (home / ".ssh" / "id_rsa").write_text("k")
    os.symlink(home / ".ssh" / "id_rsa", os.path.join(root, "src", "key"))
    p = policy(root, "ask", home=str(home), allow=("Read(./src/**)",), deny=("Read(~/.ssh/**)",))
    assert outcome(p, files("read", os.path.join(root, "src/key"))) == "denied"
    # Allowed only where both names are: without the deny it is a question, not a yes.
    p = policy(root, "ask", home=str(home), allow=("Read(./src/**)",))
    assert outcome(p, files("read", os.path.join(root, "src/key"))) == "asks"
    assert outcome(p, files("read", os.path.join(root, "src/app.ts"))) == "allowed"


def test_dot_dot_does_not_lead_around_a_deny(root: str) -> None:
    p = policy(root, "bypass", deny=("Read(./secrets/**)",))
    assert outcome(p, files("read", os.path.join(root, "src/../secrets/key"))) == "denied"
    assert outcome(p, run("cat src/../secrets/key")) == "denied"


def test_a_read_deny_holds_for_file_commands_and_redirections(root: str) -> None:
    p = policy(root, "bypass", allow=("Bash",), deny=("Read(.env)", "Edit(/src/**)"))
    assert outcome(p, run("cat .env")) == "denied"
    assert outcome(p, run("grep KEY .env")) == "denied"
    assert outcome(p, run("wc < .env")) == "denied"
    assert outcome(p, run("echo x > src/app.ts")) == "denied"
    assert outcome(p, run("cat docs/a.md")) == "allowed"


def test_a_walk_leaves_out_what_a_read_deny_covers(root: str) -> None:
    p = policy(root, "auto", deny=("Read(./secrets/**)", "Read(.env)"))
    paths = [os.path.join(root, n) for n in ("secrets/key", ".env", "src/app.ts")]
    assert p.filter_readable(root, paths) == (False, False, True)


# ── tools, MCP ──────────────────────────────────────────────────────────────────────────────


@pytest.mark.parametrize(
    ("rule", "tool", "server", "matched"),
    [
        ("mcp__github", "mcp__github__create_issue", "github", True),
        ("mcp__github__*", "mcp__github__create_issue", "github", True),
        ("mcp__github__get_*", "mcp__github__get_issue", "github", True),
        ("mcp__github__get_*", "mcp__github__create_issue", "github", False),
        ("mcp__github__create_issue", "mcp__github__create_issue", "github", True),
        ("mcp__github", "mcp__github__x__y", "github__x", False),  # another server
        ("mcp__git", "mcp__github__x", "github", False),
    ],
)
def test_mcp_rules(root: str, rule: str, tool: str, server: str, matched: bool) -> None:
    call = PermissionRequest(tool=tool, kind="call", server=server)
    assert (outcome(policy(root, allow=(rule,)), call) == "allowed") is matched
    assert (outcome(policy(root, "bypass", deny=(rule,)), call) == "denied") is matched


def test_tool_name_globs_deny_but_do_not_allow(root: str) -> None:
    call = PermissionRequest(tool="mcp__a__b", kind="call", server="a")
    assert outcome(policy(root, "bypass", deny=("mcp__*",)), call) == "denied"
    assert outcome(policy(root, allow=("mcp__*",)), call) == "asks"
    assert outcome(policy(root, "bypass", deny=("*",)), files("read", root)) == "denied"


def test_a_bare_read_deny_covers_the_tools_that_read(root: str) -> None:
    p = policy(root, "auto", deny=("Read",))
    for tool in ("Read", "Grep", "Glob"):
        assert outcome(p, files("read", root, tool=tool)) == "denied"
    assert outcome(p, files("write", os.path.join(root, "src/app.ts"), tool="Edit")) == "allowed"


# ── explain, the sandbox's hidden files, subagents ──────────────────────────────────────────


def test_explain_names_the_file_line_and_rule_that_decided(root: str) -> None:
    from actors.permission_broker.explain import report
    from frontends.commands.permission_lines import decision_lines, rule_lines
    from frontends.commands.permission_targets import requests_for

    p = policy(
        root,
        "auto",
        settings=ProjectSettings(allowed_commands=("git status",)),
        deny=("Read(./secrets/**)",),
        ask=("Bash(git push *)",),
        allow=("Bash(npm run test:*)",),
    )
    target = os.path.join(root, "secrets/key")
    found = report(p, (*requests_for(target, root), *requests_for("git push origin", root)))
    lines = decision_lines(found)
    denial = f"by deny rule 'Read(./secrets/**)' at {SOURCE}:3 (path 'secrets/key')"
    assert lines[0] == f"read    secrets/key  denied   {denial}"
    assert lines[1].startswith("edit    secrets/key  denied   by deny rule")
    assert lines[3].startswith("run     git push origin  asks     ask rule 'Bash(git push *)' at ")
    run_test = report(p, requests_for("npm run test -- -u", root))
    assert decision_lines(run_test) == [
        f"run     npm run test -- -u  allowed  by allow rule 'Bash(npm run test:*)' at {SOURCE}:3"
    ]
    listed = rule_lines(report(p))
    start = listed.index("Permission rules (deny, then ask, then allow, whatever file):")
    assert listed[start + 1 :] == [
        f"  {SOURCE}",
        "    :3    deny   Read(./secrets/**)",
        "    :3    ask    Bash(git push *)",
        "    :3    allow  Bash(npm run test:*)",
    ]


def test_a_read_deny_hides_files_from_confined_commands_and_checkpoints(root: str) -> None:
    p = policy(root, deny=("Read(./secrets/**)",))
    assert p.hidden(os.path.join(root, "vendor/pkg/secrets/key"))
    assert not p.hidden(os.path.join(root, "src/app.ts"))


def test_an_agent_deny_takes_the_type_out_of_what_is_offered_and_started() -> None:
    from actors.conductor.agents import GENERAL_PURPOSE, agent_types
    from actors.settings.rule_check import denied_agents

    denied = denied_agents(rules("/p", deny=("Agent(general-purpose)", "Agent(Explore)")))
    assert agent_types((), denied) == {}
    assert agent_types(()) == {GENERAL_PURPOSE.name: GENERAL_PURPOSE}


# ── attacks ─────────────────────────────────────────────────────────────────────────────────


@pytest.mark.parametrize(
    "text", ["Edit(../**)", "Read(/../../etc/passwd)", "Read(src/../../x)", "Edit(~/../x)"]
)
def test_a_rule_cannot_climb_out_of_its_anchor(text: str) -> None:
    from actors.errors import ConfigError
    from actors.settings.rule_check import check_rules

    rule = PermissionRule(behavior="allow", text=text, source=SOURCE, line=4, anchor="/p")
    with pytest.raises(ConfigError, match=r"'\.\.'"):
        check_rules([rule])


def test_a_deny_rule_beats_legato_s_own_allowed_paths_and_tools(root: str) -> None:
    p = policy(
        root,
        "bypass",
        settings=ProjectSettings(allowed_paths=("**",), allowed_tools=("Read",)),
        deny=("Read(.env)",),
    )
    assert outcome(p, files("read", os.path.join(root, ".env"))) == "denied"
    assert outcome(p, files("read", os.path.join(root, "src/app.ts"))) == "allowed"


def test_an_allow_rule_does_not_open_legato_s_own_files(root: str) -> None:
    os.makedirs(os.path.join(root, ".git", "hooks"))
    p = policy(root, "bypass", allow=("Edit(**)", "Edit(/.legato/**)"))
    for path in (".legato/settings.json", ".git/hooks/pre-commit"):
        found = p.assess(files("write", os.path.join(root, path), tool="Edit"))
        assert isinstance(found, Question) and found.person_only, path


def test_an_ask_rule_offers_no_always_and_a_yes_covers_that_call_only(root: str) -> None:
    p = policy(root, "ask", ask=("Read(.env)",))
    target = files("read", os.path.join(root, ".env"))
    found = p.assess(target)
    assert isinstance(found, Question) and "always" not in found.choices
    assert p.answer(found, "always").allowed is False  # not one of the choices
    assert p.answer(found, "y").allowed
    assert isinstance(p.assess(target), Question)


def test_a_hard_link_to_a_denied_file_needs_a_person(root: str) -> None:
    os.link(os.path.join(root, ".env"), os.path.join(root, "src", "notes.txt"))
    p = policy(root, "bypass", deny=("Read(.env)",))
    request = PermissionRequest(
        tool="Read", kind="read", paths=(os.path.join(root, "src/notes.txt"),), hard_links=2
    )
    assert outcome(p, request) == "asks"
    assert p.filter_readable(root, [os.path.join(root, "src/notes.txt")]) == (False,)


def test_a_symlinked_folder_does_not_lead_around_a_deny(root: str) -> None:
    os.symlink(os.path.join(root, "secrets"), os.path.join(root, "src", "s"))
    p = policy(root, "bypass", allow=("Bash",), deny=("Read(./secrets/**)",))
    assert outcome(p, files("read", os.path.join(root, "src/s/key"))) == "denied"
    assert outcome(p, run("cat src/s/key")) == "denied"
    assert p.filter_readable(os.path.join(root, "src"), [os.path.join(root, "src/s/key")]) == (
        False,
    )


@pytest.mark.parametrize("command", ["rm -rf x", "RM -rf x", "rm\t-rf x", "rm  -rf  x"])
def test_spacing_and_case_of_a_command(root: str, command: str) -> None:
    # Whitespace is the shell's to fold; a program's name keeps its case ('RM' is no rm).
    p = policy(root, "bypass", deny=("Bash(rm *)",))
    assert outcome(p, run(command)) == ("allowed" if command.startswith("RM") else "denied")


def test_an_ask_on_a_command_whose_words_are_unknown_asks(root: str) -> None:
    p = policy(root, "bypass", allow=("Bash(git *)",), ask=("Bash(git push *)",))
    assert outcome(p, run("git $SUB origin")) == "asks"
    assert outcome(p, run("git log")) == "allowed"


def test_webfetch_rules_are_there_for_a_fetch_tool_to_ask(root: str) -> None:
    from actors.permission_broker.rule_set import RuleSet

    found = RuleSet(
        rules(
            root,
            deny=("WebFetch(domain:*.evil.example)",),
            allow=("WebFetch(domain:docs.example.com)", "WebFetch(domain:example.*)"),
        ),
        root,
        root,
    )
    assert found.domain("deny", "a.b.evil.example") is not None
    assert found.domain("deny", "evil.example") is None
    assert found.domain("allow", "DOCS.example.com.") is not None
    assert found.domain("allow", "example.org") is not None
    assert found.domain("allow", "example.evil.com") is None


def test_an_at_path_attachment_is_held_by_a_read_deny(root: str) -> None:
    p = policy(root, "auto", deny=("Read(.env)",))
    named = PermissionRequest(
        tool="Read", kind="read", paths=(os.path.join(root, ".env"),), named_by_user=True
    )
    assert outcome(p, named) == "denied"


def test_a_name_stored_decomposed_is_the_name_the_rule_writes(root: str) -> None:
    import unicodedata

    decomposed = unicodedata.normalize("NFD", "café.key")
    with open(os.path.join(root, "src", decomposed), "w") as file:
        file.write("k")
    p = policy(root, "bypass", deny=("Read(café.key)",))
    assert outcome(p, files("read", os.path.join(root, "src", decomposed))) == "denied"


def test_a_bare_ask_makes_every_use_of_the_tool_ask_in_bypass(root: str) -> None:
    p = policy(root, "bypass", ask=("Bash",))
    assert outcome(p, run("ls")) == "asks"
    assert outcome(p, files("read", os.path.join(root, "src/app.ts"))) == "allowed"


def test_a_rule_s_text_cannot_paint_the_terminal(root: str) -> None:
    from actors.errors import ConfigError
    from actors.settings.rule_check import check_rules

    p = policy(root, "bypass", deny=("Bash(rm *)\x1b[2J",))
    found = p.assess(run("rm \x1b[2J"))
    assert "\x1b" not in f"{found}"
    hostile = PermissionRule(
        behavior="deny", text="Read(src/\x1b]52;c;eA==\x07[)", source=SOURCE, line=2
    )
    with pytest.raises(ConfigError) as caught:
        check_rules([hostile])
    assert "\x1b" not in f"{caught.value} {caught.value.remedy}"


def test_an_untrusted_project_s_bash_allow_rule_holds_only_in_the_sandbox(root: str) -> None:
    # The memory store lists an untrusted project's specific allow rules with its
    # allowedCommands entries that apply only where the sandbox holds the command.
    context = ProjectContext(
        project_root=root,
        config=GlobalConfig(),
        settings=ProjectSettings(),
        model="m",
        permission_mode="ask",
        permission_rules=rules(root, allow=("Bash(make test)", "Bash(git status)")),
        confined_only_commands=("Bash(make test)",),
    )
    p = Policy(context)
    confined = PermissionRequest(tool="Bash", kind="run", command="make test", confined=True)
    assert outcome(p, confined) == "allowed"
    found = p.assess(run("make test"))  # no sandbox: it would run as the user
    assert isinstance(found, Question) and "only in the sandbox" in found.headless_reason
    assert outcome(p, run("git status")) == "allowed"


def test_a_command_no_rule_covers_is_said_in_the_words_of_the_rules_the_user_writes(
    root: str,
) -> None:
    # A Claude Code user never wrote an allowedCommands entry: the reason names their list too.
    theirs = policy(root, allow=("Bash(npm run test:*)",)).assess(run("git push"))
    assert isinstance(theirs, Question)
    assert "'git push' is not in any allow rule (permissions.allow)" in theirs.headless_reason
    ours = policy(root, settings=ProjectSettings(allowed_commands=("make",))).assess(
        run("git push")
    )
    assert isinstance(ours, Question)
    assert "'git push' is not in allowedCommands" in ours.headless_reason
