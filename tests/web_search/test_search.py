"""WebSearch end to end in one process: the model's call, the permission asked, the search as
one request of its own with the API's server tool, and what the model and the person get."""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any

import anyio
import pytest

from actors.conductor import web_search
from actors.protocol import Decision, GetUsage, ListOfferedTools, ToolFinished, ToolOutput
from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls
from frontends.demo.scripted_api import web_search as searched
from tests.web_search.harness import received, search_session

if TYPE_CHECKING:
    from actors.protocol import Block, Message
    from tests.frontends.conftest import Project

pytestmark = pytest.mark.trio

RESULTS = [
    (
        "Python 3.13 released",
        "https://www.python.org/downloads/release/python-3130/",
        "2 weeks ago",
    ),
    ("What's new in 3.13", "https://docs.python.org/3/whatsnew/3.13.html", None),
]


def search(
    query: str = "python 3.13 release", usage: dict[str, int] | None = None, **more: Any
) -> Any:
    return tool_calls([call("WebSearch", {"query": query, **more}, id="toolu_search")], usage=usage)


def found(text: str = "Python 3.13 was released in October 2024.") -> Any:
    return searched("python 3.13 release", RESULTS, answer=text)


def tool_result(messages: list[Message]) -> Block:
    for message in messages:
        for block in message.content:
            if block.get("type") == "tool_result" and block["tool_use_id"] == "toolu_search":
                return block
    raise AssertionError("no result for the search")


async def test_an_allowed_search_runs_on_the_server_tool_and_the_model_gets_the_results(
    project: Project,
) -> None:
    script = [
        search(usage={"input_tokens": 1, "output_tokens": 2}),
        searched(
            "python 3.13 release",
            RESULTS,
            answer="Python 3.13 was released in October 2024.",
            usage={"input_tokens": 100, "output_tokens": 10},
        ),
        text("It came out in October.", usage={"input_tokens": 10, "output_tokens": 10}),
    ]
    with ScriptedServer(script) as server:
        async with search_session(project.root, project.home, server.url) as session:
            outcome = await session.prompt("when was python 3.13 released?")
            messages = await session.conversation()
            usage = await session.conductor.ask(GetUsage())
    assert outcome.subtype == "success"
    (asked,) = session.judge.asked
    assert (asked.tool, asked.kind, asked.tool_use_id) == ("WebSearch", "search", "toolu_search")
    assert asked.arguments == {"query": "python 3.13 release"}
    sub = server.requests[1].body
    assert sub["tools"] == [{"type": "web_search_20250305", "name": "web_search", "max_uses": 5}]
    assert "python 3.13 release" in sub["messages"][0]["content"][0]["text"]
    assert sub["model"] == server.requests[0].body["model"]
    result = tool_result(messages)
    assert "is_error" not in result
    content = result["content"]
    assert "untrusted content from the web" in content
    assert (
        "1. Python 3.13 released — https://www.python.org/downloads/release/python-3130/ "
        "(2 weeks ago)" in content
    )
    assert "2. What's new in 3.13 — https://docs.python.org/3/whatsnew/3.13.html\n" in content
    assert "Python 3.13 was released in October 2024." in content
    assert "Sources cited: https://www.python.org/" in content
    # The main conversation holds the tool result, never the sub-request's server blocks.
    assert all(b.get("type") != "server_tool_use" for m in messages for b in m.content)
    # The person sees each result: title, URL and age, under the call.
    lines = "".join(
        event.text for event in session.recorder.events if isinstance(event, ToolOutput)
    )
    assert lines.splitlines() == [
        f"{RESULTS[0][0]} — {RESULTS[0][1]} (2 weeks ago)",
        "What's new in 3.13 — https://docs.python.org/3/whatsnew/3.13.html",
    ]
    # Three answers counted, the search's among them: in the session's usage and the prompt's.
    assert (usage.input_tokens, usage.output_tokens) == (111, 22)
    assert (outcome.usage.input_tokens, outcome.usage.output_tokens) == (111, 22)


