"""WebFetch in a real ``legato -p`` run: the scripted API asks for a page on loopback, the rule
names the host, the fast model answers the prompt over the page, and the session's model gets
that answer inside the untrusted-content markers."""

from __future__ import annotations

import json
from typing import TYPE_CHECKING

from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls
from tests.frontends.conftest import project  # noqa: F401 (the fixture)

if TYPE_CHECKING:
    from tests.frontends.conftest import Project
    from tests.web_fetch.conftest import Site


def test_a_fetch_allowed_by_a_domain_rule_is_answered_by_the_fast_model(
    project: Project,  # noqa: F811 (the fixture imported above)
    site: Site,
) -> None:
    fetch = call("WebFetch", {"url": site.url("/page"), "prompt": "How is it installed?"})
    # The small model's answer is priced apart (a set figure, to find it in the totals).
    answer = text("With pip install thing.", usage={"input_tokens": 50_000, "output_tokens": 700})
    steps = [tool_calls([fetch]), answer, text("done")]
    with ScriptedServer(steps) as server:
        done = project.legato(
            server.url,
            "-p",
            "how do I install thing?",
            "--allowedTools",
            "WebFetch(domain:127.0.0.1)",
            "--output-format",
            "json",
        )
        requests = server.requests
    assert done.returncode == 0, done.stderr
    outcome = json.loads(done.stdout)
    assert outcome["permission_denials"] == []
    # Its tokens count in the run's usage, and in its cost at Haiku's price ($1 a million in).
    assert outcome["usage"]["input_tokens"] >= 50_000
    assert outcome["usage"]["output_tokens"] >= 700
    assert outcome["total_cost_usd"] >= 0.05
    assert len(requests) == 3, [r.body["messages"][-1] for r in requests]
    summary = requests[1].body
    assert summary["model"] == "claude-haiku-4-5-20251001"
    asked = summary["messages"][0]["content"][0]["text"]
    assert "# Installing" in asked and "SCRIPTED" not in asked
    assert asked.endswith("The question about this page: How is it installed?")
    results = [
        block
        for message in requests[2].body["messages"]
        for block in message["content"]
        if isinstance(block, dict) and block.get("type") == "tool_result"
    ]
    [result] = results
    content = result["content"]
    shown = content if isinstance(content, str) else content[0]["text"]
    assert f'<web-page url="{site.url("/page")}">\nWith pip install thing.\n</web-page>' in shown


def test_the_fast_model_is_not_asked_past_what_is_left_of_the_budget(
    project: Project,  # noqa: F811 (the fixture imported above)
    site: Site,
) -> None:
    fetch = call("WebFetch", {"url": site.url("/page"), "prompt": "How is it installed?"})
    steps = [tool_calls([fetch]), text("never the fast model's"), text("done")]
    # The first request (~$0.008) leaves ~$0.007 of $0.015; the fast model's request could
    # cost more (its longest answer alone, 2048 tokens at Haiku's $5 a million, is $0.01).
    with ScriptedServer(steps) as server:
        done = project.legato(
            server.url, "-p", "how do I install thing?", "--model", "sonnet",
            "--allowedTools", "WebFetch(domain:127.0.0.1)",
            "--output-format", "json", "--max-budget-usd", "0.015",
        )  # fmt: skip
        requests = server.requests
    assert done.returncode == 0, done.stderr
    assert [r.body["model"] for r in requests] == ["claude-sonnet-4-6"] * 2
    assert json.loads(done.stdout)["total_cost_usd"] < 0.015
    # The page's text goes to the session's model instead, saying why.
    said = json.dumps(requests[1].body["messages"][-1])
    assert "may not cover its request" in said
    assert "pip install thing" in said
