"""Reading the reference's rule syntax at load: what is refused (file, line, field, remedy),
what is warned about, and what a bare-name deny removes from what the model is offered."""

from __future__ import annotations

import pytest

from actors.errors import ConfigError
from actors.protocol import GlobalConfig, ProjectContext, ProjectSettings
from actors.settings.rule_check import (
    check_rules,
    denied_agents,
    removed_tools,
    with_rules_checked,
)
from actors.settings.rule_syntax import domain_matches, parse
from actors.settings.rules import PermissionRule, RuleBehavior

SOURCE = "/p/.claude/settings.json"


def rule(text: str, behavior: RuleBehavior = "deny", line: int = 7) -> PermissionRule:
    return PermissionRule(behavior=behavior, text=text, source=SOURCE, line=line, anchor="/p")


@pytest.mark.parametrize(
    ("text", "behavior", "says"),
    [
        ("read(.env)", "deny", "Write 'Read(.env)'"),
        ("READ(.env)", "deny", "Write 'Read(.env)'"),
        ("Bash()", "deny", "empty specifier"),
        ("Bash(   )", "allow", "empty specifier"),
        ("Bash(:*)", "deny", "names no command"),
        ("Bash(npm test", "allow", "not closed"),
        ("Bash)", "deny", "no '('"),
        ("", "deny", "empty"),
        ("Ваsh(rm *)", "deny", "look-alike"),  # Cyrillic 'В' and 'а'
        ("Bаsh", "deny", "look-alike"),
        ("Read(!.env)", "deny", "exception"),
        ("Read(~root/.ssh)", "deny", "'~user'"),
        ("Read(src/[ab)", "deny", "'['"),
        ("Bash(run_in_background:true)", "deny", "input parameter"),
        ("Agent(model:opus)", "ask", "input parameter"),
        ("mcp__github(repo:x)", "deny", "input parameter"),
        ("mcp__github(x)", "deny", "no specifier"),
        ("mcp__", "deny", "names no server"),
        ("mcp__x__", "deny", "names no server"),
        ("Mcp__github", "deny", "lower case"),
        ("WebFetch(https://x.com)", "allow", "not a domain rule"),
        ("TaskStop(x)", "deny", "no specifier"),
        ("mcp__*(x)", "deny", "no specifier"),
    ],
)
def test_a_rule_legato_cannot_honour_is_refused_naming_file_line_field(
    text: str, behavior: RuleBehavior, says: str
) -> None:
    with pytest.raises(ConfigError) as caught:
        check_rules([rule("Bash", "allow"), rule(text, behavior)])
    error = caught.value
    assert (error.path, error.line) == (SOURCE, 7)
    index = 1 if behavior == "allow" else 0
    assert error.field == f"permissions.{behavior}[{index}]"
    assert says in f"{error} {error.remedy}"


def test_a_flag_rule_is_refused_naming_the_flag() -> None:
    flag = PermissionRule(behavior="deny", text="bash(rm *)", source="--disallowedTools")
    with pytest.raises(ConfigError) as caught:
        check_rules([flag])
    assert str(caught.value).startswith("--disallowedTools: ")
    assert caught.value.field is None


@pytest.mark.parametrize(
    ("text", "behavior", "says"),
    [
        ("Write(docs/**)", "deny", "write 'Edit(docs/**)'"),
        ("Glob(src/**)", "allow", "write 'Read(src/**)'"),
        ("NotebookEdit(x.ipynb)", "deny", "write 'Edit(x.ipynb)'"),
        ("Frobnicate", "deny", "matches nothing"),
        ("*", "allow", "skipped"),
        ("mcp__*", "allow", "skipped"),
        ("B*", "allow", "skipped"),
        ("Bash(command:rm *)", "allow", "skipped"),
    ],
)
def test_a_rule_that_matches_less_than_it_says_is_warned_about(
    text: str, behavior: RuleBehavior, says: str
) -> None:
    (warning,) = check_rules([rule(text, behavior)])
    assert warning.startswith(f"{SOURCE}:7: {behavior} rule {text!r}: ")
    assert says in warning


