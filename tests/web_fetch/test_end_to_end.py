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


# The broker's judgement of "fetch" (domain rules, local addresses) is another change's: until
# it is in, the broker cannot judge the question and the call fails.
def test_a_fetch_allowed_by_a_domain_rule_is_answered_by_the_fast_model(
    project: Project,  # noqa: F811 (the fixture imported above)
    site: Site,
) -> None:
    fetch = call("WebFetch", {"url": site.url("/page"), "prompt": "How is it installed?"})
    steps = [tool_calls([fetch]), text("With pip install thing."), text("done")]
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
    assert json.loads(done.stdout)["permission_denials"] == []
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