async def test_a_paused_search_is_sent_back_exactly_and_goes_on(project: Project) -> None:
    paused = searched("python 3.13 release", RESULTS[:1], stop_reason="pause_turn")
    more = searched(
        "python 3.13 changes", RESULTS[1:], answer="It adds a JIT.", id="srvtoolu_second"
    )
    with ScriptedServer([search(), paused, more, text("Done.")]) as server:
        async with search_session(project.root, project.home, server.url) as session:
            outcome = await session.prompt("search")
            messages = await session.conversation()
    assert outcome.subtype == "success"
    first, then = server.requests[1].body, server.requests[2].body
    # The continuation is the same request with the paused answer after it, block for block
    # as the server sent it (the server refuses changed search blocks with a 400).
    assert then["messages"][0] == first["messages"][0]
    assert then["tools"] == first["tools"]
    sent_back = then["messages"][1]
    assert sent_back["role"] == "assistant"
    assert sent_back["content"] == [dict(block) for block in paused.blocks]
    content = tool_result(messages)["content"]
    assert "1. Python 3.13 released" in content and "2. What's new in 3.13" in content
    assert "It adds a JIT." in content


@pytest.mark.parametrize(
    ("code", "words"),
    [
        ("max_uses_exceeded", "used every search it may (maxUses)"),
        ("too_many_requests", "rate limited"),
        ("query_too_long", "search with fewer words"),
        ("unavailable", "unavailable; try again later"),
    ],
)
async def test_an_error_code_gives_a_clear_message(project: Project, code: str, words: str) -> None:
    failed = searched("python 3.13 release", error_code=code)
    with ScriptedServer([search(), failed, text("Sorry.")]) as server:
        async with search_session(project.root, project.home, server.url) as session:
            await session.prompt("search")
            result = tool_result(await session.conversation())
    assert result["is_error"] is True
    assert result["content"] == f"The search failed ({code}): {web_search_words(words)}"


def web_search_words(words: str) -> str:
    from actors.conductor.search_results import ERROR_CODES

    (meaning,) = [m for m in ERROR_CODES.values() if words in m]
    return meaning + "."


