"""Where WebSearch is offered, said by ``legato doctor``, and a real ``legato -p`` sending it."""

from __future__ import annotations

import json
import os
from typing import TYPE_CHECKING

from frontends.commands.doctor import run_doctor
from frontends.demo.scripted_api import ScriptedServer, call, text, tool_calls

if TYPE_CHECKING:
    from pathlib import Path

    import pytest

    from tests.frontends.conftest import Project


def doctor(tmp_path: Path, capsys: pytest.CaptureFixture[str], **env: str) -> str:
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    run_doctor(
        [str(tmp_path), "--no-probe"], env={"HOME": str(home), "PATH": os.environ["PATH"]} | env
    )
    out = capsys.readouterr()
    return out.out + out.err


def test_doctor_says_why_an_openai_compatible_api_gets_no_web_search(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = doctor(
        tmp_path,
        capsys,
        ASSISTANT_MODEL="openai:qwen2.5-coder",
        OPENAI_BASE_URL="http://127.0.0.1:9/v1",
    )
    assert (
        "Web search\n  WebSearch is not offered: an OpenAI-compatible API has no server-side "
        "web search\n" in out
    )


def test_doctor_says_bedrock_gets_no_web_search(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = doctor(
        tmp_path,
        capsys,
        CLOUD_ACCESS_KEY_ID="AKID",
        CLOUD_SECRET_ACCESS_KEY="secret",
        CLOUD_REGION="us-east-1",
    )
    assert "WebSearch is not offered: Amazon Bedrock has no server-side web search" in out


def test_doctor_says_the_anthropic_api_searches(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = doctor(tmp_path, capsys, ASSISTANT_API_KEY="k", ASSISTANT_BASE_URL="http://127.0.0.1:9")
    assert "WebSearch is offered: the Anthropic API searches the web itself" in out


def test_legato_p_offers_web_search_with_a_short_definition(project: Project) -> None:
    with ScriptedServer([text("Hello.")]) as server:
        done = project.legato(server.url, "-p", "hi")
    assert done.returncode == 0, done.stderr
    tools = {tool["name"]: tool for tool in server.requests[0].body["tools"]}
    search = tools["WebSearch"]
    assert search["input_schema"]["required"] == ["query"]
    assert set(search["input_schema"]["properties"]) == {
        "query",
        "allowed_domains",
        "blocked_domains",
    }
    # Every byte of it goes with every request.
    assert len(search["description"]) < 250


def test_a_headless_search_without_a_rule_is_denied_and_listed(project: Project) -> None:
    script = [
        tool_calls([call("WebSearch", {"query": "python 3.13"}, id="toolu_search")]),
        text("I could not search."),
    ]
    with ScriptedServer(script) as server:
        done = project.legato(server.url, "-p", "search it", "--output-format", "json")
    result = json.loads(done.stdout)
    assert [d["tool_name"] for d in result["permission_denials"]] == ["WebSearch"]
    assert len(server.requests) == 2  # no search request was sent
    sent_back = server.requests[1].body["messages"][-1]["content"][0]
    assert sent_back["tool_use_id"] == "toolu_search"
    assert sent_back["is_error"] is True