def test_rules_for_tools_legato_lacks_are_said_in_one_line_naming_each() -> None:
    texts = ["TodoWrite", "LSP", "Cd(~/code/*)", "TodoWrite(x)", "WebFetch", "WebSearch"]
    (warning,) = check_rules([rule(text, "deny") for text in texts])
    assert warning.startswith("4 rules for tools Legato does not have yet (TodoWrite, LSP, Cd)")
    assert f"'TodoWrite' at {SOURCE}:7" in warning
    assert warning.endswith(" and 1 more")
    assert "Web" not in warning  # the web tools are Legato's: their rules act


@pytest.mark.parametrize(
    "text",
    [
        "Bash",
        "Bash(*)",
        "Bash(npm run test:*)",
        "Bash(git * main)",
        "Read(./secrets/**)",
        "Read(//etc/ssl/**)",
        "Read(~/.ssh/**)",
        "Edit(/src/**/*.ts)",
        "mcp__github",
        "mcp__github__get_issue",
        "mcp__github__*",
        "Agent(Explore)",
        "Read(.env) ",  # a trailing space around the rule is not part of it
        " Bash(ls *)",
    ],
)
def test_the_documented_forms_load_without_a_warning(text: str) -> None:
    assert check_rules([rule(text, "allow"), rule(text, "deny")]) == ()


def test_bash_star_is_bare_bash_and_a_trailing_space_inside_is_not_kept() -> None:
    assert parse("Bash(*)", "deny").bare
    assert parse("Bash( npm  test )", "allow").specifier == "npm test"


@pytest.mark.parametrize(
    ("pattern", "host", "matched"),
    [
        ("example.com", "example.com", True),
        ("example.com", "EXAMPLE.com.", True),
        ("example.com", "api.example.com", False),
        ("*.example.com", "api.example.com", True),
        ("*.example.com", "a.b.example.com", True),
        ("*.example.com", "example.com", False),
        ("*.example.com", "evilexample.com", False),
        ("example.*", "example.org", True),
        ("example.*", "example.evil.com", False),
        ("*", "anything.test", True),
    ],
)
def test_webfetch_domains_as_the_reference_documents(
    pattern: str, host: str, matched: bool
) -> None:
    assert domain_matches(pattern, host) is matched


def test_bare_name_denies_remove_tools_and_agent_denies_name_types() -> None:
    rules = [
        rule("Bash"),
        rule("Read"),
        rule("Edit(src/**)"),
        rule("Write", "allow"),
        rule("Agent(Explore)"),
    ]
    assert set(removed_tools(rules)) == {"Bash", "Read", "Grep", "Glob"}
    assert denied_agents(rules) == frozenset({"Explore"})
    assert set(removed_tools([rule("*")])) >= {"Bash", "Read", "Edit", "Write", "Agent"}


def test_the_context_carries_the_warnings_and_the_removed_tools() -> None:
    context = ProjectContext(
        project_root="/p",
        config=GlobalConfig(),
        settings=ProjectSettings(),
        model="m",
        permission_mode="ask",
        warnings=("earlier",),
        permission_rules=(rule("Bash(*)"), rule("TodoWrite"), rule("WebSearch")),
    )
    checked = with_rules_checked(context)
    assert checked.refused_tools == ("Bash", "WebSearch")
    assert checked.warnings[0] == "earlier"
    assert "tools Legato does not have yet (TodoWrite)" in checked.warnings[1]


def test_a_pattern_of_many_wildcards_is_matched_without_backtracking() -> None:
    from actors.settings.rule_syntax import CommandPattern, wildcard

    # A regex of this shape backtracks through the text once per '*': far past any test's
    # patience. The matcher retries only its last '*'.
    pattern = CommandPattern.parse("a*" * 30 + "b")
    assert not pattern.fullmatch("a" * 20_000)
    assert pattern.fullmatch("a" * 20_000 + "b")
    assert wildcard("git * main", "git push origin main")
    assert not wildcard("git * main", "git push origin mainx")
    assert wildcard("*", "")
    assert wildcard("a**b", "ab")