async def test_a_prompt_makes_a_bounded_number_of_searches(
    project: Project, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(web_search, "MAX_SEARCHES", 1)
    two = tool_calls(
        [
            call("WebSearch", {"query": "first query"}, id="toolu_search"),
            call("WebSearch", {"query": "second query"}, id="toolu_again"),
        ]
    )
    with ScriptedServer([two, found(), text("Done.")]) as server:
        async with search_session(project.root, project.home, server.url) as session:
            await session.prompt("search twice")
            messages = await session.conversation()
            # The bound is the prompt's: the next prompt may search again.
    again = [b for m in messages for b in m.content if b.get("tool_use_id") == "toolu_again"]
    assert again[0]["is_error"] is True
    assert again[0]["content"] == (
        "This prompt has made 1 web search, the most one prompt may; answer from what was found"
    )
    assert len(server.requests) == 3  # the second call never reached the API
    assert [r.arguments for r in session.judge.asked] == [{"query": "first query"}]


@pytest.mark.parametrize(
    ("given", "message"),
    [
        (
            {"allowed_domains": ["python.org"], "blocked_domains": ["pinterest.com"]},
            'Give "allowed_domains" or "blocked_domains", not both',
        ),
        ({"allowed_domains": ["https://python.org/"]}, "is not a domain name"),
        ({"blocked_domains": "pinterest.com"}, '"blocked_domains" must be a list'),
    ],
)
async def test_bad_domain_lists_are_refused_before_anything_is_asked(
    project: Project, given: dict[str, Any], message: str
) -> None:
    with ScriptedServer([search(**given), text("Ok.")]) as server:
        async with search_session(project.root, project.home, server.url) as session:
            await session.prompt("search")
            result = tool_result(await session.conversation())
    assert result["is_error"] is True
    assert message in result["content"]
    assert session.judge.asked == []
    assert len(server.requests) == 2


async def test_the_settings_bound_and_narrow_the_search(project: Project) -> None:
    project.root.joinpath(".legato").mkdir()
    project.root.joinpath(".legato/settings.json").write_text(
        '{"webSearch": {"maxUses": 2, "allowedDomains": ["python.org"]}}'
    )
    narrowed = search(allowed_domains=["docs.python.org"])
    outside = tool_calls([call("WebSearch", {"query": "x y", "allowed_domains": ["evil.test"]})])
    script = [narrowed, found(), outside, text("Done.")]
    with ScriptedServer(script) as server:
        async with search_session(project.root, project.home, server.url) as session:
            await session.prompt("search")
            messages = await session.conversation()
    assert server.requests[1].body["tools"] == [
        {
            "type": "web_search_20250305",
            "name": "web_search",
            "max_uses": 2,
            "allowed_domains": ["docs.python.org"],
        }
    ]
    last = messages[-2].content[0]
    assert last["is_error"] is True
    assert (
        "evil.test is outside the domains the settings allow searching (python.org)"
        in (last["content"])
    )


async def test_a_denied_search_sends_nothing_and_says_why(project: Project) -> None:
    no = Decision(False, "no rule allows WebSearch in a headless run", remedy="Add WebSearch")
    with ScriptedServer([search(), text("Ok.")]) as server:
        async with search_session(project.root, project.home, server.url, decision=no) as session:
            await session.prompt("search")
    finished = [e for e in session.recorder.events if isinstance(e, ToolFinished)]
    assert finished[0].result.denied is True
    assert finished[0].result.content == (
        "no rule allows WebSearch in a headless run\n  → Add WebSearch"
    )
    assert len(server.requests) == 2


async def test_an_openai_compatible_provider_is_not_offered_web_search(project: Project) -> None:
    with ScriptedServer([]) as server:
        async with search_session(project.root, project.home, server.url) as anthropic:
            offered = await anthropic.conductor.ask(ListOfferedTools())
        openai = {"OPENAI_BASE_URL": f"{server.url}/v1"}
        async with search_session(
            project.root, project.home, server.url, model="openai:qwen", env=openai
        ) as session:
            without = await session.conductor.ask(ListOfferedTools())
    assert "WebSearch" in offered
    assert "WebSearch" not in without


async def test_an_interrupted_search_leaves_a_conversation_the_api_accepts(
    project: Project,
) -> None:
    seen = threading.Semaphore(0)
    slow = searched("python 3.13 release", RESULTS, answer="Slow.")
    slow_step = slow.__class__(blocks=slow.blocks, delay=30.0)
    script = [search(), slow_step, text("Next prompt's answer.")]
    with ScriptedServer(script, on_received=seen.release) as server:
        async with search_session(project.root, project.home, server.url) as session:
            with anyio.CancelScope() as scope:
                async with anyio.create_task_group() as group:
                    group.start_soon(session.prompt, "search")
                    await received(2, seen)  # the search's own request is on its way
                    scope.cancel()
            messages = await session.conversation()
            outcome = await session.prompt("and now?")
    result = tool_result(messages)
    assert result["is_error"] is True
    assert "before the search finished" in result["content"]
    # The next request carried that conversation, and the server (which checks that every
    # tool_use has its result) answered it.
    assert outcome.subtype == "success"
    assert len(server.requests) == 3


async def test_an_allow_answers_input_is_checked_and_searched(project: Project) -> None:
    changed = Decision(True, "the user allowed it", updated_input={"query": "python 3.14 jit"})
    with ScriptedServer([search(), found(), text("Done.")]) as server:
        async with search_session(
            project.root, project.home, server.url, decision=changed
        ) as session:
            await session.prompt("search")
    assert "python 3.14 jit" in server.requests[1].body["messages"][0]["content"][0]["text"]
    assert "python 3.13" not in server.requests[1].body["messages"][0]["content"][0]["text"]


async def test_the_person_sees_three_results_and_how_many_more_the_model_got(
    project: Project,
) -> None:
    many = [(f"Page {n}", f"https://example.com/{n}", None) for n in range(1, 5)]
    script = [search(), searched("python 3.13 release", many, answer="Four."), text("ok")]
    with ScriptedServer(script) as server:
        async with search_session(project.root, project.home, server.url) as session:
            await session.prompt("search")
    lines = "".join(
        event.text for event in session.recorder.events if isinstance(event, ToolOutput)
    )
    assert lines.splitlines()[3:] == ["… and 1 more result"]
